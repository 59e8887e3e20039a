"""Where a linked write's extra CPU goes on SQLite, beside a plain write (issue 34: a linked write within 2x a plain one).

    python benchmarks/linked_write_split.py [--count 2000] [--seed 7] [--markdown PATH]

The seeded notes of ``benchmarks/linking_write_times.py`` are written one ``add`` at a time into two users of one
SQLite file, one layer linking (links kept apart, as ``kioko.connect`` keeps them), one not, the two writes of each
note alternating. For every add this process's CPU time is split (``time.thread_time``, so another process's load
moves it little) into the linker's plan, the layer's ``update_many`` (the records and their links written in one
transaction), and the rest (reading the text, the entity names, the embedding, the duplicate check, the index
cache's bookkeeping). Medians and means per mode. The write transaction's COMMIT is timed apart by the wall clock
(its median and 90th percentile): a write that pushes SQLite's log past its checkpoint size copies the log back
into the file there.

The second table is SQLite alone, on a file shaped like the store's (records of ~1.3 KB with a 256-float vector,
their link rows): the CPU of one transaction that bumps eight records' versions in the record rows (what a linked
write does to its neighbours) beside the same bumps in a narrow table of versions, and beside putting eight link
rows: whether moving versions out of the record rows is worth a schema change.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "tests")]

from linking_write_times import open_store  # noqa: E402
from synthetic import entity_relations, generate_notes  # noqa: E402

from kioko_backends.sqlite import connection as sqlite_connection  # noqa: E402
from kioko_core.layer import records  # noqa: E402
from kioko_core.layer.memory_layer import MemoryLayer  # noqa: E402
from kioko_core.linking import linker  # noqa: E402

PHASES = ("plan", "update_many")


def _timed(owner: Any, name: str, key: str, spent: dict[str, float]) -> None:
    """Add the thread's CPU seconds in ``owner.name`` to ``spent[key]`` (outermost calls only)."""
    inner = getattr(owner, name)
    depth = [0]

    def call(*args: Any, **kwargs: Any) -> Any:
        depth[0] += 1
        started = time.thread_time()
        try:
            return inner(*args, **kwargs)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                spent[key] += time.thread_time() - started

    setattr(owner, name, call)


def _commit_timer(commits: list[float]) -> None:
    """Time each write transaction's COMMIT by the wall clock (the store's transaction, wrapped)."""
    inner = sqlite_connection.ThreadConnections._transaction

    @contextmanager
    def transaction(self: Any, begin: str | None) -> Iterator[Any]:
        with inner(self, begin) as connection:
            yield connection
            started = time.perf_counter()
        if begin == "BEGIN IMMEDIATE":
            commits.append(time.perf_counter() - started)

    sqlite_connection.ThreadConnections._transaction = transaction  # type: ignore[method-assign]


def split(count: int, seed: int) -> dict[str, dict[str, Any]]:
    """Per mode: CPU ms per add (median, mean) in each phase, and the COMMIT's wall ms (median, p90)."""
    spent: defaultdict[str, float] = defaultdict(float)
    commits: list[float] = []
    _timed(linker.MemoryLinker, "plan", "plan", spent)
    _timed(records.LayerStore, "update_many", "update_many", spent)
    _commit_timer(commits)
    notes = generate_notes(count, seed=seed)
    folder = Path(tempfile.mkdtemp(prefix="kioko-linked-split-"))
    rows: dict[str, dict[str, list[float]]] = {"linked": defaultdict(list), "plain": defaultdict(list)}
    try:
        with ExitStack() as stack:
            store = stack.enter_context(open_store("sqlite", stack, folder))
            layers = {
                "linked": (MemoryLayer(records.LayerStore(store), auto_link=True), "linked"),
                "plain": (MemoryLayer(records.LayerStore(store), auto_link=False), "plain"),
            }
            for subject, relation, obj in entity_relations():
                for layer, user in layers.values():
                    layer.graph.add(subject, relation, obj, user_id=user)
            for number, note in enumerate(notes):
                order = ["linked", "plain"] if number % 2 else ["plain", "linked"]
                for mode in order:
                    layer, user = layers[mode]
                    spent.clear()
                    commits.clear()
                    started = time.thread_time()
                    layer.add(
                        note.content,
                        user_id=user,
                        memory_type=note.memory_type,
                        session_id=note.session_id,
                        created_at=note.created_at,
                    )
                    total = time.thread_time() - started
                    row = rows[mode]
                    row["total"].append(total)
                    for phase in PHASES:
                        row[phase].append(spent[phase])
                    row["rest"].append(total - sum(spent[p] for p in PHASES))
                    row["commit_wall"].append(sum(commits))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    out: dict[str, dict[str, Any]] = {}
    for mode, row in rows.items():
        out[mode] = {
            key: [round(1000 * statistics.median(values), 3), round(1000 * statistics.mean(values), 3)]
            for key, values in row.items()
            if key != "commit_wall"
        }
        walls = sorted(row["commit_wall"])
        out[mode]["commit_wall_median_p90"] = [
            round(1000 * statistics.median(walls), 3),
            round(1000 * walls[int(0.9 * len(walls))], 3),
        ]
    return out


