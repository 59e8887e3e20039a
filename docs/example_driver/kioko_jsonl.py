"""``jsonl://``: a Kioko store kept in one JSON-lines file, the example of the driver author's guide.

The file is an append-only log. Its first line is a header (format and vector length); every later
line is one committed :meth:`JsonlStore.update_many` batch. A batch counts only once its line ends with
a newline, so a process that dies while writing leaves a torn last line, which the next open drops:
batches are all or nothing even across a crash. Opening replays the log into dictionaries that answer
every read (the postings index included). A write plans the batch against them, decodes its line as a
replay would, appends it, and applies what it decoded, so memory always equals what a replay would give.

URL: ``jsonl:///absolute/path/to/memories.jsonl`` (optionally ``?dim=384``).

It subclasses Kioko's optional :class:`~kioko_core.store.driver.StoreBase`, which checks every argument,
validates every batch and parses the options, then calls the ``do_*`` hooks below.
"""

from __future__ import annotations

import json
import os
import threading
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import numpy as np

from kioko_core.store import (
    DEFAULT_DIM,
    Capabilities,
    Delete,
    Filter,
    Neighbor,
    Op,
    Postings,
    Record,
    Scope,
    StoreError,
    plan_batch,
)
from kioko_core.store.driver import DIM, Option, StoreBase
from kioko_core.store.url import StoreURL

try:
    import fcntl
except ImportError:  # Windows: no advisory locks, so one-process-at-a-time rests on the user
    fcntl = None

FORMAT = "kioko-jsonl/1"
HEADER_START = b'{"format": "kioko-jsonl/1"'
"""How every file this driver wrote begins (json.dumps keeps the header's key order)."""


