"""What the offline intelligence costs per conversation turn: ``record_turn`` on a store of 2,000 memories.

    python benchmarks/intelligence_turns.py [--store sqlite] [--count 2000] [--turns 300] [--seed 7]
        [--markdown PATH] [--json PATH]

A layer from ``kioko.intelligent(url)`` (offline router, linking and the entity graph on) first gets
``--count`` seeded notes from ``benchmarks/synthetic.py`` for one user. Then ``--turns`` turns of an
agent conversation go through ``record_turn`` one at a time, in one session, with a ``recall`` before
each (as the agent loop does; recall is not timed). The turns cycle through a fixed mix: small talk and
questions (the gate skips them) and statements that write (profile, goals and progress, decisions and
switches, procedures, lessons, episodes, facts, working memory), with numbers varied per cycle so no
two turns are the same text. One untimed cycle for another user warms the process up first.

Printed: the median and 95th percentile wall-clock time of one ``record_turn``, over all turns, over
the gated turns and over the turns that applied at least one operation; the router's share (its
``route`` call timed inside each ``record_turn``: deciding, without the writes); and the operations
applied.
The spec's goal is a median under 5 ms per turn at 2,000 memories on SQLite.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from synthetic import generate_notes  # noqa: E402

import kioko  # noqa: E402

USER, SESSION = "bench-user", "bench-session"

TURNS = [
    "thanks!",
    "What did we decide about the dashboards?",
    "I'm debugging ticket INC-{n}, the drive shows error E-{m} on line {k}.",
    "ok",
    "My goal is to cut scrap on press {k} by {p}% by March 31.",
    "Can you summarize the shift report?",
    "The line {k} conveyor jammed twice this morning.",
    "I'm about {p}% done with cutting scrap on press {k}.",
    "How do I reset the safety relay?",
    "We decided to use Grafana for the line {k} dashboards because it alerts well.",
    "great, thank you",
    "To clear a jam on line {k}, press stop, then open the guard, then remove the bottle.",
    "Lesson learned: when debugging drive {k}, check the encoder cable first.",
    "I have {c} kids.",
    "Could you draft the email to the team?",
    "OPC UA servers on cell {k} listen on port {m} by default.",
    "I prefer short answers.",
    "I live in Pune.",
    "Bye!",
    "The vision camera on station {k} lost focus after the {m} batch.",
]
COUNTS = ["two", "three", "four", "five"]


def turn_text(index: int) -> str:
    cycle, position = divmod(index, len(TURNS))
    return TURNS[position].format(
        n=4500 + index, m=200 + cycle, k=cycle % 9 + 1, p=10 + (cycle * 7) % 80, c=COUNTS[cycle % len(COUNTS)]
    )


def run(store: str, count: int, turns: int, seed: int) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="kioko-intel-bench-"))
    url = "memory://" if store == "memory" else f"sqlite:///{folder / 'bench.db'}"
    memory = kioko.intelligent(url)
    for note in generate_notes(count, seed=seed):
        memory.add(
            note.content,
            user_id=USER,
            memory_type=note.memory_type,
            created_at=note.created_at,
            session_id=note.session_id,
        )
    for index in range(len(TURNS)):  # warm-up, untimed: first-use costs (date parser tables) are paid once
        memory.record_turn(turn_text(index), "Noted.", user_id="warm-up", session_id=SESSION)
    router = memory.intelligence.router
    routing: list[float] = []
    original_route = router.route

    def timed_route(layer, turn):  # the deciding part of each record_turn, measured inside the same call
        start = time.perf_counter()
        try:
            return original_route(layer, turn)
        finally:
            routing.append((time.perf_counter() - start) * 1000.0)

    router.route = timed_route
    timings: list[tuple[float, bool, int]] = []
    for index in range(turns):
        text = turn_text(index)
        memory.recall(text, user_id=USER, session_id=SESSION)
        start = time.perf_counter()
        report = memory.record_turn(text, "Noted.", user_id=USER, session_id=SESSION)
        elapsed = (time.perf_counter() - start) * 1000.0
        timings.append((elapsed, report.skipped is not None and not report.ops, len(report.applied)))
    memory.close()

    def summary(values: list[float]) -> dict:
        ordered = sorted(values)
        return {
            "n": len(values),
            "median_ms": round(statistics.median(values), 3) if values else None,
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 3) if values else None,
        }

    return {
        "store": store,
        "memories": count,
        "turns": turns,
        "seed": seed,
        "all": summary([t for t, _, _ in timings]),
        "gated": summary([t for t, gated, _ in timings if gated]),
        "writing": summary([t for t, _, applied in timings if applied]),
        "routing": summary(routing[-turns:]),
        "operations_applied": sum(a for _, _, a in timings),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }


def markdown(result: dict, command: str) -> str:
    rows = [
        ("all turns", result["all"]),
        ("gated (small talk, questions)", result["gated"]),
        ("turns that applied operations", result["writing"]),
        ("deciding only (the router's share of every turn)", result["routing"]),
    ]
    lines = [
        f"`{command}`",
        "",
        f"Offline `record_turn` on {result['store']} holding {result['memories']:,} memories "
        f"(linking and the entity graph on), {result['turns']} turns, "
        f"{result['operations_applied']} operations applied.",
        "",
        "| turns | n | median (ms) | p95 (ms) |",
        "|---|---:|---:|---:|",
    ]
    lines += [f"| {name} | {s['n']} | {s['median_ms']} | {s['p95_ms']} |" for name, s in rows]
    lines += ["", f"Python {result['python']}, {result['machine']}. Goal (spec): median under 5 ms per turn."]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="sqlite", choices=["sqlite", "memory"])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    args = parser.parse_args()
    result = run(args.store, args.count, args.turns, args.seed)
    command = "python benchmarks/intelligence_turns.py " + " ".join(sys.argv[1:])
    text = markdown(result, command.strip())
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
