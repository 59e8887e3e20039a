"""``sqlite://``: one SQLite file through the standard library's sqlite3, shareable by several processes.

URLs::

    sqlite:///kioko.db          relative to the working directory at open time (like SQLAlchemy)
    sqlite:////var/lib/kioko.db  absolute (four slashes)
    kioko.db                     a bare path ending in .db / .sqlite / .sqlite3
    sqlite:///:memory:           a private, non-persistent database for this store object only
    ...?dim=384&timeout=10       vector length; seconds to wait for another writer's lock

Layout (schema version 2; every table is prefixed ``kioko_`` so the file can hold other tables):

- ``kioko_meta``: ``schema_version`` and ``dim``; a file keeps the dim it was created with.
- ``kioko_records``: one row per record. ``agent_id`` None is stored as ``''`` (the protocol forbids
  ``''`` as a real agent id), so "no agent" is an ordinary, indexable scope value. ``metadata`` and
  ``terms`` are JSON text, ``embedding`` float32 little-endian bytes.
- ``kioko_postings``: one row per (record, term), indexed by (scope, term, created_at DESC, id) so
  :meth:`SQLiteStore.postings`' newest ids are an index walk with LIMIT.
- ``kioko_term_df``: per scope and term, how many postings it has (df), kept by triggers on
  ``kioko_postings`` inside every write transaction, so a df is one primary-key lookup. Counting the
  postings instead cost time in proportion to df: at 1,000,000 memories a common term (a kind, a
  frequent word) took milliseconds per lookup, and recall looks up several. Schema 1 files (without
  it) are upgraded when first opened: the table is counted from the postings once.
- ``kioko_scopes``: per scope, how many records have terms (``n``) and a generation counter; both are
  maintained in the write transaction, so ``n`` is one primary-key lookup.
- ``kioko_changes``: per scope and generation, the ids the batch wrote into the scope (ScopeChanges),
  for the last ``CHANGES_KEPT`` generations; a batch that removed a record from the scope leaves one row
  of id ``''`` instead, and the rows of the removed ids go, so no id of a deleted record stays behind.

Writes are one ``BEGIN IMMEDIATE`` transaction: the database write lock is taken before the versions
are read, so version checks hold across processes. Reads run in WAL mode and never wait for writers.

Everything runs on one sqlite3 connection per thread (and per process: a connection never crosses a
fork), with BEGIN and COMMIT issued directly and every statement written once as SQL text that
sqlite3 keeps prepared. A linked write makes three or four reads and one write; a pool's checkout
and transaction machinery would cost more than the statements themselves.
"""

from __future__ import annotations

import functools
import json
import math
import os
import sqlite3
import threading
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from typing import Any, ContextManager

import numpy as np

from kioko_core.driver import Option, StoreBase, non_negative_float, positive_float, positive_int
from kioko_core.store import (
    DEFAULT_DIM,
    Capabilities,
    Delete,
    Filter,
    InvalidRecordError,
    Neighbor,
    Op,
    Postings,
    Record,
    Scope,
    ScopeChangeSet,
    StoreError,
    Upsert,
    check_scope,
    plan_batch,
)
from kioko_core.url import StoreURL

from ._ann import DEFAULT_EXACT_BELOW, AnnSettings, ann_choice, settings_for
from ._changes import REMOVAL, batch_changes, changes_from_rows
from ._rows import row_fields
from ._sqlite_vectors import GraphFiles, VectorCache, VectorChange

SCHEMA_VERSION = 4
"""Bumped whenever the table layout changes; a file written by a newer Kioko is refused.
2: ``kioko_term_df``; 3: a term's df row goes when its last posting does; 4: ``kioko_changes`` (files of
1 to 3 upgrade when opened)."""

CHANGES_KEPT = 256
"""Generations per scope whose written ids ``kioko_changes`` keeps: a cache further behind rebuilds."""

DEFAULT_TIMEOUT = 30.0
"""Seconds a connection waits for another connection's write lock before giving up."""

DEFAULT_VECTOR_CACHE_MB = 256.0
"""Memory knn may spend per store object on cached vectors; least recently used scopes go first."""
MAX_PATCHED_VECTORS = 1000
"""After another process's writes, knn's vector cache reads this many changed rows at most; beyond, every row."""

_NO_AGENT = ""
"""How ``agent_id=None`` is stored: its own scope value, never a wildcard."""

_VECTOR_DTYPE = np.dtype("<f4")

# --------------------------------------------------------------------------- schema and statements

_CREATE_CHANGES = """CREATE TABLE IF NOT EXISTS kioko_changes (
    user_id TEXT NOT NULL, agent_id TEXT NOT NULL, generation INTEGER NOT NULL, id TEXT NOT NULL,
    PRIMARY KEY (user_id, agent_id, generation, id)) WITHOUT ROWID"""

