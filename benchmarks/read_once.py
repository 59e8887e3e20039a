"""What reading a text once saves: the CPU time of ``add``, ``add_many`` and recall, and the ``analyze()`` calls
each makes, for one or more source trees side by side.

    python benchmarks/read_once.py [--count 600] [--batch 200] [--questions 40] [--rounds 3]
        [--tree before=/path/to/old/checkout --tree after=/path/to/this/checkout]

Each round runs one fresh process per tree (``PYTHONPATH=DIR``, trees in turn, so whatever load the machine has
falls on all of them alike). A process writes ``--count`` seeded notes (``benchmarks/synthetic.py``) one ``add``
at a time into a linking layer over ``memory://`` whose user's entity graph holds the generator's relations
(so every write and question is matched against known names), then ``--batch`` more with ``add_many`` (in
batches of 20), then asks ``--questions`` questions four ways: ``recall`` (links on), ``context`` (links off),
``recall(include_shared=True)`` and, on a layer with intelligence over the same store, a planned recall (the
planner, retrieval and the context's sections). CPU time of the process per call (``time.process_time``),
median per process; the table shows the median over the rounds. Then, untimed, the calls of
``kioko_core.reading.analysis.analyze`` and ``EntityGraph.match_entities`` per call are counted with a profile hook.

Without ``--tree`` this checkout alone is measured.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
USER = "read-once-bench"
OPS = ("add", "add_many (per memory)", "recall", "context", "recall include_shared", "planned recall")


def child(count: int, batch: int, questions: int) -> dict[str, Any]:
    """Measure in this process, with whatever kioko PYTHONPATH names (the parent does not put ROOT first)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from synthetic import entity_relations, generate_notes, generate_questions

    import kioko
    from kioko_core.graph.entities import EntityGraph
    from kioko_core.reading import analysis as text

    notes = generate_notes(count + batch, seed=7)
    asked = generate_questions(questions, seed=7)
    store = kioko.open_store("memory://")
    layer = kioko.MemoryLayer(store, auto_link=True)
    for subject, relation, obj in entity_relations():
        layer.entities.add(subject, relation, obj, user_id=USER)
    times: dict[str, list[float]] = {op: [] for op in OPS}

    def timed(op: str, action: Callable[[], Any], per: int = 1) -> None:
        started = time.process_time()
        action()
        times[op].append((time.process_time() - started) * 1000 / per)

    for note in notes[:count]:
        timed(
            "add",
            lambda n=note: layer.add(
                n.content, user_id=USER, memory_type=n.memory_type, created_at=n.created_at, session_id=n.session_id
            ),
        )
    rest = notes[count:]
    for start in range(0, len(rest), 20):
        items = [
            {"content": n.content, "memory_type": n.memory_type, "created_at": n.created_at, "session_id": n.session_id}
            for n in rest[start : start + 20]
        ]
        timed("add_many (per memory)", lambda items=items: layer.add_many(items, user_id=USER), len(items))
    smart = kioko.MemoryLayer(store, auto_link=True, intelligence=True)
    calls: dict[str, Callable[[str], Any]] = {
        "recall": lambda q: layer.recall(q, user_id=USER, links=3),
        "context": lambda q: layer.context(q, user_id=USER),
        "recall include_shared": lambda q: layer.recall(q, user_id=USER, include_shared=True),
        "planned recall": lambda q: smart.recall(q, user_id=USER),
    }
    for question in asked:
        for op, call in calls.items():
            timed(op, lambda call=call, q=question: call(q))

    watched = {text.analyze.__code__: "analyze", EntityGraph.match_entities.__code__: "match"}

    def count_calls(action: Callable[[], Any], per: int = 1) -> dict[str, float]:
        seen: Counter[str] = Counter()

        def hook(frame: FrameType, event: str, arg: Any) -> None:
            if event == "call" and frame.f_code in watched:
                seen[watched[frame.f_code]] += 1

        sys.setprofile(hook)
        try:
            action()
        finally:
            sys.setprofile(None)
        return {name: seen[name] / per for name in ("analyze", "match")}

    extra = generate_notes(24, seed=11)
    counts = {
        "add": count_calls(lambda: layer.add(extra[0].content, user_id=USER, memory_type="episodic")),
        "add_many (per memory)": count_calls(
            lambda: layer.add_many([n.content for n in extra[1:21]], user_id=USER, memory_type="episodic"), 20
        ),
    }
    for op, call in calls.items():
        counts[op] = count_calls(lambda call=call: [call(q) for q in asked[:10]], len(asked[:10]))
    smart.close()
    return {"median_ms": {op: statistics.median(v) for op, v in times.items()}, "calls": counts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=600)
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.count, args.batch, args.questions)))
        return
    trees = dict(item.split("=", 1) for item in args.tree) or {"this": str(ROOT)}
    trees = {name: str(Path(tree).resolve()) for name, tree in trees.items()}
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    argv = [sys.executable, str(Path(__file__).resolve()), "--child"]
    argv += ["--count", str(args.count), "--batch", str(args.batch), "--questions", str(args.questions)]
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="kioko-read-once-") as scratch:
        for round_ in range(args.rounds):
            for name, tree in trees.items():
                env = {**os.environ, "PYTHONPATH": tree}
                # from a scratch folder: the working directory goes first on sys.path and must not be a checkout
                done = subprocess.run(argv, env=env, cwd=scratch, capture_output=True, text=True, check=True)
                results[name].append(json.loads(done.stdout))
                loads.append(os.getloadavg()[0])
            print(f"round {round_ + 1}/{args.rounds}", file=sys.stderr)

    names = list(trees)
    print(
        f"{args.rounds} rounds, {args.count} adds + {args.batch} in add_many, {args.questions} questions; memory://, "
        f"offline embedder; Python {platform.python_version()}, {os.cpu_count()} CPUs, load average (1 min) "
        f"{min(loads):.1f}-{max(loads):.1f}; trees: " + ", ".join(f"{n}={t}" for n, t in trees.items())
    )
    print()
    header = "| call | " + " | ".join(f"{n} CPU ms (median)" for n in names)
    header += (" | " + " | ".join(f"{n} / {names[0]}" for n in names[1:]) if len(names) > 1 else "") + " | "
    header += " | ".join(f"{n} analyze() / match per call" for n in names) + " |"
    print(header)
    print("|" + "---|" * (1 + len(names) + max(0, len(names) - 1) + len(names)))
    for op in OPS:
        medians = {n: statistics.median(r["median_ms"][op] for r in results[n]) for n in names}
        ratios = [f"{medians[n] / medians[names[0]]:.2f}" for n in names[1:]]
        calls = [f"{results[n][0]['calls'][op]['analyze']:g} / {results[n][0]['calls'][op]['match']:g}" for n in names]
        row = [op] + [f"{medians[n]:.3f}" for n in names] + ratios + calls
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
