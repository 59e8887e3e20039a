"""Single-text latency of the semantic embedder, one BLAS thread vs the library's default, idle and busy.

    python benchmarks/semantic_latency.py [--texts 60] [--busy 3] [--markdown FILE]

A query or one memory is a batch of a few dozen tokens; `kioko_core.semantic` runs such small batches on
one BLAS thread (threadpoolctl). This compares that with the default thread count, first on an idle
machine, then with ``--busy`` processes spinning on the cores (a service under load, other programs), and
prints median and p95 milliseconds per text side by side.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import kioko_core.semantic as semantic  # noqa: E402


def _spin() -> None:
    while True:
        pass


def _measure(embedder: semantic.MiniLMEmbedder, texts: list[str], one_thread: bool) -> tuple[float, float]:
    # a threshold of 0 tokens sends every batch down the default-threads path
    semantic.SMALL_BATCH_TOKENS = 512 if one_thread else 0
    times = []
    for text in texts:
        start = time.perf_counter()
        embedder.embed(text)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.95))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=60, help="texts embedded one at a time per row")
    parser.add_argument("--busy", type=int, default=3, help="spinning processes for the busy rows (0: none)")
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = parser.parse_args()

    load_at_start = os.getloadavg()[0]
    embedder = semantic.MiniLMEmbedder().load()
    texts = [
        f"Caroline went to the support group on day {i} and talked about the adoption agency" for i in range(args.texts)
    ]
    embedder.embed_many(texts[:4])  # warm-up: the model and BLAS are loaded before anything is timed

    rows = []
    for load in ("idle", "busy") if args.busy else ("idle",):
        spinners = []
        if load == "busy":
            spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy)]
            for spinner in spinners:
                spinner.start()
            time.sleep(1.0)
        try:
            for one_thread in (False, True):
                median, p95 = _measure(embedder, texts, one_thread)
                rows.append((load, "1 (kioko)" if one_thread else "default", median, p95))
        finally:
            for spinner in spinners:
                spinner.terminate()

    lines = [
        f"Semantic embedder, one text at a time ({args.texts} texts), {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; busy = {args.busy} processes spinning; load average at start "
        f"{load_at_start:.2f} (the idle rows share the cores with whatever else runs).",
        "",
        "| machine | BLAS threads | median ms | p95 ms |",
        "|---|---|---:|---:|",
        *(f"| {load} | {threads} | {median:.1f} | {p95:.1f} |" for load, threads, median, p95 in rows),
    ]
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        args.markdown.write_text(
            "# Semantic embedder latency: one BLAS thread for small batches\n\n"
            f"Command: `python benchmarks/semantic_latency.py --texts {args.texts} --busy {args.busy}`\n\n{text}\n"
        )


if __name__ == "__main__":
    main()
