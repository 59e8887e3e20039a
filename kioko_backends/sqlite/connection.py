"""Opening the file: its path from the URL, each connection's settings, WAL mode, sqlite3's errors as Kioko's."""

from __future__ import annotations

import os
import sqlite3
import time

from kioko_core.store import (
    InvalidRecordError,
    StoreError,
)
from kioko_core.store.url import StoreURL


def _switch_to_wal(connection: sqlite3.Connection, timeout: float) -> None:
    """Put the file in WAL mode (outside any transaction: SQLite refuses to switch inside one).

    Processes opening a new file at the same moment race to switch it; SQLite answers the losers
    "database is locked" at once, without waiting on busy_timeout, so they wait here, up to ``timeout``.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            connection.execute("PRAGMA journal_mode = WAL").fetchall()
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
            time.sleep(0.005)


def _configure(connection: sqlite3.Connection, busy_ms: int) -> None:
    """Settings every connection to the file gets."""
    # sqlite3 must not open transactions by itself: the store says which kind to open
    connection.isolation_level = None
    cursor = connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {busy_ms}")
    cursor.execute("PRAGMA synchronous = NORMAL")
    # a deleted record's bytes are overwritten with zeros, not left in free pages for a file reader to find
    # (forgetting must forget: docs/privacy.md); the page writes it costs are measured there
    cursor.execute("PRAGMA secure_delete = ON")
    # 16 MB of page cache (SQLite's default is 2 MB): postings and index pages stay warm
    cursor.execute("PRAGMA cache_size = -16384")
    cursor.close()


# --------------------------------------------------------------------------- paths and errors


def _database_path(url: StoreURL) -> str:
    """The file a URL names, made absolute now so a later chdir cannot switch files; or ``:memory:``.

    ``sqlite:///x.db`` arrives as path ``/x.db`` and means ``x.db`` relative to the working directory
    (as in SQLAlchemy); ``sqlite:////x.db`` arrives as ``//x.db`` and means ``/x.db``. A bare absolute
    path ``/data/x.db`` arrives exactly like ``sqlite:///data/x.db``, so a single leading slash is read as
    relative only when that directory exists here, else as absolute when that one exists.
    """
    if url.host or url.port:
        raise InvalidRecordError(
            f"{url}: a SQLite URL has no host; use sqlite:///relative.db or sqlite:////absolute/path.db"
        )
    path = url.path
    if path in ("/:memory:", ":memory:"):
        return ":memory:"
    if path.startswith("//"):
        path = path[1:]
    elif path.startswith("/"):
        relative = os.path.abspath(path[1:])
        if os.path.isdir(os.path.dirname(relative)) or not os.path.isdir(os.path.dirname(path)):
            path = relative
    if not path or path == "/":
        raise InvalidRecordError(
            "sqlite:// needs a file path: sqlite:///kioko.db (relative), sqlite:////abs/kioko.db, "
            "or sqlite:///:memory: for a throwaway database"
        )
    if path.startswith("file:"):
        raise InvalidRecordError(f"{path!r}: SQLite URI filenames are not supported; give a plain file path")
    return os.path.abspath(os.path.expanduser(path))


def _describe(error: BaseException, path: str, timeout: float) -> StoreError:
    """A sqlite3 error as a StoreError whose message says what to do."""
    text = str(error).lower()
    if isinstance(error, UnicodeEncodeError):
        return InvalidRecordError(
            "text SQLite cannot store or look up as UTF-8 (a lone surrogate character); nothing was "
            "written: clean the text, e.g. text.encode('utf-8', 'replace').decode()"
        )
    if "locked" in text or "busy" in text:
        return StoreError(
            f"{path} stayed locked by another connection for {timeout:g} s, so nothing was done: retry, "
            "look for a process that keeps a write transaction open, or open the store with a longer "
            "?timeout=SECONDS"
        )
    if "unable to open" in text or "cannot open" in text:
        return StoreError(f"cannot open SQLite file {path}: check that its directory exists and is writable")
    if "readonly" in text or "read-only" in text:
        return StoreError(f"{path} is read-only: check the permissions of the file and of its directory")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return StoreError(f"{path} is not a readable SQLite database (or is damaged): point the URL at another file")
    if "disk is full" in text or "disk i/o" in text:
        return StoreError(f"SQLite could not write {path} ({error}): free disk space or check the device")
    return StoreError(f"SQLite error on {path}: {error}")
