"""Opening the file: its path from the URL, each connection's settings, WAL mode, sqlite3's errors as Kioko's, and
:class:`ThreadConnections`, the store's one connection per thread and process and its transactions."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

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


class ThreadConnections:
    """SQLiteStore's connections: one per thread and process (a ``:memory:`` database's one, shared under the
    store's guard), the stale ones of ended threads closed, and a transaction on this thread's connection."""

    path: str
    _timeout: float
    _closed: bool
    _pid: int
    _memory_connection: sqlite3.Connection | None
    _connections: dict[tuple[int, int], sqlite3.Connection]
    _connections_lock: threading.Lock

    def _connection(self) -> sqlite3.Connection:
        """This thread's own sqlite3 connection to the file, opened on first use.

        Keyed by process as well as thread: after a fork the child opens its own and never touches
        (not even to close) the ones it inherited, which SQLite forbids.
        """
        if self._memory_connection is not None:
            return self._memory_connection
        key = (os.getpid(), threading.get_ident())
        connection = self._connections.get(key)
        if connection is None:
            connection = self._open_connection(key)
        return connection

    def _new_connection(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=self._timeout, check_same_thread=False, isolation_level=None)
        try:
            _configure(connection, int(self._timeout * 1000))
        except BaseException:
            connection.close()
            raise
        return connection

    def _open_connection(self, key: tuple[int, int]) -> sqlite3.Connection:
        threading.current_thread()  # a thread not started by threading gets listed, so it is never pruned
        connection = self._new_connection()
        with self._connections_lock:
            if self._closed:  # close() ran meanwhile: keep nothing open behind its back
                connection.close()
                raise StoreError(f"{self!r} is closed; open the URL again to keep using it")
            # threads that ended leave their connection behind; a new thread is the time to close those
            alive = {thread.ident for thread in threading.enumerate()}
            for stale in [k for k in self._connections if k[0] == key[0] and k[1] not in alive]:
                self._connections.pop(stale).close()
            self._connections[key] = connection
        return connection

    def _forget_connection(self, connection: sqlite3.Connection) -> None:
        """Drop this thread's connection after a failure left it in doubt; the next use opens another."""
        with self._connections_lock:
            key = (os.getpid(), threading.get_ident())
            if self._connections.get(key) is connection:
                del self._connections[key]
        try:
            connection.close()
        except sqlite3.Error:
            pass

    def _close_connections(self) -> None:
        """Close this process's per-thread connections (a forked child leaves its parent's alone)."""
        pid = os.getpid()
        with self._connections_lock:
            for key in [k for k in self._connections if k[0] == pid]:
                self._connections.pop(key).close()
            memory, self._memory_connection = getattr(self, "_memory_connection", None), None
        if memory is not None and pid == self._pid:
            memory.close()

    @contextmanager
    def _transaction(self, begin: str | None) -> Iterator[sqlite3.Connection]:
        """Run the body in ``begin`` ... COMMIT on this thread's connection (ROLLBACK if it raises).

        ``begin`` None runs the body's statements in autocommit: each is its own snapshot.
        """
        connection = self._connection()
        if connection.in_transaction:  # a read inside a read on this thread shares its snapshot
            if begin is not None and begin != "BEGIN":
                raise RuntimeError("a write transaction cannot start inside a read on the same thread")
            yield connection
            return
        if begin is not None:
            connection.execute(begin)
        try:
            yield connection
            if connection.in_transaction:
                connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                try:
                    connection.execute("ROLLBACK")
                except sqlite3.Error:
                    self._forget_connection(connection)
            raise