def bump_cost(records_held: int, reps: int = 2000, seed: int = 34) -> dict[str, float]:
    """CPU ms of one transaction of eight version bumps or link puts, on a file of ``records_held`` records."""
    rng = random.Random(seed)
    folder = tempfile.mkdtemp(prefix="kioko-bump-cost-")
    raw = sqlite3.connect(os.path.join(folder, "bump.db"), isolation_level=None)
    try:
        for pragma in ("journal_mode = WAL", "synchronous = NORMAL", "secure_delete = ON", "cache_size = -16384"):
            raw.execute(f"PRAGMA {pragma}")
        raw.execute(
            "CREATE TABLE kioko_records (id TEXT NOT NULL, user_id TEXT NOT NULL, agent_id TEXT NOT NULL, "
            "kind TEXT NOT NULL, content TEXT NOT NULL, metadata TEXT NOT NULL, terms TEXT NOT NULL, embedding BLOB, "
            "session_id TEXT, created_at FLOAT, updated_at FLOAT, version INTEGER NOT NULL, PRIMARY KEY (id))"
        )
        raw.execute("CREATE TABLE versions (id TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID")
        raw.execute(
            "CREATE TABLE kioko_links (owner TEXT NOT NULL, other TEXT NOT NULL, entry TEXT NOT NULL, "
            "UNIQUE (owner, other))"
        )
        ids = [f"{rng.getrandbits(64):016x}" for _ in range(records_held)]
        entry = json.dumps({"id": "x" * 16, "type": "related_to", "w": 0.5, "by": "auto", "why": "shared: a, b"})
        raw.execute("BEGIN")
        for record_id in ids:
            raw.execute(
                "INSERT INTO kioko_records VALUES (?, 'u', '', 'episodic', ?, ?, ?, ?, 's', 1.0, 1.0, 1)",
                (
                    record_id,
                    "x" * 150,
                    json.dumps({"_kioko": {"entities": ["y" * 20] * 4}}),
                    json.dumps([f"t:w{n}" for n in range(20)]),
                    rng.randbytes(1024),
                ),
            )
            raw.execute("INSERT INTO versions VALUES (?, 1)", (record_id,))
            for other in rng.sample(ids[: max(1, len(ids))], 1):
                raw.execute("INSERT OR IGNORE INTO kioko_links VALUES (?, ?, ?)", (record_id, other, entry))
        raw.execute("COMMIT")

        def run(statement: str, params: Callable[[], tuple[Any, ...]]) -> float:
            started = time.process_time()
            for _ in range(reps):
                raw.execute("BEGIN IMMEDIATE")
                raw.executemany(statement, [params() for _ in range(8)])
                raw.execute("COMMIT")
            return round(1000 * (time.process_time() - started) / reps, 3)

        return {
            "version in the record row": run(
                "UPDATE kioko_records SET version = version + 1 WHERE id = ?", lambda: (rng.choice(ids),)
            ),
            "version in a table of versions": run(
                "UPDATE versions SET version = version + 1 WHERE id = ?", lambda: (rng.choice(ids),)
            ),
            "a link row put (INSERT OR REPLACE)": run(
                "INSERT OR REPLACE INTO kioko_links (owner, other, entry) VALUES (?, ?, ?)",
                lambda: (rng.choice(ids), rng.choice(ids), entry),
            ),
        }
    finally:
        raw.close()
        shutil.rmtree(folder, ignore_errors=True)


def markdown(found: dict[str, dict[str, Any]], bumps: dict[int, dict[str, float]], command: str, load: str) -> str:
    lines = [
        "# A linked write's CPU beside a plain one on SQLite, by phase",
        "",
        f"`{command}` (load average {load}; {os.cpu_count()} CPUs shared by other sessions).",
        "",
        "| mode | total CPU ms, median / mean | plan | update_many | rest | COMMIT wall ms, median / p90 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for mode, row in found.items():
        cells = [f"{row[key][0]:.3f} / {row[key][1]:.3f}" for key in ("total", "plan", "update_many", "rest")]
        commit = row["commit_wall_median_p90"]
        lines.append(f"| {mode} | " + " | ".join(cells) + f" | {commit[0]:.3f} / {commit[1]:.2f} |")
    linked, plain = found["linked"]["total"][0], found["plain"]["total"][0]
    lines += [
        "",
        f"CPU ratio of the medians: {linked / plain:.2f}x (2x needs a linked median of {2 * plain:.3f} ms).",
        "",
        "| SQLite alone: one transaction of eight | " + " | ".join(f"{n:,} records" for n in bumps) + " |",
        "|---|" + "---:|" * len(bumps),
    ]
    for what in next(iter(bumps.values())):
        lines.append(f"| {what} | " + " | ".join(f"{bumps[n][what]:.3f} ms" for n in bumps) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args(argv)
    before = os.getloadavg()[0]
    found = split(args.count, args.seed)
    bumps = {held: bump_cost(held) for held in (2_000, 20_000)}
    load = f"{before:.1f} -> {os.getloadavg()[0]:.1f}"
    command = "python benchmarks/linked_write_split.py " + " ".join(argv if argv is not None else sys.argv[1:])
    text = markdown(found, bumps, command.strip(), load)
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
