"""What counting uses (heat) adds to a recall, and what the pin task costs, on one user's SQLite memory.

    python benchmarks/heat_cost.py [--memories 2000] [--recalls 200]

Builds one user's memory of ``--memories`` facts and episodes on a SQLite file, then recalls the same
mixed questions ``--recalls`` times on a layer whose intelligence counts uses (the default, pin task
on) and on one that does not (``pin_threshold=0``), and reports the median and p90 recall time of each;
(in alternating blocks of 50); then the median time of the pin task (``maintain(tasks=["pin"])``) over 20 runs. The difference of the
two recall medians is the cost of the heat record's read and versioned write per recall.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import kioko  # noqa: E402
from kioko_intelligence import Intelligence  # noqa: E402

USER = "kumar"
QUESTIONS = [
    "Which drive does station 12 use?",
    "When did line 3 stop for a jam?",
    "What is the port of OPC UA endpoint 3?",
    "What subnet does the PLC network use?",
]


def build(memory: kioko.MemoryLayer, count: int) -> None:
    texts = []
    for i in range(count):
        if i % 2:
            texts.append(
                f"Line {i % 7 + 1} stopped for {['a jam', 'a drive fault', 'a sensor error'][i % 3]} on day {i} "
                f"and restarted after {10 + i % 50} minutes."
            )
        else:
            texts.append(f"Station {i % 97 + 1} uses a {['Siemens', 'ABB', 'Rockwell'][i % 3]} drive, unit {i}.")
    memory.add_many(
        [{"content": t, "memory_type": "factual" if "uses" in t else "episodic"} for t in texts], user_id=USER
    )
    memory.facts.add("The plant's PLC network uses the 10.20.0.0/16 subnet", user_id=USER)


def timed(memory: kioko.MemoryLayer, recalls: int) -> list[float]:
    took = []
    for i in range(recalls):
        started = time.perf_counter()
        memory.recall(QUESTIONS[i % len(QUESTIONS)], user_id=USER)
        took.append((time.perf_counter() - started) * 1000)
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--recalls", type=int, default=200)
    args = parser.parse_args()
    url = "sqlite:///" + str(Path(tempfile.mkdtemp()) / "heat.db")
    with kioko.connect(url, auto_link=False) as plain:  # filled unlinked, as measured
        build(plain, args.memories)
    print(f"`python benchmarks/heat_cost.py --memories {args.memories} --recalls {args.recalls}` (SQLite)\n")
    print("| layer | recall median ms | recall p90 ms |\n|---|---:|---:|")
    layers = {
        "uses counted (pins on)": kioko.MemoryLayer(kioko.open_store(url), intelligence=Intelligence()),
        "no counting (pin_threshold=0)": kioko.MemoryLayer(
            kioko.open_store(url), intelligence=Intelligence(pin_threshold=0)
        ),
    }
    took: dict[str, list[float]] = {name: [] for name in layers}
    for memory in layers.values():
        timed(memory, 10)  # warm the caches
    for _ in range(4):  # alternating blocks, so neither layer gets the quieter moments of a busy machine
        for name, memory in layers.items():
            took[name] += timed(memory, args.recalls // 4)
    for name, memory in layers.items():
        times = sorted(took[name])
        print(f"| {name} | {statistics.median(times):.2f} | {times[int(0.9 * len(times))]:.2f} |")
        memory.close()
    with kioko.connect(url, intelligence=True) as memory:
        runs = []
        for _ in range(20):
            started = time.perf_counter()
            memory.maintain(user_id=USER, tasks=["pin"])
            runs.append((time.perf_counter() - started) * 1000)
        pinned = len(memory.pinned(user_id=USER))
    print(f"\npin task: median {statistics.median(runs):.1f} ms over 20 runs; {pinned} memories pinned")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
