"""What forgetting costs on SQLite: ``secure_delete`` on the write path, and a delete with and without the purge.

    python benchmarks/forget_cost.py [--count 400] [--rounds 3]

Each round builds two files side by side, one with ``PRAGMA secure_delete`` on (Kioko's setting) and one
with it off, stores ``--count`` seeded notes in each with linking on, then deletes half of them twice over:
a quarter with the store's purge (the WAL checkpointed and truncated, as ``delete`` does) and a quarter
without. Wall-clock milliseconds per call, the median of the rounds, and the ratios of the two files in
the same run; the order of the two alternates between rounds, so a machine other processes load weighs
on both alike. The figures are for the machine it runs on: the purge's cost is mostly its fsync.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from synthetic import generate_notes  # noqa: E402

import kioko  # noqa: E402
from kioko_backends.sqlite import store as sqlite_backend  # noqa: E402  (the module that calls _configure)
from kioko_core.layer.memory_layer import MemoryLayer  # noqa: E402

_configure = sqlite_backend._configure


def _without_secure_delete(connection, busy_ms):  # type: ignore[no-untyped-def]
    _configure(connection, busy_ms)
    connection.execute("PRAGMA secure_delete = OFF")


def one_file(directory: Path, secure: bool, notes: list[str]) -> dict[str, float]:
    sqlite_backend._configure = _configure if secure else _without_secure_delete  # type: ignore[assignment]
    try:
        memory: MemoryLayer = kioko.connect(
            f"sqlite:///{directory / ('on.db' if secure else 'off.db')}", auto_link=True
        )
        try:
            start = time.perf_counter()
            ids = [memory.add(note, user_id="bench").id for note in notes]
            add = (time.perf_counter() - start) * 1000 / len(ids)
            half = len(ids) // 4
            start = time.perf_counter()
            for memory_id in ids[:half]:
                memory.delete(memory_id, user_id="bench")
            purged = (time.perf_counter() - start) * 1000 / half
            memory._purge = lambda scopes=None: None  # type: ignore[method-assign]
            start = time.perf_counter()
            for memory_id in ids[half : 2 * half]:
                memory.delete(memory_id, user_id="bench")
            plain = (time.perf_counter() - start) * 1000 / half
        finally:
            memory.close()
    finally:
        sqlite_backend._configure = _configure  # type: ignore[assignment]
    return {"add (linked)": add, "delete with purge": purged, "delete without purge": plain}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    notes = [note.content for note in generate_notes(args.count, seed=7)]
    figures: dict[tuple[bool, str], list[float]] = defaultdict(list)
    for round_number in range(args.rounds):
        directory = Path(tempfile.mkdtemp(prefix="kioko-forget-"))
        try:
            order = (True, False) if round_number % 2 == 0 else (False, True)
            for secure in order:
                for name, value in one_file(directory, secure, notes).items():
                    figures[secure, name].append(value)
        finally:
            shutil.rmtree(directory, ignore_errors=True)
    print(f"SQLite, {args.count} notes, median of {args.rounds} rounds (ms per call)")
    print("| call | secure_delete on | off | on / off |")
    print("|---|---:|---:|---:|")
    for name in ("add (linked)", "delete without purge", "delete with purge"):
        on, off = statistics.median(figures[True, name]), statistics.median(figures[False, name])
        print(f"| {name} | {on:.2f} | {off:.2f} | {on / off:.2f} |")


if __name__ == "__main__":
    main()
