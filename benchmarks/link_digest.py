"""A digest of every link a seeded workload makes: run it in two source trees to show a change made no other link.

    python benchmarks/link_digest.py [--store memory|sqlite|postgresql|qdrant] [--count 500] [--seed 11]
        [--batch] [--json PATH]

``--count`` synthetic notes (``benchmarks/synthetic.py``) are added with linking on, with fixed ids (so candidate
ties break alike in every run), with a content update every 97 notes and a delete every 131; then every memory is
read back: its version, its link entries in order (without ``at``/``seen``, the wall-clock times they were made),
its other bookkeeping, its metadata and terms; and ten recalls (five questions, ``links=0`` and ``links=3``) give
their ids, sections and scores (4 places). Printed: the memories, the links, and a SHA-256 of all of it
(``--json`` writes the whole of it, to diff). Two trees printing the same digest made the same links, weights,
versions and recall results. The offline embedder, so nothing depends on a model.

``--batch`` adds the notes between two updates or deletes with one ``add_many`` each instead of ``add`` one by one.
A batch is one write, so the versions of the records it changed count batches, not adds; the second digest printed,
``links sha256`` (everything but the versions), is the one to compare between the two modes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
os.environ.setdefault("KIOKO_EMBEDDER", "offline")

from synthetic import entity_relations, generate_notes  # noqa: E402

import kioko  # noqa: E402
from kioko_core.layer.memory_layer import MemoryLayer  # noqa: E402
from kioko_core.store import Scope  # noqa: E402

USER = "digest"
QUESTIONS = ("why did the build fail", "what fixed the cable", "deploy plan", "garage door", "the goal for release")


def workload(memory: MemoryLayer, count: int, seed: int, batch: bool = False) -> None:
    for subject, relation, obj in entity_relations():
        memory.graph.add(subject, relation, obj, user_id=USER)
    notes = generate_notes(count, seed=seed)
    waiting: list[dict[str, Any]] = []
    for number, note in enumerate(notes):
        item = {
            "content": note.content,
            "id": f"m{number:05d}",
            "memory_type": note.memory_type,
            "session_id": note.session_id,
            "created_at": note.created_at,
        }
        if batch:
            waiting.append(item)
            if number % 97 != 50 and number % 131 != 70 and number != len(notes) - 1:
                continue
            memory.add_many(waiting, user_id=USER)
            waiting = []
        else:
            memory.add(user_id=USER, **item)
        if number % 97 == 50:
            revised = notes[number - 3].content + " (revised: the root cause was the cable)"
            memory.update(f"m{number - 3:05d}", user_id=USER, content=revised)
        if number % 131 == 70:
            memory.delete(f"m{number - 5:05d}", user_id=USER)


def digest(memory: MemoryLayer) -> dict[str, Any]:
    rows = []
    for record in sorted(memory.store.scan(Scope(USER)), key=lambda r: r.id):
        system = dict(record.system or {})
        links = [{k: v for k, v in e.items() if k not in ("at", "seen")} for e in system.pop("links", [])]
        system.pop("linked_at", None)
        rows.append(
            {
                "id": record.id,
                "version": record.version,
                "links": links,
                "system": system,
                "metadata": record.metadata,
                "terms": record.terms,
            }
        )
    recalls = []
    for question in QUESTIONS:
        for links in (0, 3):
            context = memory.recall(question, user_id=USER, limit=10, links=links)
            # ids, sections and scores to 4 places: a recall fades links from when they were made (wall clock),
            # which moves a score in its last places between two runs of the same tree
            recalls.append([(m.record.id, m.section, round(m.score, 4)) for m in context.memories])
    return {"memories": rows, "recalls": recalls}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=("memory", "sqlite"), default="sqlite")
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--batch", action="store_true", help="add the notes with add_many between updates/deletes")
    parser.add_argument("--json", type=Path, help="also write everything digested to this file")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="kioko-link-digest-"))
    try:
        url = "memory://" if args.store == "memory" else f"sqlite:///{workdir / 'digest.db'}"
        with MemoryLayer(kioko.open_store(url), auto_link=True) as memory:
            workload(memory, args.count, args.seed, args.batch)
            found = digest(memory)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    text = json.dumps(found, sort_keys=True, default=str)
    if args.json:
        args.json.write_text(text)
    links = sum(len(row["links"]) for row in found["memories"])
    unversioned = {**found, "memories": [{k: v for k, v in row.items() if k != "version"} for row in found["memories"]]}
    links_text = json.dumps(unversioned, sort_keys=True, default=str)
    print(
        f"{args.store}{' add_many' if args.batch else ''}, {args.count} notes (seed {args.seed}): "
        f"{len(found['memories'])} memories, {links} link entries, sha256 {hashlib.sha256(text.encode()).hexdigest()}, "
        f"links sha256 {hashlib.sha256(links_text.encode()).hexdigest()}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