# The tables as SQLAlchemy Core created them before the driver wrote its SQL itself; files made then
# and files made now are the same. IF NOT EXISTS makes creating them safe to repeat.
_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS kioko_meta (
        "key" TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY ("key")) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS kioko_records (
        id TEXT NOT NULL, user_id TEXT NOT NULL, agent_id TEXT NOT NULL, kind TEXT NOT NULL,
        content TEXT NOT NULL, metadata TEXT NOT NULL, terms TEXT NOT NULL, embedding BLOB,
        session_id TEXT, created_at FLOAT, updated_at FLOAT, version INTEGER NOT NULL, PRIMARY KEY (id))""",
    "CREATE INDEX IF NOT EXISTS kioko_records_scope_id ON kioko_records (user_id, agent_id, id)",
    # id rides along so a filtered knn finds its candidate ids in the index alone, without visiting rows
    "CREATE INDEX IF NOT EXISTS kioko_records_scope_kind ON kioko_records (user_id, agent_id, kind, id)",
    "CREATE INDEX IF NOT EXISTS kioko_records_scope_session ON kioko_records (user_id, agent_id, session_id, id)",
    # (id, term) is what a rewrite deletes by; WITHOUT ROWID keeps the table itself that index
    """CREATE TABLE IF NOT EXISTS kioko_postings (
        user_id TEXT NOT NULL, agent_id TEXT NOT NULL, term TEXT NOT NULL, id TEXT NOT NULL,
        created_at FLOAT, PRIMARY KEY (id, term)) WITHOUT ROWID""",
    """CREATE INDEX IF NOT EXISTS kioko_postings_lookup
        ON kioko_postings (user_id, agent_id, term, created_at DESC, id)""",
    """CREATE TABLE IF NOT EXISTS kioko_scopes (
        user_id TEXT NOT NULL, agent_id TEXT NOT NULL, with_terms INTEGER NOT NULL,
        generation INTEGER NOT NULL, PRIMARY KEY (user_id, agent_id)) WITHOUT ROWID""",
    _CREATE_CHANGES,
)

# Schema 2: df per (scope, term), kept exact by triggers, so every writer (whatever its code) keeps it.
_TERM_COUNTS = (
    """CREATE TABLE IF NOT EXISTS kioko_term_df (
        user_id TEXT NOT NULL, agent_id TEXT NOT NULL, term TEXT NOT NULL, df INTEGER NOT NULL,
        PRIMARY KEY (user_id, agent_id, term)) WITHOUT ROWID""",
    """CREATE TRIGGER IF NOT EXISTS kioko_postings_count AFTER INSERT ON kioko_postings BEGIN
        INSERT INTO kioko_term_df (user_id, agent_id, term, df) VALUES (new.user_id, new.agent_id, new.term, 1)
            ON CONFLICT (user_id, agent_id, term) DO UPDATE SET df = df + 1;
    END""",
    # a term no record holds any more leaves no row: the words of a forgotten memory do not linger
    """CREATE TRIGGER IF NOT EXISTS kioko_postings_uncount AFTER DELETE ON kioko_postings BEGIN
        UPDATE kioko_term_df SET df = df - 1
            WHERE user_id = old.user_id AND agent_id = old.agent_id AND term = old.term;
        DELETE FROM kioko_term_df
            WHERE user_id = old.user_id AND agent_id = old.agent_id AND term = old.term AND df <= 0;
    END""",
)
_DROP_SCHEMA_2_UNCOUNT = "DROP TRIGGER IF EXISTS kioko_postings_uncount"
_DROP_EMPTY_TERMS = "DELETE FROM kioko_term_df WHERE df <= 0"
_COUNT_TERMS = (
    "INSERT INTO kioko_term_df (user_id, agent_id, term, df) "
    "SELECT user_id, agent_id, term, count(*) FROM kioko_postings GROUP BY user_id, agent_id, term"
)
_SET_SCHEMA_VERSION = "UPDATE kioko_meta SET value = ? WHERE \"key\" = 'schema_version'"

_COLUMNS = (
    "id, user_id, agent_id, kind, content, metadata, terms, embedding, session_id, created_at, updated_at, version"
)
_IN_SCOPE = "user_id = ? AND agent_id = ?"

_UPSERT_RECORD = (
    f"INSERT INTO kioko_records ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, agent_id = excluded.agent_id, "
    "kind = excluded.kind, content = excluded.content, metadata = excluded.metadata, terms = excluded.terms, "
    "embedding = excluded.embedding, session_id = excluded.session_id, created_at = excluded.created_at, "
    "updated_at = excluded.updated_at, version = excluded.version"
)  # the row keeps its rowid, every column takes the new value
# A record whose scope, kind and session stay is rewritten in its row alone: the upsert above names the
# indexed columns, so SQLite deletes and reinserts the record's three scope index entries even when their
# values are the same, which is three more pages in each commit for every neighbour whose links changed.
_REWRITE_RECORD = (
    "UPDATE kioko_records SET content = ?, metadata = ?, terms = ?, embedding = ?, created_at = ?, "
    "updated_at = ?, version = ? WHERE id = ?"
)
_DELETE_RECORD = "DELETE FROM kioko_records WHERE id = ?"
_INSERT_POSTING = "INSERT INTO kioko_postings (user_id, agent_id, term, id, created_at) VALUES (?, ?, ?, ?, ?)"
_DELETE_POSTINGS = "DELETE FROM kioko_postings WHERE id = ?"
_DELETE_POSTING = "DELETE FROM kioko_postings WHERE id = ? AND term = ?"
# adds ``delta`` to a scope's count of records with terms and advances its generation by one
# A forgotten scope's row is deleted (its user's name must not outlive their records); a scope without a row
# then reads as ``forgotten_generation``, above every count a forgotten scope reached, and counts on from
# there: another process's cache of the forgotten scope never matches it, and every batch still adds one.
_FORGOTTEN_GENERATION = (
    "coalesce((SELECT CAST(value AS INTEGER) FROM kioko_meta WHERE \"key\" = 'forgotten_generation'), 0)"
)
_BUMP_SCOPE = (
    f"INSERT INTO kioko_scopes (user_id, agent_id, with_terms, generation) VALUES (?, ?, ?, 1 + {_FORGOTTEN_GENERATION}) "
    "ON CONFLICT (user_id, agent_id) DO UPDATE SET with_terms = kioko_scopes.with_terms + excluded.with_terms, "
    "generation = kioko_scopes.generation + 1"
)
_FORGET_SCOPE = (
    f"DELETE FROM kioko_scopes WHERE {_IN_SCOPE} AND NOT EXISTS (SELECT 1 FROM kioko_records WHERE {_IN_SCOPE})"
)
_RAISE_FORGOTTEN_GENERATION = (
    'INSERT INTO kioko_meta ("key", value) VALUES (\'forgotten_generation\', ?) ON CONFLICT ("key") '
    "DO UPDATE SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))"
)
_LOG_CHANGE = "INSERT OR IGNORE INTO kioko_changes (user_id, agent_id, generation, id) VALUES (?, ?, ?, ?)"
_FORGET_CHANGES = f"DELETE FROM kioko_changes WHERE {_IN_SCOPE}"
_UNLOG_CHANGES = f"DELETE FROM kioko_changes WHERE {_IN_SCOPE} AND id = ?"
_PRUNE_CHANGES = f"DELETE FROM kioko_changes WHERE {_IN_SCOPE} AND generation <= ?"
# the scope's generation and every change after the asked one, in one statement (one consistent state)
_CHANGES_SINCE = f"""SELECT now.generation, c.generation, c.id
    FROM (SELECT coalesce((SELECT generation FROM kioko_scopes WHERE {_IN_SCOPE}), {_FORGOTTEN_GENERATION}) AS generation) AS now
    LEFT JOIN kioko_changes c ON c.user_id = ? AND c.agent_id = ? AND c.generation > ?"""
_META_EXISTS = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kioko_meta'"
_READ_META = 'SELECT "key", value FROM kioko_meta'
_WRITE_META = 'INSERT INTO kioko_meta ("key", value) VALUES (?, ?)'
_SCOPE_SIZE = f"SELECT with_terms FROM kioko_scopes WHERE {_IN_SCOPE}"
_SCOPE_GENERATION = f"SELECT coalesce((SELECT generation FROM kioko_scopes WHERE {_IN_SCOPE}), {_FORGOTTEN_GENERATION})"
_SCOPE_VECTORS = f"SELECT id, embedding FROM kioko_records WHERE {_IN_SCOPE} AND embedding IS NOT NULL"
_TERM_IDS = f"SELECT id FROM kioko_postings WHERE {_IN_SCOPE} AND term = ? ORDER BY created_at DESC, id LIMIT ?"


def _marks(count: int) -> str:
    return ", ".join("?" * count)


@functools.cache
def _select_by_ids(count: int) -> str:
    """Records of one scope among ``count`` ids (callers pad to a power of two, so few shapes exist)."""
    return f"SELECT {_COLUMNS} FROM kioko_records WHERE id IN ({_marks(count)}) AND {_IN_SCOPE}"


@functools.cache
def _terms_df(count: int) -> str:
    """Document frequency of ``count`` terms of one scope, one row per term found (one statement, not one per term)."""
    return f"SELECT term, df FROM kioko_term_df WHERE {_IN_SCOPE} AND term IN ({_marks(count)})"


@functools.cache
def _select_states(count: int) -> str:
    """Scope, version, terms, created_at, kind and session of ``count`` ids, whatever their scope."""
    return (
        "SELECT id, user_id, agent_id, version, terms, created_at, kind, session_id "
        f"FROM kioko_records WHERE id IN ({_marks(count)})"
    )


# --------------------------------------------------------------------------- encoding rows


def _scope_values(scope: Scope) -> tuple[str, str]:
    """``(user_id, agent_id)`` as the columns hold them."""
    return scope.user_id, scope.agent_id if scope.agent_id is not None else _NO_AGENT


def _loaded_float(value: float | None) -> float:
    # files written before timestamps had to be finite may hold NULL for NaN
    return math.nan if value is None else float(value)


def _json(value: Any) -> str:
    # validate_ops let only JSON through, without NaN or infinity
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _vector_bytes(record: Record) -> bytes | None:
    """The embedding as float32 little-endian bytes (validate_ops made it a finite float32 vector)."""
    return None if record.embedding is None else record.embedding.astype(_VECTOR_DTYPE, copy=False).tobytes()


@dataclass(frozen=True)
class _Row:
    """A record encoded for ``kioko_records``; encoding checks it, before any lock is taken."""

    scope: Scope
    terms: tuple[str, ...]
    values: tuple[Any, ...]
    """Column values in ``_RECORD_COLUMNS`` order; the version (last) is stamped when the batch is planned."""

    @property
    def embedding(self) -> bytes | None:
        blob: bytes | None = self.values[7]
        return blob

    @property
    def created_at(self) -> float | None:
        when: float | None = self.values[9]
        return when

    @property
    def kind(self) -> str:
        kind: str = self.values[3]
        return kind

    @property
    def terms_json(self) -> str:
        encoded: str = self.values[6]
        return encoded

    @property
    def session_id(self) -> str | None:
        session: str | None = self.values[8]
        return session

    def stamped(self, version: int) -> tuple[Any, ...]:
        return self.values[:-1] + (version,)

    def rewrite(self, version: int) -> tuple[Any, ...]:
        """Parameters of ``_REWRITE_RECORD``: the columns no index holds, then the id."""
        values = self.values
        return (values[4], values[5], values[6], values[7], values[9], values[10], version, values[0])

    def keeps_index_keys(self, before: _State) -> bool:
        """True when the row's indexed columns (scope, kind, session) are what ``before`` holds."""
        return before.scope == self.scope and before.kind == self.kind and before.session_id == self.session_id


