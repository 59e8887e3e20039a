"""Where recall's time goes on a large SQLite file: cProfile of the benchmark's 30 questions on a copy of it.

    python benchmarks/sqlite_recall_profile.py KEPT.db WORK.db [--schema1]

KEPT.db is a fill ``memory_graph_bench.py --keep`` left (its saved graphs beside it are copied too);
WORK.db is where the copy goes (removed at the end). ``--schema1`` turns the copy back into a schema 1 file
(no per-term df table: every df is a count of the term's postings), to run the code before schema 2 on it.
Prints the median recall (links=0, index cache emptied before each question), the top of the profile by
own time, and what a df lookup of a few common terms costs.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import shutil
import sqlite3
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from a checkout: the packages live next to benchmarks/
    sys.path.insert(0, str(ROOT))

import kioko  # noqa: E402
from benchmarks import memory_graph_bench as bench  # noqa: E402
from benchmarks.synthetic import generate_questions  # noqa: E402
from kioko_core.layer.memory_layer import MemoryLayer  # noqa: E402

SCHEMA_1 = (
    "DROP TRIGGER kioko_postings_count",
    "DROP TRIGGER kioko_postings_uncount",
    "DROP TABLE kioko_term_df",
    "UPDATE kioko_meta SET value = '1' WHERE key = 'schema_version'",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kept", help="the kept SQLite file")
    parser.add_argument("work", help="where to put the copy that is profiled")
    parser.add_argument("--schema1", action="store_true", help="profile the copy as a schema 1 file")
    arguments = parser.parse_args()
    kept, work = arguments.kept, arguments.work
    shutil.copyfile(kept, work)
    if os.path.isdir(kept + ".ann"):
        shutil.copytree(kept + ".ann", work + ".ann")
    try:
        if arguments.schema1:
            with sqlite3.connect(work) as raw:
                for statement in SCHEMA_1:
                    raw.execute(statement)
        profile(work)
    finally:
        shutil.rmtree(work + ".ann", ignore_errors=True)
        for suffix in ("", "-wal", "-shm"):
            Path(work + suffix).unlink(missing_ok=True)


def profile(path: str) -> None:
    store = kioko.open_store(f"sqlite:///{path}", vector_cache_mb=2500.0)
    layer = MemoryLayer(store, auto_link=True)
    questions = generate_questions(30, 7)
    started = time.perf_counter()
    layer.recall(questions[0], user_id=bench.USER, links=0)
    print(f"first recall (loads the vectors and the saved graph): {time.perf_counter() - started:.1f} s")
    for question in questions:  # untimed: the file's pages, stems, hashes
        layer.recall(question, user_id=bench.USER, links=0)
    times = []
    profiler = cProfile.Profile()
    for question in questions:
        layer.index.invalidate(bench.SCOPE)
        started = time.perf_counter()
        profiler.enable()
        layer.recall(question, user_id=bench.USER, links=0)
        profiler.disable()
        times.append((time.perf_counter() - started) * 1000.0)
    print(f"recall links=0: median {statistics.median(times):.2f} ms; load average {os.getloadavg()[0]:.2f}")
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(12)
    print(out.getvalue())
    for term in ("k:episodic", "k:factual", "k:goal", "t:pump"):
        started = time.perf_counter()
        found = store.postings(bench.SCOPE, [term], 0)
        print(f"df({term}) = {found.df[term]}: {(time.perf_counter() - started) * 1000:.2f} ms")
    store.close()


if __name__ == "__main__":
    main()