class JsonlStore(StoreBase):
    """One JSON-lines file; every record is also held in memory. Open it with ``kioko.connect("jsonl:///...")``."""

    capabilities = Capabilities(
        transactions=True,
        native_knn=False,
        persistent=True,
        multi_process=False,
        notes=(
            "one process at a time: a second opener of the same file gets StoreError",
            "every record is held in memory, and the file grows with every write",
        ),
    )
    options = {"dim": Option(DIM.parse)}  # no default: an existing file keeps its own dim

    def __init__(self, path: str, dim: int | None = None) -> None:
        """Open (or create) the log at ``path``; ``dim`` None means the file's own, or the default."""
        self.path = path
        self._lock = threading.RLock()  # one reader or writer at a time among this process's threads
        try:
            self._file = open(path, "a+b")  # reads anywhere, writes always at the end
        except OSError as error:
            raise StoreError(f"cannot open {path}: {error.strerror}; does its directory exist?") from None
        try:
            self._lock_file()
            self.dim = self._replay(dim)
        except BaseException:
            self._file.close()
            raise

    @classmethod
    def open_url(cls, url: StoreURL, options: dict[str, Any]) -> JsonlStore:
        """What ``kioko.connect`` and the registry reach through ``from_url``, options already parsed."""
        if url.host or not url.path:
            raise StoreError(f"{url} names no file: write jsonl:///absolute/path.jsonl (three slashes)")
        return cls(url.path, options["dim"])

    def __repr__(self) -> str:
        return f"JsonlStore({self.path!r}, dim={self.dim})"

    def close(self) -> None:
        """Release the file and its lock; closing twice is harmless."""
        self._file.close()  # closing a closed file is a no-op; the lock goes with the descriptor

    def _check_open(self) -> None:
        if self._file.closed:  # after close another process may own the file: memory would be stale
            raise StoreError(f"{self!r} is closed; open the URL again to keep using it")

    # -- opening: lock, then rebuild the in-memory state from the log

    def _lock_file(self) -> None:
        if fcntl is None:
            return
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreError(
                f"{self.path} is already open (jsonl:// allows one opener at a time); close the other store first"
            ) from None

    def _replay(self, dim: int | None) -> int:
        """Rebuild memory from the log, dropping a torn last batch; give a new file its header."""
        self._records: dict[str, Record] = {}
        self._by_scope: dict[Scope, set[str]] = defaultdict(set)
        self._postings: dict[Scope, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self._with_terms: dict[Scope, set[str]] = defaultdict(set)
        self._file.seek(0)
        data = self._file.read()
        if data and not data.startswith(HEADER_START):  # never cut into a file that is not ours
            raise StoreError(f"{self.path} is not a jsonl:// store; give a new path or one jsonl:// wrote")
        committed = data[: data.rfind(b"\n") + 1]  # bytes after the last newline are a torn batch
        self._file.truncate(len(committed))
        self._size = len(committed)
        lines = committed.splitlines()
        if not lines:
            dim = dim or DEFAULT_DIM
            self._append(json.dumps({"format": FORMAT, "dim": dim}))
            return dim
        recorded = json.loads(lines[0])["dim"]
        if dim is not None and dim != recorded:
            raise StoreError(
                f"{self.path} holds {recorded}-dimensional vectors but was opened with dim={dim}: "
                f"open it with ?dim={recorded} (or no dim), or use another file"
            )
        for number, line in enumerate(lines[1:], start=2):
            try:
                self._apply(_decode(json.loads(line)["ops"]))
            except (ValueError, KeyError) as error:
                raise StoreError(f"{self.path} is damaged at line {number}: {error}") from None
        return recorded

    # -- reads: the hooks get arguments StoreBase has checked

    def do_get(self, scope: Scope, ids: list[str]) -> dict[str, Record]:
        """Copies of the records of ``scope`` among ``ids``."""
        with self._lock:
            self._check_open()
            found = [self._records.get(i) for i in ids]
            return {r.id: _copy(r) for r in found if r is not None and r.scope == scope}

    def do_postings(self, scope: Scope, terms: list[str], limit: int) -> Postings:
        """n, and per term its df and up to ``limit`` ids, newest created_at first, ties by id."""
        df: dict[str, int] = {}
        ids: dict[str, list[str]] = {}
        with self._lock:
            self._check_open()
            index = self._postings.get(scope, {})
            for term in terms:
                holders = index.get(term, set())
                df[term] = len(holders)
                ids[term] = sorted(holders, key=lambda i: (-self._records[i].created_at, i))[:limit]
            return Postings(n=len(self._with_terms.get(scope, ())), df=df, ids=ids)

    def do_knn(self, scope: Scope, query: np.ndarray, k: int, filter: Filter | None) -> list[Neighbor]:
        """Every matching record with a vector, scored; StoreBase sorts by (score, id) and keeps k."""
        # filter first, rank second: ranking k and then filtering would return fewer than k
        with self._lock:
            self._check_open()
            pool = [
                r
                for r in map(self._records.get, self._by_scope.get(scope, ()))
                if r.embedding is not None and (filter is None or filter.matches(r))
            ]
        if not pool:
            return []
        matrix = np.stack([r.embedding for r in pool]).astype(np.float64)
        q = query.astype(np.float64)
        scores = matrix @ q / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(q))
        return [Neighbor(r.id, float(score)) for r, score in zip(pool, scores)]

    def do_scan(self, scope: Scope, filter: Filter | None, batch: int) -> Iterator[Record]:
        """Every matching record of the scope in id order, ``batch`` at a time."""
        after: str | None = None
        while True:
            # keyset pagination: each page starts after the last id yielded, read from the current state,
            # so writes between pages neither repeat nor skip a record that lives throughout
            page: list[Record] = []
            with self._lock:  # never held across a yield: the caller may write between records
                self._check_open()
                for record_id in sorted(self._by_scope.get(scope, ())):
                    if after is not None and record_id <= after:
                        continue
                    record = self._records[record_id]
                    if filter is None or filter.matches(record):
                        page.append(_copy(record))
                        if len(page) == batch:
                            break
            yield from page
            if len(page) < batch:
                return
            after = page[-1].id

    # -- writes

    def do_update_many(self, ops: list[Op]) -> list[Record | None]:
        """Apply a validated, non-empty batch whole or not at all; the stored record per upsert, None per delete."""
        with self._lock:
            self._check_open()
            touched = (self._records.get(i) for i in _ids(ops))
            current = {r.id: (r.scope, r.version) for r in touched if r is not None}
            # plan_batch raises ConflictError before anything is written; later ops see earlier ones
            entries = [
                {"put": _to_json(stored)} if stored is not None else {"delete" if exists else "noop": op.id}  # type: ignore[union-attr]
                for op, stored, exists in plan_batch(ops, current)
            ]
            line = json.dumps({"ops": entries})
            changes = _decode(json.loads(line)["ops"])  # decoded as a replay will decode it
            self._append(line)
            self._apply(changes)
            return [_copy(c) if isinstance(c, Record) else None for c in changes]

    def _append(self, line: str) -> None:
        """Write one line and make it durable; on any failure cut the file back to its last commit."""
        data = (line + "\n").encode("ascii")  # json.dumps escapes non-ASCII, so lone surrogates survive too
        try:
            self._file.write(data)
            self._file.flush()
            os.fsync(self._file.fileno())
        except BaseException:
            self._file.truncate(self._size)
            raise
        self._size += len(data)

    def _apply(self, changes: list[Record | str | None]) -> None:
        """Apply decoded log entries to memory, on write and on replay alike."""
        for change in changes:
            if isinstance(change, Record):
                self._remove(change.id)
                self._records[change.id] = change
                self._by_scope[change.scope].add(change.id)
                for term in change.terms:
                    self._postings[change.scope][term].add(change.id)
                if change.terms:
                    self._with_terms[change.scope].add(change.id)
            elif change is not None:
                self._remove(change)

    def _remove(self, record_id: str) -> None:
        record = self._records.pop(record_id, None)
        if record is None:
            return
        self._by_scope[record.scope].discard(record.id)
        for term in record.terms:
            holders = self._postings[record.scope][term]
            holders.discard(record.id)
            if not holders:
                del self._postings[record.scope][term]
        self._with_terms[record.scope].discard(record.id)


def _ids(ops: list[Op]) -> set[str]:
    return {op.id if isinstance(op, Delete) else op.record.id for op in ops}


def _to_json(record: Record) -> dict[str, Any]:
    """A record as one JSON object; float32 values survive the trip through JSON's float64 exactly."""
    data = record.model_dump(exclude={"embedding"})
    data["embedding"] = None if record.embedding is None else record.embedding.tolist()
    return data


def _decode(entries: list[dict[str, Any]]) -> list[Record | str | None]:
    """Log entries as changes: a Record to put, an id to delete, None for an op that changed nothing."""
    return [Record.model_validate(entry["put"]) if "put" in entry else entry.get("delete") for entry in entries]


def _copy(record: Record) -> Record:
    """A copy the caller may change (metadata, terms, the vector) without changing the store."""
    return record.model_copy(deep=True)
