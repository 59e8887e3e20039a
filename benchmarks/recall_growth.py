"""How recall's cost grows with the store, measured so that two sizes see the same machine load.

    python benchmarks/recall_growth.py [--store memory://] [--sizes 2000,250000] [--json PATH] [--markdown PATH]

``memory_graph_bench.py`` measures one size after the other, so on a shared machine a change of load
between two cells reads as growth. Here every size is filled first (the benchmark's notes and fill,
linking as its connect budget allows), then the same questions are asked of each store in turn,
alternating the order, so each question's times at the two sizes are taken moments apart. Reported per
size: recall (links=0 and 3) medians, the knn call alone, and how many rows knn handed back before the
store's cut at k (``do_knn``): rows beyond k are work that grows with the store when texts repeat.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from a checkout: the packages live next to benchmarks/
    sys.path.insert(0, str(ROOT))

import kioko  # noqa: E402
from benchmarks import memory_graph_bench as bench  # noqa: E402
from benchmarks.synthetic import generate_notes, generate_questions  # noqa: E402
from kioko_core.layer.memory_layer import MemoryLayer  # noqa: E402


def filled_layer(url: str, size: int, questions: Sequence[str], settings: bench.Settings) -> tuple[MemoryLayer, dict]:
    """A store of ``size`` notes, filled and linked as memory_graph_bench does; what that cost."""
    records = bench.build_records(generate_notes(size, settings.seed), settings.seed, settings.progress)
    store = kioko.open_store(url)
    layer = MemoryLayer(store, auto_link=True)
    bench.add_entity_graph(layer)
    cost: dict[str, Any] = {"fill_s": round(bench.fill(store, records, settings, f"{size}"), 1)}
    started = time.perf_counter()
    store.knn(bench.SCOPE, records[0].embedding, 10)
    cost["first_knn_s"] = round(time.perf_counter() - started, 1)
    connect = bench.link_store(layer, size, settings, f"{size}")
    cost["linked"] = connect["memories"]
    if not connect["all"]:
        cost["seeds_linked"] = bench.link_question_seeds(layer, questions, settings, f"{size}")
    return layer, cost


def measure(layers: dict[int, MemoryLayer], questions: Sequence[str], rounds: int) -> dict[int, dict[str, Any]]:
    times: dict[int, dict[str, list[float]]] = {size: {"recall0": [], "recall3": [], "knn": []} for size in layers}
    handed: dict[int, list[int]] = {size: [] for size in layers}
    sizes = list(layers)
    for layer in layers.values():  # untimed: stems, hashes, the graph's pages
        for question in questions:
            layer.recall(question, user_id=bench.USER, links=3)
    for number in range(rounds):
        for turn, question in enumerate(questions):
            for size in sizes if number % 2 == 0 else sizes[::-1]:
                layer = layers[size]
                for links in (0, 3) if (number + turn) % 2 == 0 else (3, 0):  # the first call warms the second
                    layer.index.invalidate(bench.SCOPE)
                    started = time.perf_counter()
                    layer.recall(question, user_id=bench.USER, links=links)
                    times[size][f"recall{links}"].append((time.perf_counter() - started) * 1000.0)
                vector = layer.embedder.embed(question)
                started = time.perf_counter()
                layer.store.knn(bench.SCOPE, vector, 20)
                times[size]["knn"].append((time.perf_counter() - started) * 1000.0)
                store: Any = layer.store
                handed[size].append(len(store.do_knn(bench.SCOPE, vector.astype("float32"), 20, None)))
    return {
        size: {
            **{f"{name}_ms": round(statistics.median(values), 2) for name, values in times[size].items()},
            "knn_rows_median": statistics.median(handed[size]),
            "knn_rows_max": max(handed[size]),
        }
        for size in sizes
    }


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", default="memory://", help="the store URL each size opens (default memory://)")
    parser.add_argument("--sizes", default="2000,250000", help="comma-separated memory counts")
    parser.add_argument("--rounds", type=int, default=3, help="how many times each question is asked per size")
    parser.add_argument("--connect-budget", type=float, default=20.0, help="seconds connect() may take per size")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--no-progress", action="store_true")
    arguments = parser.parse_args(argv)
    sizes = sorted(int(s) for s in arguments.sizes.split(","))
    settings = bench.Settings(
        phase_budget=1e9, connect_budget=arguments.connect_budget, progress=not arguments.no_progress
    )
    questions = generate_questions(30, settings.seed)
    layers, costs = {}, {}
    for size in sizes:
        print(f"{size} memories ...", file=sys.stderr, flush=True)
        layers[size], costs[size] = filled_layer(arguments.store, size, questions, settings)
    load_before = round(os.getloadavg()[0], 2)
    results = measure(layers, questions, arguments.rounds)
    report = {
        "benchmark": "recall_growth",
        "command": " ".join(["python benchmarks/recall_growth.py", *(sys.argv[1:] if argv is None else argv)]),
        "code": bench.code_version(),
        "store": arguments.store,
        "load_average": [load_before, round(os.getloadavg()[0], 2)],
        "results": [{"size": size, **costs[size], **results[size]} for size in sizes],
    }
    small, large = sizes[0], sizes[-1]
    lines = [
        "| memories | recall links=0 | recall links=3 | knn (k=20) | rows knn hands back (median / max) |",
        "|---:|---:|---:|---:|---:|",
        *(
            f"| {size:,} | {results[size]['recall0_ms']} ms | {results[size]['recall3_ms']} ms | "
            f"{results[size]['knn_ms']} ms | {results[size]['knn_rows_median']} / {results[size]['knn_rows_max']} |"
            for size in sizes
        ),
        "",
        f"Ratio {large:,} / {small:,}: recall links=3 "
        f"{results[large]['recall3_ms'] / results[small]['recall3_ms']:.2f}x, links=0 "
        f"{results[large]['recall0_ms'] / results[small]['recall0_ms']:.2f}x.",
        "",
        f"Command: `{report['command']}`; load average {load_before} before the timed questions, "
        f"{report['load_average'][1]} after; code {report['code']['commit']}"
        + (
            f" with uncommitted changes in {', '.join(report['code']['uncommitted'])}"
            if report["code"]["uncommitted"]
            else ""
        )
        + ".",
    ]
    table = "\n".join(lines) + "\n"
    print(table)
    if arguments.markdown:
        arguments.markdown.write_text(table)
    if arguments.json:
        arguments.json.write_text(json.dumps(report, indent=2) + "\n")
    return report


if __name__ == "__main__":
    main()