def _encode_record(record: Record) -> _Row:
    """A record (one validate_ops accepted) as a row for ``kioko_records``."""
    agent_id = record.agent_id if record.agent_id is not None else _NO_AGENT
    return _Row(
        record.scope,
        tuple(record.terms),
        (
            record.id,
            record.user_id,
            agent_id,
            record.kind,
            record.content,
            _json(record.metadata),
            _json(record.terms),
            _vector_bytes(record),
            record.session_id,
            float(record.created_at),
            float(record.updated_at),
            0,
        ),
    )


def _decode_record(row: Sequence[Any]) -> Record:
    """A ``kioko_records`` row as a Record; the row was validated when it was written."""
    fields = row_fields(row)
    embedding = fields["embedding"]
    fields.update(
        agent_id=fields["agent_id"] if fields["agent_id"] != _NO_AGENT else None,
        metadata=json.loads(fields["metadata"]),
        terms=json.loads(fields["terms"]),
        embedding=None if embedding is None else np.frombuffer(embedding, dtype=_VECTOR_DTYPE).astype(np.float32),
        created_at=_loaded_float(fields["created_at"]),
        updated_at=_loaded_float(fields["updated_at"]),
    )
    return Record.model_construct(**fields)


_ID_CHUNK = 512
"""Ids per IN list: below every SQLite build's parameter limit, and few statement shapes to prepare."""


