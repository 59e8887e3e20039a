"""SQLiteStore: the protocol over one SQLite file, its connections, transactions and vector cache."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from typing import Any, ContextManager

import numpy as np

from kioko_backends._ann import DEFAULT_EXACT_BELOW, AnnSettings, ann_choice, settings_for
from kioko_backends._changes import REMOVAL, batch_changes, changes_from_rows
from kioko_backends.sqlite.connection import ThreadConnections, _database_path, _describe, _switch_to_wal
from kioko_backends.sqlite.planning import _Plan, _plan, _scope_deltas, _vector_changes
from kioko_backends.sqlite.rows import (
    _ID_CHUNK,
    _decode_record,
    _encode_record,
    _id_chunks,
    _json,
    _Row,
    _scope_values,
    _State,
)
from kioko_backends.sqlite.statements import (
    _BUMP_SCOPE,
    _BUMP_VERSION,
    _CHANGES_SINCE,
    _COLUMNS,
    _COUNT_TERMS,
    _CREATE_CHANGES,
    _CREATE_LINKS,
    _DELETE_LINK,
    _DELETE_LINKS,
    _DELETE_POSTING,
    _DELETE_POSTINGS,
    _DELETE_RECORD,
    _DROP_EMPTY_TERMS,
    _DROP_SCHEMA_2_UNCOUNT,
    _FORGET_CHANGES,
    _FORGET_SCOPE,
    _IN_SCOPE,
    _INSERT_POSTING,
    _LOG_CHANGE,
    _META_EXISTS,
    _NO_AGENT,
    _PRUNE_CHANGES,
    _PUT_LINK,
    _RAISE_FORGOTTEN_GENERATION,
    _READ_META,
    _REWRITE_RECORD,
    _SCHEMA,
    _SCOPE_GENERATION,
    _SCOPE_SIZE,
    _SCOPE_VECTORS,
    _SET_SCHEMA_VERSION,
    _TERM_COUNTS,
    _TERM_IDS,
    _UNLOG_CHANGES,
    _UPSERT_RECORD,
    _WRITE_META,
    CHANGES_KEPT,
    SCHEMA_VERSION,
    _marks,
    _scope_generations,
    _select_by_ids,
    _select_links,
    _select_states,
    _terms_df,
)
from kioko_backends.sqlite.vectors import GraphFiles, VectorCache
from kioko_core.store import (
    DEFAULT_DIM,
    Capabilities,
    ConflictError,
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
    is_storable_text,
    validate_ops,
)
from kioko_core.store.driver import Option, StoreBase, non_negative_float, positive_float, positive_int
from kioko_core.store.link_store import LinkChange, validate_changes
from kioko_core.store.url import StoreURL

DEFAULT_TIMEOUT = 30.0
"""Seconds a connection waits for another connection's write lock before giving up."""

DEFAULT_VECTOR_CACHE_MB = 256.0
"""Memory knn may spend per store object on cached vectors; least recently used scopes go first."""
MAX_PATCHED_VECTORS = 1000
"""After another process's writes, knn's vector cache reads this many changed rows at most; beyond, every row."""


# --------------------------------------------------------------------------- the store


