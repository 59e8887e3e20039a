"""Recall while other processes write: p50 with 1 writer (the agent alone) and with 4 (three more processes
writing the same user), side by side in one run, with the index cache catching up by what changed
(ScopeChanges) and by starting afresh (the fallback every store without a change log takes).

    python benchmarks/writers_recall.py [--stores sqlite,postgresql] [--count 2000] [--turns 80]

One user holds ``--count`` synthetic notes (``benchmarks/synthetic.py``, linked at write time). The
measured process runs an agent's loop: record a turn (a linked add), then recall a question (links=3),
``--turns`` times; only the recall is timed (with others writing, it first waits, untimed, for 3 of their
batches, so every measured recall follows foreign writes) (wall clock, and this process's CPU time, which a loaded
machine distorts less). With 4 writers, three more processes run the same loop on the same user for the
whole phase (their caches in the same mode), as four workers of one agent would. The phases alternate
(1 writer, 4 writers) for each cache mode, twice, and each row reports the median over both rounds; the
ratio is 4 writers over 1. Also printed: how often the measured cache caught up by changes and how often
it rebuilt.

PostgreSQL: ``KIOKO_TEST_POSTGRES_URL`` if set, else the test suite's embedded server (tests/services.py).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "tests")]

from synthetic import generate_notes, generate_questions  # noqa: E402

import kioko  # noqa: E402


def _note_fields(note: Any) -> dict[str, Any]:
    return {"content": note.content, "memory_type": note.memory_type, "session_id": note.session_id}


def writer(url: str, user: str, seed: int, mode: str, ready: Any, stop: Any, counts: Any) -> None:
    """Another agent on ``user``: the same loop (linked add, recall), its cache in the same ``mode``, until
    ``stop`` is set; a process of its own (connections, caches)."""
    notes = generate_notes(400, seed=seed)
    questions = generate_questions(30, seed=seed)
    written = 0
    with kioko.connect(url, auto_link=True) as layer:
        if mode == "rebuild":
            layer.index._changes = None
        layer.add(**_note_fields(notes[-1]), user_id=user)
        ready.wait(600)  # a barrier: the phase starts when every writer is writing
        while not stop.is_set():
            layer.add(**_note_fields(notes[written % len(notes)]), user_id=user)
            layer.recall(questions[written % len(questions)], user_id=user, links=3)
            written += 1
    counts.put(written)


def phase(
    layer: Any, user: str, notes: list[Any], questions: list[str], turns: int, others: int
) -> tuple[list[float], list[float]]:
    """``turns`` x (linked add, timed recall): the recalls' wall and CPU times in ms. With ``others``
    writing, each recall waits (untimed) until they have written ``others`` batches since this turn's add,
    so every measured recall follows the others' writes, whichever mode makes them faster or slower."""
    wall, cpu = [], []
    scope = (user, None)
    for turn in range(turns):
        layer.add(**_note_fields(notes[turn % len(notes)]), user_id=user)
        after_add, waited = layer.store.generation(scope), time.perf_counter()
        while others and layer.store.generation(scope) < after_add + others and time.perf_counter() - waited < 10:
            time.sleep(0.002)
        started, started_cpu = time.perf_counter(), time.process_time()
        layer.recall(questions[turn % len(questions)], user_id=user, links=3)
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    return wall, cpu


def run_store(name: str, url: str, count: int, turns: int) -> list[str]:
    user = f"writers-{uuid.uuid4().hex[:8]}"
    notes = generate_notes(count + turns, seed=11)
    started = time.perf_counter()
    with kioko.connect(url, auto_link=True) as filler:
        filler.add_many([{**_note_fields(n), "created_at": n.created_at} for n in notes[:count]], user_id=user)
    print(f"{name}: {count:,} notes written in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    questions = generate_questions(30, seed=11)
    context = multiprocessing.get_context("spawn")
    results: dict[tuple[str, int], tuple[list[float], list[float]]] = {}
    refreshes: dict[str, dict[str, int]] = {}
    written_by_others: dict[str, int] = {}
    with kioko.connect(url, auto_link=True) as layer:
        for mode in ("changes", "rebuild"):
            if mode == "rebuild":
                layer.index._changes = None  # what a store without ScopeChanges gets: start the scope afresh
            before = dict(layer.index.refreshes)
            for _round in range(2):
                for writers in (1, 4):
                    extra = writers - 1
                    ready, stop, counts = context.Barrier(writers), context.Event(), context.Queue()
                    others = [
                        context.Process(target=writer, args=(url, user, 100 + n, mode, ready, stop, counts))
                        for n in range(extra)
                    ]
                    for process in others:
                        process.start()
                    ready.wait(600)
                    wall, cpu = phase(layer, user, notes[count:], questions, turns, extra)
                    stop.set()
                    total = sum(counts.get(timeout=120) for _ in others)
                    for process in others:
                        process.join(60)
                    held = results.setdefault((mode, writers), ([], []))
                    held[0].extend(wall)
                    held[1].extend(cpu)
                    written_by_others[mode] = written_by_others.get(mode, 0) + total
            refreshes[mode] = {k: layer.index.refreshes[k] - before[k] for k in before}
    rows = []
    for mode in ("changes", "rebuild"):
        one, four = results[mode, 1], results[mode, 4]
        p50 = [statistics.median(v) for v in (one[0], four[0], one[1], four[1])]
        p95 = [statistics.quantiles(v, n=20)[18] for v in (one[0], four[0])]
        rows.append(
            f"| {name} | {count:,} | {'by what changed' if mode == 'changes' else 'afresh (fallback)'} | "
            f"{p50[0]:.2f} | {p50[1]:.2f} | {p50[1] / p50[0]:.2f}x | {p95[0]:.2f} | {p95[1]:.2f} | "
            f"{p50[2]:.2f} | {p50[3]:.2f} | {p50[3] / p50[2]:.2f}x | "
            f"{refreshes[mode]['changes']} / {refreshes[mode]['rebuilds']} | {written_by_others[mode]:,} |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", default="sqlite,postgresql")
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=80)
    args = parser.parse_args()
    rows: list[str] = []
    with tempfile.TemporaryDirectory(prefix="kioko-writers-") as directory:
        for name in args.stores.split(","):
            if name == "sqlite":
                rows += run_store(name, f"sqlite:///{directory}/writers.db", args.count, args.turns)
            elif name == "postgresql":
                import services

                service = None
                url = os.environ.get("KIOKO_TEST_POSTGRES_URL")
                if not url:
                    service = services.start_postgres()
                    if not service.available:
                        raise SystemExit(f"no PostgreSQL: {service.how}")
                    url = services.postgres_database(service, "kioko_writers")
                try:
                    rows += run_store(name, url, args.count, args.turns)
                finally:
                    if service is not None:
                        service.stop()
            else:
                raise SystemExit(f"unknown store {name!r}: sqlite or postgresql")
    print(
        "| store | memories | cache catches up | recall p50, 1 writer (ms) | recall p50, 4 writers (ms) | ratio | "
        "p95, 1 writer | p95, 4 writers | CPU p50, 1 writer (ms) | CPU p50, 4 writers (ms) | CPU ratio | "
        "caught up / rebuilt | turns of the 3 others |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print(
        f"\n{args.turns} turns x 2 rounds per row (linked add, then timed recall with links=3); "
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f} at the end"
    )


if __name__ == "__main__":
    main()
