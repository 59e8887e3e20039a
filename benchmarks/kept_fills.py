"""Filled SQLite stores kept by one benchmark run and reused by a later one (``--keep DIR`` / ``--reuse DIR``).

At 1,000,000 memories the bulk fill takes most of a cell's time, and on a shared machine it is the part
that matters least: it can run at low priority whenever, while the timed phases (recall, writes) want a
quiet machine. So ``memory_graph_bench.py --keep DIR`` fills each SQLite cell into ``DIR`` and stops there
(the store is closed, which saves its HNSW graph beside it), and ``--reuse DIR`` runs the timed phases on
a copy of that file, leaving the kept one untouched for the next run.

A kept file is only used when it is exactly what this run would have written: the manifest beside it
names the store, size and seed, a digest of every record the fill wrote (ids, texts, terms, metadata,
embeddings: a change in the analysis or the embedder changes it), and the size and modification time
of each file as they were when the fill closed them (a file opened and written since is stale). Anything
else is refused with :class:`KeptFillError` rather than measured.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kioko_core.store import Record

FORMAT = 1
"""The manifest's layout; a manifest of another format is refused."""

KEEPABLE = ("sqlite",)
"""Stores whose filled state is a set of files this module can copy (memory:// has none; PostgreSQL's
data lives in the test starter's temporary server)."""


class KeptFillError(ValueError):
    """A kept fill that does not match this run (another size, seed or code) or was changed since."""


def records_digest(records: Sequence[Record]) -> str:
    """A digest of everything the fill writes for ``records``, in order."""
    digest = hashlib.blake2b(digest_size=20)
    for record in records:
        fields = [
            record.id,
            record.kind,
            record.content,
            record.session_id or "",
            repr(record.created_at),
            "\x1f".join(record.terms),
            json.dumps(record.metadata, sort_keys=True),
        ]
        digest.update("\x1e".join(fields).encode())
        if record.embedding is not None:
            digest.update(record.embedding.tobytes())
        digest.update(b"\x1d")
    return digest.hexdigest()


def _files(database: Path) -> list[Path]:
    """The database file and its saved graphs (``<db>.ann/``), in a stable order."""
    graphs = database.with_name(database.name + ".ann")
    return [database, *sorted(graphs.iterdir() if graphs.is_dir() else ())]


def _stat(database: Path) -> dict[str, list[int]]:
    base = database.parent
    return {str(path.relative_to(base)): [path.stat().st_size, path.stat().st_mtime_ns] for path in _files(database)}


@dataclass(frozen=True)
class KeptFills:
    """``--keep DIR`` (``keeping``) or ``--reuse DIR``: where kept fills live and what this run does with them."""

    directory: Path
    keeping: bool
    seed: int

    def database(self, store: str, size: int) -> Path:
        return self.directory / f"{store}-{size}-seed{self.seed}.db"

    def manifest_path(self, store: str, size: int) -> Path:
        return self.directory / f"{store}-{size}-seed{self.seed}.json"

    def kept(self, store: str, size: int, digest: str) -> dict[str, Any] | None:
        """The manifest of the kept fill for this cell if there is one and it matches; None if none was kept.

        Raises :class:`KeptFillError` for a kept fill that is there but not this run's, or changed since.
        """
        manifest_path = self.manifest_path(store, size)
        database = self.database(store, size)
        if not manifest_path.exists():
            if database.exists():
                raise KeptFillError(
                    f"{database} has no manifest ({manifest_path.name}): not a fill this benchmark kept"
                )
            return None
        manifest = json.loads(manifest_path.read_text())
        expected = {"format": FORMAT, "store": store, "size": size, "seed": self.seed}
        for key, value in expected.items():
            if manifest.get(key) != value:
                raise KeptFillError(f"{manifest_path}: {key} is {manifest.get(key)!r}, this run needs {value!r}")
        if manifest.get("records_digest") != digest:
            raise KeptFillError(
                f"{manifest_path}: its records differ from the ones this run builds (the notes, their analysis or "
                "the embedder changed since it was kept); fill again with --keep"
            )
        if not database.exists():
            raise KeptFillError(f"{manifest_path} describes {database.name}, which is missing")
        found = _stat(database)
        if found != manifest.get("files"):
            raise KeptFillError(
                f"{database} changed after it was kept (sizes or modification times differ from the manifest's): "
                "a run opened and wrote it; fill again with --keep"
            )
        return dict(manifest)

    def copy_to(self, store: str, size: int, target: Path) -> None:
        """Copy the kept database and its graphs to ``target`` (and ``target``.ann/), where the run may change them."""
        source = self.database(store, size)
        shutil.copyfile(source, target)
        graphs = source.with_name(source.name + ".ann")
        if graphs.is_dir():
            shutil.copytree(graphs, target.with_name(target.name + ".ann"))

    def record(self, store: str, size: int, digest: str, result: dict[str, Any]) -> Path:
        """Write the manifest of a fill just closed at :meth:`database`; returns the manifest's path."""
        database = self.database(store, size)
        manifest = {
            "format": FORMAT,
            "store": store,
            "size": size,
            "seed": self.seed,
            "records_digest": digest,
            "kept_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "files": _stat(database),
            "fill": {
                key: result.get(key) for key in ("fill_s", "first_knn_s", "process_mb", "disk_mb", "load_at_phase")
            },
        }
        path = self.manifest_path(store, size)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(json.dumps(manifest, indent=2) + "\n")
        os.replace(temporary, path)  # a manifest is there whole or not at all
        return path

    def forget(self, store: str, size: int) -> None:
        """Remove a kept fill of this cell (before filling it again), manifest first."""
        self.manifest_path(store, size).unlink(missing_ok=True)
        database = self.database(store, size)
        shutil.rmtree(database.with_name(database.name + ".ann"), ignore_errors=True)
        for leftover in database.parent.glob(database.name + "*"):
            leftover.unlink(missing_ok=True)