class SQLiteStore(ThreadConnections, StoreBase):
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
    def _translate_errors(self) -> Iterator[None]:
        try:
            yield
        except (sqlite3.Error, UnicodeEncodeError) as error:
            raise _describe(error, self.path, self._timeout) from error

    @contextmanager
    def _reading(self, snapshot: bool = True) -> Iterator[sqlite3.Connection]:
        """A read, never waiting for writers (WAL): in one consistent snapshot unless ``snapshot`` is False.

        Without ``snapshot`` each statement still sees one consistent state, just not the same one; that
        is enough for a read of a single statement.
        """
        self._check_usable()
        with self._guard(), self._translate_errors(), self._transaction("BEGIN" if snapshot else None) as connection:
            yield connection

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """A write transaction holding the database's write lock from its first statement."""
        self._check_usable()
        with (
            self._guard(),
            self._write_lock,
            self._translate_errors(),
            self._transaction("BEGIN IMMEDIATE") as connection,
        ):
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
            with self._translate_errors():
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
                connection.execute(_CREATE_LINKS)  # empty: links written before stay in the records' metadata
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

    def scopes(self) -> list[tuple[str, str | None]]:
        """Every (user_id, agent_id) holding a record: what ``kioko reembed`` walks (an optional listing)."""
        with self._reading(snapshot=False) as raw:
            rows = raw.execute("SELECT DISTINCT user_id, agent_id FROM kioko_records").fetchall()
        return [(user, agent if agent != _NO_AGENT else None) for user, agent in rows]

    def generation(self, scope: Scope) -> int:
        """The scope's write counter (``kioko_scopes.generation``), shared by every process: ScopeGenerations."""
        found = self._one_read(_SCOPE_GENERATION, _scope_values(check_scope(scope)))
        return int(found[0][0]) if found else 0

    def generations(self, scopes: Sequence[Scope]) -> list[int]:
        """Each scope's :meth:`generation`, in one statement (ManyGenerations; a linked write's plan reads three)."""
        values = [value for scope in scopes for value in _scope_values(check_scope(scope))]
        if not values:
            return []
        found = self._one_read(_scope_generations(len(values) // 2), values)
        return [int(value) for value in found[0]]

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

    # -- links, entry by entry (LinkStore)

    def links(self, scope: Scope, ids: Sequence[str]) -> list[list[dict[str, Any]]]:
        """Each id's link entries in the order last put (:class:`~kioko_core.store.link_store.LinkStore`)."""
        scope = check_scope(scope)
        wanted = list(dict.fromkeys(i for i in ids if isinstance(i, str) and is_storable_text(i)))
        found: dict[str, list[dict[str, Any]]] = {}
        for chunk in _id_chunks(wanted):
            for owner, entry in self._one_read(_select_links(len(chunk)), (*chunk, *_scope_values(scope))):
                found.setdefault(owner, []).append(json.loads(entry))
        return [[dict(e) for e in found.get(i, ())] if isinstance(i, str) else [] for i in ids]

    def update_with_links(
        self, ops: Sequence[Op], changes: Sequence[LinkChange]
    ) -> tuple[list[Record | None], list[int | None]]:
        """``ops`` and then ``changes`` in one transaction (:class:`~kioko_core.store.link_store.LinkStore`)."""
        checked, edits = validate_ops(ops, self.dim), validate_changes(changes)
        if not edits:
            return (self.do_update_many(checked) if checked else []), []
        rows = [_encode_record(op.record) if isinstance(op, Upsert) else None for op in checked]
        puts = [[(other, _json(entry)) for other, entry in change.put] for change in edits]
        touched = list(dict.fromkeys([op.id if isinstance(op, Delete) else op.record.id for op in checked]))
        owners = list(dict.fromkeys(change.owner for change in edits))
        with self._writing() as connection:
            current = self._read_states(connection, list(dict.fromkeys(touched + owners)))
            plan = _plan(checked, current)
            after: dict[str, tuple[Scope, int] | None] = {}  # each owner once the ops are applied
            for owner in owners:
                if owner in plan.final:
                    index = plan.final[owner]
                    row = rows[index] if index is not None else None
                    version = plan.versions[index] if index is not None else None
                    after[owner] = (row.scope, version) if row is not None and version is not None else None
                else:
                    held = current.get(owner)
                    after[owner] = (held.scope, held.version) if held is not None else None
            live = []
            for change in edits:
                found = after[change.owner]
                present = found is not None and found[0] == change.scope
                if change.expected_version is not None and (
                    found is None or not present or found[1] != change.expected_version
                ):
                    shown = f"at version {found[1]}" if present and found is not None else "missing"
                    raise ConflictError(f"record {change.owner!r} is {shown}, expected {change.expected_version}")
                live.append(present)
            generations = self._apply(connection, plan, rows, current) if checked else {}
            bumped: dict[str, Scope] = {}
            applied = [(change, entries) for change, entries, present in zip(edits, puts, live) if present]
            # one owner per change (what the layer sends): three statements for the whole call, in the order one
            # change applies them (clear, drop, put); an owner changed twice is applied change by change
            steps = [applied] if len({c.owner for c, _ in applied}) == len(applied) else [[one] for one in applied]
            for step in steps:
                # an owner the file did not hold before the call owns no entries yet (a record's go with it): a new
                # memory's links are put without a delete first, unless an earlier step of this call put some
                cleared = [(c.owner,) for c, _ in step if c.replace and (c.owner in current or len(steps) > 1)]
                dropped = [(c.owner, other) for c, _ in step for other in c.drop]
                put = [(c.owner, other, entry) for c, entries in step for other, entry in entries]
                if cleared:
                    connection.executemany(_DELETE_LINKS, cleared)
                if dropped:
                    connection.executemany(_DELETE_LINK, dropped)
                if put:
                    connection.executemany(_PUT_LINK, put)
            for change, _ in applied:
                if change.owner not in plan.final:
                    bumped[change.owner] = change.scope
            if bumped:
                connection.executemany(_BUMP_VERSION, [(owner,) for owner in bumped])
                self._count_link_writes(connection, bumped, plan, rows, current, generations)
        changes_made = _vector_changes(plan, rows, current)
        self._vectors.advance(generations, changes_made)
        left = {before for _, before, now_in, _ in changes_made if before is not None and now_in != before}
        if left:
            self._vectors.removed(left)
        stored = [
            _decode_record(row.stamped(version)) if row is not None and version is not None else None
            for row, version in zip(rows, plan.versions)
        ]
        versions: list[int | None] = []
        for change, present in zip(edits, live):
            final = after[change.owner]
            versions.append(None if not present or final is None else final[1] + (change.owner in bumped))
        return stored, versions

    def _count_link_writes(
        self,
        raw: sqlite3.Connection,
        owners: dict[str, Scope],
        plan: _Plan,
        rows: list[_Row | None],
        current: dict[str, _State],
        generations: dict[Scope, int],
    ) -> None:
        """The owners whose links alone changed are records this batch wrote: their scopes advance (once per
        batch, with the ops' own scopes) and the change log names them."""
        counted = set(_scope_deltas(plan, rows, current))
        for scope in dict.fromkeys(owners.values()):
            if scope not in counted:
                if self._vectors.holds(scope):
                    generations[scope] = self._generation(raw, scope)
                raw.execute(_BUMP_SCOPE, (*_scope_values(scope), 0))
            generation = self._generation(raw, scope)
            values = _scope_values(scope)
            raw.executemany(
                _LOG_CHANGE, [(*values, generation, owner) for owner, where in owners.items() if where == scope]
            )

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
            raw.executemany(_DELETE_LINKS, gone)  # a deleted record's links go with it
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
        with self._guard(), self._write_lock, self._translate_errors():
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
