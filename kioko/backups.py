"""``kioko backup`` and ``kioko restore``: a copy of a store to put back later.

- **SQLite**: SQLite's online backup API, a consistent copy of the file taken while writers go on (in WAL
  mode a reader never blocks a writer; the copy is one snapshot). The HNSW graphs (``<file>.ann/``) are not
  copied: they are rebuilt from the table when missing. Restored the same way, into a path that holds no store.
- **any other store** (PostgreSQL, Qdrant, a third-party driver): ``kioko export`` of each user named (the
  protocol lists no users), one JSON-lines file per user in the backup directory; restored by importing each.
  PostgreSQL's own ``pg_dump`` is the whole-database alternative (docs/operations.md).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any, Sequence

from kioko_core.errors import InvalidRecordError
from kioko_core.store.registry import _resolve
from kioko_core.store.url import StoreURL


def _sqlite_path(url: str) -> str | None:
    """The file of a ``sqlite://`` store (None for another driver, or ``:memory:``)."""
    parsed = StoreURL.parse(url)
    if parsed.scheme not in ("sqlite", "sqlite3"):
        return None
    locate = getattr(_resolve(parsed.scheme), "local_path", None)
    return locate(parsed) if locate is not None else None


def _copy_sqlite(source: str, dest: str) -> int:
    """``source`` copied to ``dest`` by the online backup API; returns the pages copied."""
    reader = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)
    writer = sqlite3.connect(dest)
    try:
        # pages=-1: the whole file in one step, so the copy is one snapshot of the source (a step by step copy
        # would start again whenever another connection writes)
        reader.backup(writer, pages=-1)
        writer.execute("PRAGMA journal_mode=WAL")  # as the driver keeps its files
        return int(writer.execute("PRAGMA page_count").fetchone()[0])
    finally:
        writer.close()
        reader.close()


def backup(url: str, dest: str, *, users: Sequence[str] = ()) -> dict[str, Any]:
    """Copy the store ``url`` to ``dest`` (a file for SQLite; a directory of exports otherwise)."""
    path = _sqlite_path(url)
    if os.path.exists(dest) and (path is not None or any(Path(dest).iterdir())):
        raise InvalidRecordError(f"{dest} exists: a backup never overwrites; name a new file or directory")
    if path is not None:
        if not os.path.exists(path):
            raise InvalidRecordError(f"no store at {path}: nothing to back up")
        pages = _copy_sqlite(path, dest)
        return {"how": "sqlite-backup-api", "dest": dest, "pages": pages, "bytes": os.path.getsize(dest)}
    if StoreURL.parse(url).scheme == "memory":
        raise InvalidRecordError("a memory:// store lives in one process: there is nothing on disk to back up")
    if not users:
        raise InvalidRecordError(
            "this store's driver cannot list its users: name each with --user (each is exported to DEST/USER.jsonl),"
            " or use the database's own tool (pg_dump for PostgreSQL, a snapshot for a Qdrant server)"
        )
    from kioko import _connect_layer

    os.makedirs(dest, exist_ok=True)
    records = 0
    with _connect_layer(url) as memory:
        for user in users:
            with open(os.path.join(dest, f"{_file_name(user)}.jsonl"), "w", encoding="utf-8") as out:
                for line in memory.export_lines(user, []):
                    out.write(line)
                    records += 1
    return {"how": "export", "dest": dest, "users": len(users), "lines": records}


def _file_name(user: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else f"%{ord(c):02x}" for c in user)


def restore(source: str, url: str) -> dict[str, Any]:
    """Put the backup at ``source`` back into the store ``url`` (which must hold no store, for SQLite)."""
    if not os.path.exists(source):
        raise InvalidRecordError(f"no backup at {source}")
    path = _sqlite_path(url)
    if os.path.isfile(source):
        if path is None:
            raise InvalidRecordError(f"{source} is an SQLite backup: restore it into a sqlite:/// store")
        if os.path.exists(path):
            raise InvalidRecordError(f"{path} exists: restore into a new path (a restore never overwrites a store)")
        pages = _copy_sqlite(source, path)
        return {"how": "sqlite-backup-api", "store": path, "pages": pages}
    from kioko import _connect_layer

    written = 0
    with _connect_layer(url) as memory:
        for export in sorted(Path(source).glob("*.jsonl")):
            with open(export, encoding="utf-8") as lines:
                written += memory.import_lines(lines)["written"]
    return {"how": "import", "store": url, "written": written}


__all__ = ["backup", "restore"]
