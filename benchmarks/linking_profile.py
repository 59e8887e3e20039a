"""Where a write's time goes: CPU milliseconds per ``add`` in each step of the write path.

    python benchmarks/linking_profile.py [--store memory|sqlite] [--count 2000] [--plain | --connect]

The first half of ``--count`` seeded notes (``benchmarks/synthetic.py``) fills one user's store; each
of the second half is then added one at a time with linking on (``--plain``: off), and the CPU time of
this process spent in each step is summed and divided by the number of adds. CPU time rather than
wall-clock time, so a machine other processes load still shows where this process works. The steps
nest (``linker.plan`` holds ``score_candidates``, ``store.get`` ...), so the rows do not add up to the total.

``--connect`` measures the backfill instead: all ``--count`` notes are stored through ``add_many`` with
linking off, then one ``memory.graph.connect()`` links every one of them; the figures are per memory
connected: connect's CPU time divided by the memories (a mean: connect stores memories a batch at a
time, so the time between two of its progress calls is no one memory's).
"""

from __future__ import annotations

import argparse
import functools
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from synthetic import entity_relations, generate_notes  # noqa: E402

import kioko  # noqa: E402
from kioko_core import store  # noqa: E402
from kioko_core.graph import entities  # noqa: E402
from kioko_core.layer import memory_layer as layer  # noqa: E402
from kioko_core.layer.memory_layer import MemoryLayer  # noqa: E402
from kioko_core.linking import linker  # noqa: E402

SPENT: dict[str, float] = defaultdict(float)


def timed(owner: Any, name: str, label: str) -> None:
    """Replace ``owner.name`` by a wrapper adding its CPU time to ``SPENT[label]``."""
    original: Callable[..., Any] = getattr(owner, name)

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            SPENT[label] += time.process_time() - started

    setattr(owner, name, wrapper)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=("memory", "sqlite"), default="memory")
    parser.add_argument("--count", type=int, default=2000, help="notes: the first half fills, the rest is timed")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--plain", action="store_true", help="linking off")
    mode.add_argument("--connect", action="store_true", help="add_many with linking off, then graph.connect()")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="kioko-linking-profile-"))
    url = "memory://" if args.store == "memory" else f"sqlite:///{workdir / 'profile.db'}"
    with kioko.open_store(url) as opened:
        memory = MemoryLayer(opened, auto_link=not (args.plain or args.connect))
        for subject, relation, obj in entity_relations():
            memory.graph.add(subject, relation, obj, user_id="profile")
        notes = generate_notes(args.count, seed=7)
        fill, timed_notes = notes[: args.count // 2], notes[args.count // 2 :]

        def add(note: Any) -> None:
            memory.add(
                note.content,
                user_id="profile",
                memory_type=note.memory_type,
                session_id=note.session_id,
                created_at=note.created_at,
            )

        if args.connect:
            memory.add_many(
                [
                    {
                        "content": note.content,
                        "memory_type": note.memory_type,
                        "session_id": note.session_id,
                        "created_at": note.created_at,
                    }
                    for note in notes
                ],
                user_id="profile",
            )
        else:
            for note in fill:
                add(note)
        kind = type(opened)
        for method in ("get", "postings", "knn", "update_many"):
            timed(kind, method, f"store.{method}")
        timed(store, "validate_ops", "validate_ops")
        timed(entities.EntityGraph, "match_entities", "graph.match_entities")
        timed(entities.EntityGraph, "related_entities", "graph.related_entities")
        timed(linker, "analyze", "text.analyze")
        timed(linker, "score_candidates", "score_candidates")
        for method in ("plan", "_store_plan", "_shared"):
            timed(linker.MemoryLinker, method, f"linker.{method}")
        timed(layer.MemoryLayer, "_existing_copy", "layer._existing_copy")
        timed(type(memory.secrets), "enforce", "secrets.enforce")
        timed(type(memory.embedder), "embed", "embed")
        import kioko_core.store.driver as driver  # the base class calls validate_ops through its own name

        driver.validate_ops = store.validate_ops
        per_add: list[float] = []
        if args.connect:
            timed(type(memory.graph), "connect", "graph.connect")
            last = time.process_time()

            def progress(done: int, total: int) -> None:
                nonlocal last
                now = time.process_time()
                per_add.append((now - last) * 1000.0)
                last = now

            report = memory.graph.connect(user_id="profile", progress=progress)
            assert report.memories == len(notes), report
        else:
            for note in timed_notes:
                started = time.process_time()
                add(note)
                per_add.append((time.process_time() - started) * 1000.0)
    shutil.rmtree(workdir, ignore_errors=True)
    mode = "connect" if args.connect else "plain" if args.plain else "linked"
    unit = "memory connected" if args.connect else "add"
    figure = f"mean {sum(per_add) / len(per_add):.2f}" if args.connect else f"median {statistics.median(per_add):.2f}"
    print(f"| {args.store}, {mode}: CPU ms per {unit} | {figure} |")
    print("|---|---:|")
    for label, seconds in sorted(SPENT.items(), key=lambda kv: -kv[1]):
        print(f"| {label} | {seconds / len(per_add) * 1000:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
