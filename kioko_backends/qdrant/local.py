"""qdrant-client's local mode (``qdrant+local://``): one client per directory, shared by every store of this
process that opens it; the directory named by a URL; the collection's sqlite file switched to WAL, vacuumed on a
purge, and the payloads of deleted points emptied in memory.

:class:`LocalMode` holds :class:`~kioko_backends.qdrant.store.QdrantStore`'s local-mode methods; the store is the
only class that mixes it in.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from qdrant_client import QdrantClient
from qdrant_client.local.persistence import STORAGE_FILE_NAME

from kioko_backends.qdrant.links import WriteCount
from kioko_core.store import Capabilities, InvalidRecordError, StoreError
from kioko_core.store.url import StoreURL

LOCAL_NOTES = (
    "local mode: knn is exact brute force in numpy; count and scroll ignore payload indexes and test "
    "every point in Python, so postings and scan slow down linearly past ~20k points",
    "local mode: no transactions; one process per directory (qdrant-client locks it); opening the "
    "same directory again in this process shares one client",
)

LOCAL_CAPABILITIES = Capabilities(
    transactions=False,
    native_knn=False,
    persistent=True,
    multi_process=False,
    approximate_knn=False,
    notes=LOCAL_NOTES,
)
"""What a ``qdrant+local`` store on a directory promises (``:memory:`` is not persistent)."""


@dataclass
class LocalHandle:
    """One local-mode client per directory, shared by every store of this process that opens it."""

    client: Any
    lock: threading.RLock
    users: int
    writes: WriteCount = field(default_factory=WriteCount)


_local_handles: dict[str, LocalHandle] = {}
_registry_lock = threading.Lock()


def acquire_local(path: str) -> LocalHandle:
    key = os.path.realpath(path)
    with _registry_lock:
        handle = _local_handles.get(key)
        if handle is None:
            try:
                # our own lock serialises every call, so sqlite's same-thread check only gets in the way
                client = QdrantClient(path=path, force_disable_check_same_thread=True)
            except RuntimeError as error:
                if "already accessed" in str(error):
                    raise StoreError(
                        f"the Qdrant local directory {path!r} is open in another process; local mode "
                        "allows one process per directory, use a Qdrant server to share a store"
                    ) from None
                raise StoreError(f"could not open the Qdrant local directory {path!r}: {error}") from None
            except OSError as error:
                raise StoreError(f"could not open the Qdrant local directory {path!r}: {error}") from None
            handle = LocalHandle(client=client, lock=threading.RLock(), users=0)
            _local_handles[key] = handle
        handle.users += 1
        return handle


def release_local(path: str) -> None:
    key = os.path.realpath(path)
    with _registry_lock:
        handle = _local_handles.get(key)
        if handle is None:
            return
        handle.users -= 1
        if handle.users <= 0:
            del _local_handles[key]
            with handle.lock:
                handle.client.close()


def directory_of(url: StoreURL) -> str:
    """The directory of a ``qdrant+local`` URL: three slashes relative, four absolute, or ``:memory:``."""
    if url.host:
        raise InvalidRecordError(
            f"{url.render()!r} names a host; local mode takes a directory: qdrant+local:///relative/dir, "
            "qdrant+local:////absolute/dir or qdrant+local://:memory:"
        )
    if url.path == ":memory:":
        return ":memory:"
    path = url.path[1:] if url.path.startswith("/") else url.path
    if not path:
        raise InvalidRecordError(
            "a qdrant+local URL needs a directory: qdrant+local:///relative/dir, qdrant+local:////absolute/dir "
            "or qdrant+local://:memory:"
        )
    return path


class LocalMode:
    """QdrantStore's local-mode methods (on a server they do nothing)."""

    collection: str
    _client: Any
    _local_path: str | None
    _lock: threading.RLock

    def _relax_local_sync(self) -> None:
        """Switch the collection's sqlite file in local mode to WAL.

        qdrant-client commits every point on its own, and in sqlite's default rollback-journal mode
        each commit waits for the disk several times (~15 ms a point here); in WAL mode one wait per
        commit remains, about four times faster. The journal mode is a property of the file, so it is
        set through a connection of our own, with qdrant-client's public API and objects untouched:
        the file is ``<directory>/collection/<name>/storage.sqlite`` (``STORAGE_FILE_NAME`` of
        ``qdrant_client.local.persistence``). ``?fsync=true`` leaves the file as qdrant-client made it.
        If a release moves the file, this quietly does nothing.
        """
        if self._local_path is None:
            return
        path = os.path.join(self._local_path, "collection", self.collection, STORAGE_FILE_NAME)
        if not os.path.isfile(path):
            return
        try:
            connection = sqlite3.connect(path, timeout=5)
            try:
                connection.execute("PRAGMA journal_mode=WAL").fetchall()
            finally:
                connection.close()
        except sqlite3.Error:
            pass

    def purge(self, scopes: Any = ()) -> bool:
        """Local mode: rewrite the collection's sqlite file without the free pages deleted points left
        (``VACUUM``, then the WAL checkpointed and truncated), so their payloads cannot be read from the
        directory. qdrant-client's own connection deletes without zeroing and cannot be reached through
        its public API, so a connection of Kioko's does it, under the directory's lock. A server keeps its
        own segments (deleted points go at its next optimisation): nothing to do here, False. The cost
        grows with the file: local mode is for small collections."""
        if self._local_path is None:
            return False
        self._scrub_deleted_points()
        if self._local_path == ":memory:":
            return False
        path = os.path.join(self._local_path, "collection", self.collection, STORAGE_FILE_NAME)
        if not os.path.isfile(path):
            return False
        with self._lock:
            try:
                connection = sqlite3.connect(path, timeout=5, isolation_level=None)
                try:
                    connection.execute("VACUUM")
                    busy = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
                finally:
                    connection.close()
            except sqlite3.Error:
                return False
        return int(busy) == 0

    def _scrub_deleted_points(self) -> None:
        """Local mode: empty the payloads and zero the vectors qdrant-client still holds in this process for
        deleted points. It only marks a deleted point (``deleted[idx]``) and keeps its payload (the memory's
        text) and vector in its lists until the directory is opened again; every read masks a marked point, and
        an upsert of the same id overwrites the slot, so emptying it changes no answer. These are
        qdrant-client's internals (its ``LocalCollection``), not its API: when a release changes them this
        does nothing, and the payloads stay in memory until the next open, as before (docs/privacy.md)."""
        collection = getattr(getattr(self._client, "_client", None), "collections", {}).get(self.collection)
        deleted, payload = getattr(collection, "deleted", None), getattr(collection, "payload", None)
        vectors = getattr(collection, "vectors", None)
        if not isinstance(deleted, np.ndarray) or not isinstance(payload, list) or not isinstance(vectors, dict):
            return
        with self._lock:
            for idx in np.flatnonzero(deleted[: len(payload)]).tolist():
                if not payload[idx]:
                    continue  # scrubbed by an earlier purge (a Kioko point always has a payload)
                payload[idx] = {}
                for rows in vectors.values():
                    if isinstance(rows, np.ndarray) and idx < len(rows):
                        rows[idx] = 0