def _id_chunks(ids: Sequence[str]) -> Iterator[list[str]]:
    """``ids`` in chunks padded (by repeating an id, harmless in IN) to a power-of-two length."""
    for start in range(0, len(ids), _ID_CHUNK):
        chunk = list(ids[start : start + _ID_CHUNK])
        size = 1 << (len(chunk) - 1).bit_length()
        yield chunk + [chunk[0]] * (size - len(chunk))


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


# --------------------------------------------------------------------------- planning a batch


@dataclass(frozen=True)
class _State:
    """What the database holds for one id, as the batch sees it."""

    scope: Scope
    version: int
    terms_json: str = "[]"
    """The terms column as stored: a rewrite compares it with the new text before parsing it."""
    created_at: float | None = None
    """As stored (None for NaN): postings carry it, so a changed timestamp rewrites them."""
    kind: str = ""
    session_id: str | None = None

    @functools.cached_property
    def terms(self) -> tuple[str, ...]:
        return tuple(json.loads(self.terms_json))

    @property
    def has_terms(self) -> bool:
        # a JSON list of strings holds a quote exactly when it is not empty: no parse needed
        return '"' in self.terms_json


@dataclass
class _Plan:
    """The outcome of a batch: the version each upsert stamps, and the final state of every id it changes."""

    versions: list[int | None]
    """Per op: the version its record is stored with, None for a delete."""
    final: dict[str, int | None]
    """id -> index of the op whose record is stored, or None to delete it.

    Only the last state of an id reaches the database; the states in between are invisible anyway.
    """


def _plan(ops: Sequence[Op], current: dict[str, _State]) -> _Plan:
    """The batch checked by the protocol's :func:`plan_batch`, as versions and final states."""
    planned = plan_batch(ops, {record_id: (state.scope, state.version) for record_id, state in current.items()})
    versions: list[int | None] = []
    final: dict[str, int | None] = {}
    for index, (op, stored, exists) in enumerate(planned):
        versions.append(stored.version if stored is not None else None)
        if stored is not None:
            final[stored.id] = index
        elif exists:
            final[op.id] = None  # type: ignore[union-attr]
    return _Plan(versions, final)


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


# --------------------------------------------------------------------------- the store


class SQLiteStore(StoreBase):
    """Records in one SQLite file (WAL mode); several threads and processes may use it at once."""

    capabilities: Capabilities = Capabilities(
        transactions=True,
        native_knn=False,
        persistent=True,
        multi_process=True,
        notes=(
            "knn is cosine in numpy; each scope's vectors are cached in the process and brought up to date "
            "only after another process changed that scope (?vector_cache_mb=0 turns the cache off)",
            "writes from all processes are serialised by SQLite's write lock (BEGIN IMMEDIATE)",
            "synchronous=NORMAL under WAL: a power cut may lose the last commits, never part of one",
            "metadata and terms are stored as JSON: tuples come back as lists",
            "sqlite:///:memory: is a private, non-persistent database of one store object",
        ),
    )
    _memory_capabilities = replace(capabilities, persistent=False, multi_process=False)
    _ANN_NOTE = (
        "knn of a scope with at least exact_below vectors (default 10,000) goes through an HNSW graph "
        "(usearch) whose candidates are re-scored exactly; graphs are saved beside the file "
        "(<file>.ann/) on close and rebuilt from the table when missing or stale; ?ann=false keeps knn exact"
    )
    options = {
        "dim": Option(positive_int),  # None: the file's own, or DEFAULT_DIM for a new file
        "timeout": Option(positive_float, DEFAULT_TIMEOUT),
        "vector_cache_mb": Option(non_negative_float, DEFAULT_VECTOR_CACHE_MB),
        "ann": Option(ann_choice),  # None: auto, a graph when usearch is installed
        "exact_below": Option(positive_int, DEFAULT_EXACT_BELOW),
    }

    def __init__(
        self,
        path: str,
        dim: int | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        vector_cache_mb: float = DEFAULT_VECTOR_CACHE_MB,
        ann: AnnSettings | None = None,
    ) -> None:
        """Open (creating if needed) the database at ``path``, a file path or ``:memory:``.

        ``dim`` None means: the dim the file was created with, or DEFAULT_DIM for a new file.
        ``vector_cache_mb`` bounds the memory knn's per-scope vector cache may take (0 turns it off).
        ``ann``: search large scopes through an HNSW graph (None: every knn exact).
        """
        self.path = path if path == ":memory:" else os.path.abspath(path)
        self._timeout = float(timeout)
        self._in_memory = self.path == ":memory:"
        if self._in_memory:
            self.capabilities = self._memory_capabilities
        self._ann = ann
        if ann is not None:
            self.capabilities = replace(
                self.capabilities, approximate_knn=True, notes=self.capabilities.notes + (self._ANN_NOTE,)
            )
        self._closed = False
        # (pid, thread id) -> that thread's sqlite3 connection; see _connection()
        self._connections: dict[tuple[int, int], sqlite3.Connection] = {}
        self._vector_budget = int(vector_cache_mb * 2**20)
        self._start_locks()
        try:
            # the whole of a :memory: database is one connection; _guard() serialises every use of it
            self._memory_connection = self._new_connection() if self._in_memory else None
            self.dim = self._prepare_schema(dim)
            self._max_params = self._parameter_limit()
            self._vectors = self._new_vector_cache()
        except BaseException:
            self._closed = True
            self._close_connections()
            raise

    @classmethod
    def local_path(cls, url: StoreURL) -> str | None:
        """The file ``url`` names (None for ``:memory:``); opening creates it when it is missing."""
        path = _database_path(url)
        return None if path == ":memory:" else path

    @classmethod
    def open_url(cls, url: StoreURL, options: dict[str, Any]) -> SQLiteStore:
        """Open the store a ``sqlite://`` URL (or bare ``*.db`` path) names.

        ``dim``: the option, else the file's recorded dim, else DEFAULT_DIM. ``timeout``: seconds to
        wait for another writer, default 30. ``vector_cache_mb``: the knn cache's budget.
        """
        return cls(
            _database_path(url),
            options["dim"],
            timeout=options["timeout"],
            vector_cache_mb=options["vector_cache_mb"],
            ann=settings_for(options["ann"], options["exact_below"]),
        )

    def __repr__(self) -> str:
        return f"SQLiteStore(path={self.path!r}, dim={self.dim})"

    def _new_vector_cache(self) -> VectorCache:
        files = None if self._in_memory else GraphFiles(self.path, self.dim)
        return VectorCache(self.dim, self._vector_budget, self._ann, files)

    # -- connections

    def _start_locks(self) -> None:
        self._pid = os.getpid()
        # one writer per process at a time: the others wait here instead of polling SQLite's lock
        self._write_lock = threading.Lock()
        # guards adding to and closing self._connections; a thread finds its own without it
        self._connections_lock = threading.Lock()
        self._memory_lock: threading.RLock | None = threading.RLock() if self._in_memory else None

    def _guard(self) -> ContextManager[Any]:
        return self._memory_lock if self._memory_lock is not None else nullcontext()

    def _check_usable(self) -> None:
        if self._closed:
            raise StoreError(f"{self!r} is closed; open the URL again to keep using it")
        if os.getpid() != self._pid:
            if self._in_memory:
                raise StoreError("a sqlite:///:memory: store lives in one process; it cannot be used after fork")
            # a forked child must not share the parent's sqlite3 connections (or locks a parent's
            # thread may have held at the fork); it opens its own
            self._start_locks()
            self._vectors = self._new_vector_cache()

    @contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except (sqlite3.Error, UnicodeEncodeError) as error:
            raise _describe(error, self.path, self._timeout) from error

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

    @contextmanager
    def _reading(self, snapshot: bool = True) -> Iterator[sqlite3.Connection]:
        """A read, never waiting for writers (WAL): in one consistent snapshot unless ``snapshot`` is False.

        Without ``snapshot`` each statement still sees one consistent state, just not the same one; that
        is enough for a read of a single statement.
        """
        self._check_usable()
        with self._guard(), self._translated(), self._transaction("BEGIN" if snapshot else None) as connection:
            yield connection

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """A write transaction holding the database's write lock from its first statement."""
        self._check_usable()
        with self._guard(), self._write_lock, self._translated(), self._transaction("BEGIN IMMEDIATE") as connection:
            yield connection

    # -- schema

    def _prepare_schema(self, dim: int | None) -> int:
        """Create the tables if missing, check the schema version, and settle the dim.

        An existing database is only read: opening never waits for another process's write.
        """
        if dim is not None:
            dim = positive_int(dim, "dim")
        self._check_usable()
        if not self._in_memory:
            with self._translated():
                _switch_to_wal(self._connection(), self._timeout)
        with self._reading() as connection:
            stored = self._read_meta(connection)
        if "dim" not in stored:
            with self._writing() as connection:
                for statement in _SCHEMA + _TERM_COUNTS:
                    connection.execute(statement)
                stored = self._read_meta(connection)  # another process may have created it meanwhile
                if "dim" not in stored:
                    stored = {"schema_version": str(SCHEMA_VERSION), "dim": str(dim or DEFAULT_DIM)}
                    connection.executemany(_WRITE_META, list(stored.items()))
        if int(stored.get("schema_version", SCHEMA_VERSION)) < SCHEMA_VERSION:
            stored = self._upgrade()
        return self._settled_dim(stored, dim)

    def _upgrade(self) -> dict[str, str]:
        """An older file to this schema, in one write transaction (so no write is counted twice or missed;
        another process upgrading first wins). 1 -> 3: count every term's postings into ``kioko_term_df``
        once, with its triggers. 2 -> 3: the uncount trigger that removes emptied rows, and no empty row."""
        with self._writing() as connection:
            stored = self._read_meta(connection)
            version = int(stored.get("schema_version", SCHEMA_VERSION))
            if version < SCHEMA_VERSION:
                connection.execute(_CREATE_CHANGES)  # empty: caches of older generations rebuild
                connection.execute(_DROP_SCHEMA_2_UNCOUNT)
                for statement in _TERM_COUNTS:
                    connection.execute(statement)
                connection.execute(_COUNT_TERMS if version == 1 else _DROP_EMPTY_TERMS)
                connection.execute(_SET_SCHEMA_VERSION, (str(SCHEMA_VERSION),))
                stored = self._read_meta(connection)
        return stored

    @staticmethod
    def _read_meta(connection: sqlite3.Connection) -> dict[str, str]:
        """``kioko_meta`` as a dict; empty when the database has no Kioko tables yet."""
        exists = connection.execute(_META_EXISTS).fetchall()
        return dict(connection.execute(_READ_META).fetchall()) if exists else {}

    def _settled_dim(self, stored: dict[str, str], dim: int | None) -> int:
        version = int(stored.get("schema_version", SCHEMA_VERSION))
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer Kioko (schema {version}, this one reads "
                f"{SCHEMA_VERSION}): upgrade kioko"
            )
        recorded = int(stored["dim"])
        if dim is not None and dim != recorded:
            raise InvalidRecordError(
                f"{self.path} holds {recorded}-dimensional vectors, but the store was opened with "
                f"dim={dim}: open it with ?dim={recorded} (or no dim), or use another file"
            )
        return recorded

    def _parameter_limit(self) -> int:
        """How many ids one statement may bind; old SQLite builds allow only 999 parameters."""
        with self._reading() as raw:
            limit = raw.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) if hasattr(raw, "getlimit") else 999
        return max(100, min(limit - 16, 10_000))

    # -- reads

    def _one_read(self, statement: str, params: Sequence[Any]) -> list[Any]:
        """The rows of one read statement, outside any transaction: a single statement sees one consistent state.

        What ``_reading(snapshot=False)`` gives one statement, without its three context managers: the write
        path makes several such reads per write (a scope's generation before each lookup, a few records).
        """
        self._check_usable()
        lock = self._memory_lock
        try:
            if lock is None:
                return self._connection().execute(statement, params).fetchall()
            with lock:
                return self._connection().execute(statement, params).fetchall()
        except (sqlite3.Error, UnicodeEncodeError) as error:
            raise _describe(error, self.path, self._timeout) from error

    def do_get(self, scope: Scope, ids: list[str]) -> dict[str, Record]:
        rows: dict[str, tuple[Any, ...]] = {}
        scope_values = _scope_values(scope)
        if len(ids) <= _ID_CHUNK:  # one chunk is one statement, consistent by itself
            for chunk in _id_chunks(ids):
                rows.update(
                    (row[0], row) for row in self._one_read(_select_by_ids(len(chunk)), (*chunk, *scope_values))
                )
        else:  # more must share a snapshot
            with self._reading() as raw:
                for chunk in _id_chunks(ids):
                    for row in raw.execute(_select_by_ids(len(chunk)), (*chunk, *scope_values)):
                        rows[row[0]] = row
        return {record_id: _decode_record(row) for record_id, row in rows.items()}

    def generation(self, scope: Scope) -> int:
        """The scope's write counter (``kioko_scopes.generation``), shared by every process: ScopeGenerations."""
        found = self._one_read(_SCOPE_GENERATION, _scope_values(check_scope(scope)))
        return int(found[0][0]) if found else 0

    def _generation_or_none(self, scope: Scope) -> int:
        """The scope's generation, or -1 when it cannot be read (closing: no graph is then saved)."""
        try:
            return self.generation(scope)
        except Exception:  # noqa: BLE001 - a store that cannot read saves nothing; the table is the truth
            return -1

    def changes_since(self, scope: Scope, generation: int) -> ScopeChangeSet | None:
        """The ids written into ``scope`` after ``generation`` (``kioko_changes``): ScopeChanges."""
        values = _scope_values(check_scope(scope))
        rows = self._one_read(_CHANGES_SINCE, (*values, *values, int(generation)))
        return changes_from_rows(generation, rows)

    def do_postings(self, scope: Scope, terms: list[str], limit: int) -> Postings:
        user_id, agent_id = _scope_values(scope)
        df: dict[str, int] = {}
        ids: dict[str, list[str]] = {}
        with self._reading() as raw:  # one snapshot: n, every df and every id list agree
            found = raw.execute(_SCOPE_SIZE, (user_id, agent_id)).fetchone()
            # most terms a write or a question asks about are in few or no memories: their counts come
            # from one statement, and only a term that is there walks its index range for ids
            for chunk in _id_chunks(list(dict.fromkeys(terms))):
                df.update(raw.execute(_terms_df(len(chunk)), (user_id, agent_id, *chunk)).fetchall())
            for term in terms:
                df.setdefault(term, 0)
                ids[term] = (
                    [row[0] for row in raw.execute(_TERM_IDS, (user_id, agent_id, term, limit))]
                    if df[term] and limit
                    else []
                )
        return Postings(n=found[0] if found else 0, df=df, ids=ids)

    def do_knn(self, scope: Scope, query: np.ndarray, k: int, filter: Filter | None) -> list[Neighbor]:
        conditions, params, wanted = self._filter_conditions(filter)
        scope_values = _scope_values(scope)
        with self._reading() as raw:
            # generation, matching ids and (when needed) vectors all come from one snapshot

            def keep(ids: list[str]) -> set[str]:
                """Which of the graph's candidates the filter accepts."""
                passing: set[str] = set()
                for chunk in _id_chunks(ids):
                    statement = f"SELECT id FROM kioko_records WHERE id IN ({_marks(len(chunk))}) AND {_IN_SCOPE}"
                    passing.update(
                        row[0] for row in raw.execute(statement + conditions, (*chunk, *scope_values, *params))
                    )
                return passing if wanted is None else passing & wanted

            def matching() -> set[str] | frozenset[str] | None:
                """Every id the filter accepts, for an exact search."""
                if not conditions:
                    return wanted
                statement = f"SELECT id FROM kioko_records WHERE {_IN_SCOPE}{conditions}"
                found = {row[0] for row in raw.execute(statement, (*scope_values, *params))}
                return found if wanted is None else found & wanted

            def changed(since: int) -> list[tuple[str, bytes | None]] | None:
                """The vectors of the records written after ``since`` (None: a removal, or the log cannot say)."""
                found = changes_from_rows(
                    since, raw.execute(_CHANGES_SINCE, (*scope_values, *scope_values, since)).fetchall()
                )
                if found is None or found.generation != generation or len(found.ids) > MAX_PATCHED_VECTORS:
                    return None
                vectors: dict[str, bytes | None] = {}
                for chunk in _id_chunks(sorted(found.ids)):
                    statement = (
                        f"SELECT id, embedding FROM kioko_records WHERE id IN ({_marks(len(chunk))}) AND {_IN_SCOPE}"
                    )
                    vectors.update(raw.execute(statement, (*chunk, *scope_values)).fetchall())
                return [(record_id, vectors.get(record_id)) for record_id in sorted(found.ids)]

            filtered = bool(conditions) or wanted is not None
            generation = self._generation(raw, scope)
            return self._vectors.search(
                scope,
                generation,
                query,
                k,
                lambda: raw.execute(_SCOPE_VECTORS, scope_values).fetchall(),
                keep if filtered else None,
                matching if filtered else None,
                changed,
            )

    def do_scan(self, scope: Scope, filter: Filter | None, batch: int) -> Iterator[Record]:
        self._check_usable()
        return self._scan_pages(scope, filter, batch)

    def _scan_pages(self, scope: Scope, filter: Filter | None, batch: int) -> Iterator[Record]:
        conditions, params, wanted = self._filter_conditions(filter)
        statement = f"SELECT {_COLUMNS} FROM kioko_records WHERE {_IN_SCOPE} AND id > ?{conditions} ORDER BY id LIMIT ?"
        scope_values = _scope_values(scope)
        after = ""
        while True:
            # keyset pagination, one short read per page: nothing is held open while the caller works,
            # and records written meanwhile never shift what is left to read
            with self._reading(snapshot=False) as raw:
                rows = raw.execute(statement, (*scope_values, after, *params, batch)).fetchall()
            for row in rows:
                if wanted is None or row[0] in wanted:
                    yield _decode_record(row)
            if len(rows) < batch:
                return
            after = rows[-1][0]

    def _filter_conditions(self, filter: Filter | None) -> tuple[str, list[Any], frozenset[str] | None]:
        """Filter as SQL (`` AND ...`` clauses) and its parameters, plus an id set to check in Python
        when it is too big to bind."""
        if filter is None:
            return "", [], None
        clauses: list[str] = []
        params: list[Any] = []
        if filter.kinds is not None:
            clauses.append(f"kind IN ({_marks(len(filter.kinds))})")
            params += sorted(filter.kinds)
        if filter.session_id is not None:
            clauses.append("session_id = ?")
            params.append(filter.session_id)
        if filter.created_after is not None:
            clauses.append("created_at >= ?")
            params.append(filter.created_after)
        if filter.created_before is not None:
            clauses.append("created_at < ?")
            params.append(filter.created_before)
        wanted = None
        if filter.ids is not None:
            if len(filter.ids) <= self._max_params:
                clauses.append(f"id IN ({_marks(len(filter.ids))})")
                params += sorted(filter.ids)
            else:
                wanted = filter.ids
        return "".join(f" AND {clause}" for clause in clauses), params, wanted

    # -- writes

    def do_update_many(self, ops: list[Op]) -> list[Record | None]:
        # encoded before the write lock is asked for, so the lock is held for the statements alone
        rows = [_encode_record(op.record) if isinstance(op, Upsert) else None for op in ops]
        touched = list(dict.fromkeys(op.id if isinstance(op, Delete) else op.record.id for op in ops))
        with self._writing() as connection:
            current = self._read_states(connection, touched)
            plan = _plan(ops, current)
            generations = self._apply(connection, plan, rows, current)
        # committed: bring this process's cached vectors along, or drop them if another process got between
        changes = _vector_changes(plan, rows, current)
        self._vectors.advance(generations, changes)
        left = {before for _, before, now_in, _ in changes if before is not None and now_in != before}
        if left:
            self._vectors.removed(left)  # a saved graph must not keep a deleted memory's vector
        # decoded from what was written, so the answer is exactly what get() will return
        return [
            _decode_record(row.stamped(version)) if row is not None and version is not None else None
            for row, version in zip(rows, plan.versions)
        ]

    def _read_states(self, raw: sqlite3.Connection, ids: Sequence[str]) -> dict[str, _State]:
        current: dict[str, _State] = {}
        for chunk in _id_chunks(ids):
            for record_id, user_id, agent_id, version, terms, created_at, kind, session_id in raw.execute(
                _select_states(len(chunk)), chunk
            ):
                scope = Scope(user_id, agent_id if agent_id != _NO_AGENT else None)
                current[record_id] = _State(scope, version, terms, created_at, kind, session_id)
        return current

    def _apply(
        self, raw: sqlite3.Connection, plan: _Plan, rows: list[_Row | None], current: dict[str, _State]
    ) -> dict[Scope, int]:
        """Write the final state of every changed id; return the generation each cached scope had."""
        gone = [(i,) for i, index in plan.final.items() if index is None and i in current]
        if gone:
            raw.executemany(_DELETE_RECORD, gone)
        stored: list[tuple[Any, ...]] = []
        rewritten: list[tuple[Any, ...]] = []
        for record_id, index in plan.final.items():
            row, version = (rows[index], plan.versions[index]) if index is not None else (None, None)
            if row is None or version is None:
                continue  # deleted above
            before = current.get(record_id)
            if before is not None and row.keeps_index_keys(before):
                rewritten.append(row.rewrite(version))
            else:
                stored.append(row.stamped(version))
        if stored:
            raw.executemany(_UPSERT_RECORD, stored)
        if rewritten:
            raw.executemany(_REWRITE_RECORD, rewritten)
        self._write_postings(raw, plan, rows, current)
        deltas = _scope_deltas(plan, rows, current)
        generations = {scope: self._generation(raw, scope) for scope in deltas if self._vectors.holds(scope)}
        if deltas:
            raw.executemany(_BUMP_SCOPE, [(*_scope_values(scope), delta) for scope, delta in deltas.items()])
            self._log_changes(raw, plan, rows, current)
        return generations

    def _log_changes(
        self, raw: sqlite3.Connection, plan: _Plan, rows: list[_Row | None], current: dict[str, _State]
    ) -> None:
        """``kioko_changes`` for this batch, at each touched scope's new generation (ScopeChanges)."""
        finals = []
        for record_id, index in plan.final.items():
            before, row = current.get(record_id), rows[index] if index is not None else None
            finals.append((record_id, before.scope if before else None, row.scope if row else None))
        for scope, (written, removed) in batch_changes(finals).items():
            values = _scope_values(scope)
            generation = self._generation(raw, scope)
            if removed:
                # the removed ids leave the log with their records; the '' row sends caches to a rebuild
                raw.executemany(_UNLOG_CHANGES, [(*values, record_id) for record_id in removed])
                raw.execute(_LOG_CHANGE, (*values, generation, REMOVAL))
            else:
                raw.executemany(_LOG_CHANGE, [(*values, generation, record_id) for record_id in written])
            if generation > CHANGES_KEPT and generation % 16 == 0:
                raw.execute(_PRUNE_CHANGES, (*values, generation - CHANGES_KEPT))

    @staticmethod
    def _write_postings(
        raw: sqlite3.Connection, plan: _Plan, rows: list[_Row | None], current: dict[str, _State]
    ) -> None:
        """Bring postings to the batch's final state, touching only the terms that changed.

        A neighbour whose links were updated keeps its terms, so the common write rewrites no postings.
        """
        cleared: list[tuple[str]] = []
        dropped: list[tuple[str, str]] = []
        added: list[tuple[Any, ...]] = []
        for record_id, index in plan.final.items():
            before = current.get(record_id)
            row = rows[index] if index is not None else None
            new_terms: Sequence[str] = row.terms if row is not None else ()
            if (
                before is not None
                and row is not None
                and before.scope == row.scope
                and before.created_at == row.created_at
            ):
                if before.terms_json == row.terms_json:
                    continue  # the same terms encoded the same way: not one posting moves
                kept, had = set(new_terms), set(before.terms)
                dropped.extend((record_id, term) for term in before.terms if term not in kept)
                new_terms = [term for term in new_terms if term not in had]
            elif before is not None and before.has_terms:
                cleared.append((record_id,))
            if row is not None:
                user_id, agent_id = _scope_values(row.scope)
                added.extend((user_id, agent_id, term, record_id, row.created_at) for term in new_terms)
        if cleared:
            raw.executemany(_DELETE_POSTINGS, cleared)
        if dropped:
            raw.executemany(_DELETE_POSTING, dropped)
        if added:
            raw.executemany(_INSERT_POSTING, added)

    @staticmethod
    def _generation(raw: sqlite3.Connection, scope: Scope) -> int:
        found = raw.execute(_SCOPE_GENERATION, _scope_values(scope)).fetchone()
        return found[0] if found else 0

    def purge(self, scopes: Sequence[Scope] = ()) -> bool:
        """Make what deleted records left behind unreadable from the files: the WAL, which still holds the
        pages as they were before the delete, is checkpointed into the database and truncated to zero
        bytes (``secure_delete`` already zeroed the freed space); ``scopes`` (a forgotten user's) lose their
        cached vectors and saved ANN graphs too. True when the checkpoint completed; a reader of another
        connection still using the old pages keeps it from completing (waited for up to 2 seconds): the
        frames then stay until the next checkpoint (docs/privacy.md)."""
        self._check_usable()
        scopes = [check_scope(scope) for scope in scopes]
        for scope in scopes:
            self._vectors.forget(scope)
        if scopes:
            with self._writing() as raw:
                for scope in scopes:  # an emptied scope's row goes: the user's name must not outlive their records
                    generation = self._generation(raw, scope)
                    if raw.execute(_FORGET_SCOPE, _scope_values(scope) * 2).rowcount:
                        raw.execute(_RAISE_FORGOTTEN_GENERATION, (str(generation + 1),))
                        raw.execute(_FORGET_CHANGES, _scope_values(scope))  # its removal marks name the user
        if self._in_memory:
            return True
        with self._guard(), self._write_lock, self._translated():
            connection = self._connection()
            connection.execute(f"PRAGMA busy_timeout = {min(2000, int(self._timeout * 1000))}")
            try:
                busy = int(connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0])
            finally:
                connection.execute(f"PRAGMA busy_timeout = {int(self._timeout * 1000)}")
        return busy == 0

    def close(self) -> None:
        """Release every connection (and the whole database, for ``:memory:``). Closing twice is harmless."""
        if not self._closed:
            if os.getpid() == self._pid:
                self._vectors.save_graphs(self._generation_or_none)  # still open: it reads the generations
            self._closed = True
            if os.getpid() != self._pid:
                # a forked child closes only its own connections, never those it inherited, and leaves the
                # inherited cache (whose lock a parent's thread may have held at the fork) unsaved
                self._memory_connection = None
                self._start_locks()
                self._vectors = self._new_vector_cache()
            self._close_connections()
            self._vectors.clear()


# --------------------------------------------------------------------------- helpers


def _scope_deltas(plan: _Plan, rows: list[_Row | None], current: dict[str, _State]) -> dict[Scope, int]:
    """Per changed scope (every one, even at 0), how its count of records with terms moves."""
    deltas: dict[Scope, int] = defaultdict(int)
    for record_id, index in plan.final.items():
        before = current.get(record_id)
        if before is not None:
            deltas[before.scope] -= int(before.has_terms)
        row = rows[index] if index is not None else None
        if row is not None:
            deltas[row.scope] += int(bool(row.terms))
    return deltas


def _vector_changes(plan: _Plan, rows: list[_Row | None], current: dict[str, _State]) -> list[VectorChange]:
    """Per changed id: the scope it left (or None), the scope it is in now (or None), its vector bytes."""
    changes = []
    for record_id, index in plan.final.items():
        before = current.get(record_id)
        row = rows[index] if index is not None else None
        changes.append(
            (record_id, before.scope if before else None, row.scope if row else None, row.embedding if row else None)
        )
    return changes
