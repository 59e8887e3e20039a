"""PostgresStore: the protocol's reads and writes over the tables, on pooled connections."""

from __future__ import annotations

import re
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np
import psycopg
from pgvector.psycopg.vector import register_vector_info
from psycopg import errors as pg_errors
from psycopg import sql
from psycopg.types import TypeInfo

from kioko_backends._changes import changes_from_rows
from kioko_backends._rows import row_fields
from kioko_backends.postgresql.failover import APPLIED, UNKNOWN, _Recovery, link_versions, outcome, repeatable, results
from kioko_backends.postgresql.links import LinkWrites, plan_links, send_links
from kioko_backends.postgresql.pool import (
    _end_transaction,
    _fetch,
    _NotConnected,
    _pipeline,
    _Pool,
    _scrub,
    _store_error,
    _transaction,
)
from kioko_backends.postgresql.routing import INSERT_POSITION, ReadRouting, insert_position
from kioko_backends.postgresql.schema import _ann_expression, _Schema
from kioko_backends.postgresql.tables import _RECORD_COLUMNS, _agent, _filter_sql, _forgotten_generation, _Names
from kioko_backends.postgresql.url import (
    DEFAULT_FAILOVER_WAIT,
    DEFAULT_POOL_SIZE,
    DEFAULT_TABLE,
    OPTIONS,
    _conninfo,
)
from kioko_backends.postgresql.writes import (
    _encode_records,
    _Existing,
    _LostBeforeWriting,
    _only_inserts,
    _plan,
    _Writes,
)
from kioko_core.errors import ExperimentalWarning
from kioko_core.store import (
    DEFAULT_DIM,
    Capabilities,
    ConflictError,
    ConnectionLostError,
    Delete,
    Filter,
    IdTaken,
    InvalidRecordError,
    Neighbor,
    Op,
    Postings,
    Record,
    Scope,
    ScopeChangeSet,
    StoreError,
    check_scope,
    is_storable_text,
    stamped,
    validate_ops,
)
from kioko_core.store.driver import StoreBase, non_negative_float, positive_int, text
from kioko_core.store.link_store import LinkChange, validate_changes
from kioko_core.store.url import StoreURL

_TABLE_PREFIX = re.compile(r"[a-z_][a-z0-9_]{0,39}")
_EXACT_KNN_BELOW = 2000  # scopes with at most this many vectors are scored exactly (about as fast as HNSW there)
_WRITE_ATTEMPTS = 4  # a lost race on a new id or a deadlock is retried; versions are re-read each time
_MAX_PARTITIONS = 1024

T = TypeVar("T")


class PostgresStore(ReadRouting, StoreBase, _Schema):
    """Records in PostgreSQL tables; knn on pgvector's HNSW index, re-ranked exactly in Python.

    Open with ``kioko.connect("postgresql://user:pass@host:5432/db?dim=384&table=kioko")``. Unknown
    query parameters (``host=/socket/dir``, ``sslmode`` ...) go to libpq.
    """

    capabilities = Capabilities(
        transactions=True,
        native_knn=True,
        persistent=True,
        multi_process=True,
        approximate_knn=True,
        notes=(
            "knn walks pgvector's HNSW index with iterative scans and re-ranks the candidates exactly; "
            "when the index yields too few matches an exact query fills in, in the same round trip",
        ),
    )
    options = OPTIONS
    other_query_options = True  # libpq's own parameters (sslmode, host=/socket/dir ...) pass through

    def __init__(
        self,
        url: StoreURL | str,
        dim: int | None = None,
        *,
        table: str | None = None,
        pool_size: int | None = None,
        partitions: int | None = None,
        read_host: str | None = None,
        distribute: str | None = None,
        replicas: str | None = None,
        replica_reads: str | None = None,
        failover_wait: float | None = None,
    ) -> None:
        """Open the tables ``url`` names, creating them on first use.

        ``partitions`` (``?partitions=N``, N >= 2) creates new tables hash-partitioned by user into N
        partitions; tables that exist keep the layout they were made with (asking for another one is
        refused), so the option matters only for the first open. ``distribute="citus"``
        (``?distribute=citus``) makes new tables Citus distributed tables instead, sharded by user
        (``create_distributed_table`` on ``user_id``, the three co-located; the id registry
        ``{p}_ids`` by ``id``); the database must have the citus extension, and pgvector on every node.

        Several hosts (``postgresql://h1:5432,h2:5432/db?target_session_attrs=read-write``) are libpq's
        failover list: each connection goes to the first that accepts it. When a connection dies, a call
        waits up to ``failover_wait`` seconds (``?failover_wait=``; default 30 with several hosts, 0 with
        one) for a server that accepts again (a promoted standby), then goes on there: a read is repeated,
        a write only when the store shows whether it was applied (see ``failover.py``).

        ``replicas`` (``?replicas=h3:5432,h4:5432``, host[:port] or socket directories; ``?read_host=`` is
        the older name for one) are read replicas, same database, user and password. ``replica_reads``
        says which reads they serve: ``search`` (default: knn, postings and the scope's generation and
        changes, what recall and linking search with) or ``all`` (get and scan too). A replica serves a
        read only once it has replayed everything this process wrote or read on the primary, else the
        primary does (read-your-writes, see ``routing.py``); another process's writes show there after the
        replication delay.
        """
        url = StoreURL.parse(url)
        if url.backend not in ("postgresql", "postgres"):
            raise InvalidRecordError(f"PostgresStore opens postgresql:// URLs, got {url.scheme}://")
        self.url = url
        self.dim = positive_int(dim if dim is not None else url.query.get("dim", DEFAULT_DIM), "dim")
        self.table = table if table is not None else url.query.get("table", DEFAULT_TABLE)
        if not isinstance(self.table, str) or not _TABLE_PREFIX.fullmatch(self.table):
            raise InvalidRecordError(
                f"table prefix {self.table!r} must be 1-40 lowercase letters, digits or '_', "
                "starting with a letter or '_'"
            )
        size = positive_int(
            pool_size if pool_size is not None else url.query.get("pool_size", DEFAULT_POOL_SIZE), "pool_size"
        )
        asked = partitions if partitions is not None else url.query.get("partitions")
        self.partitions: int | None = None if asked is None else positive_int(asked, "partitions")
        if self.partitions is not None and not 2 <= self.partitions <= _MAX_PARTITIONS:
            raise InvalidRecordError(
                f"partitions must be between 2 and {_MAX_PARTITIONS} (or left out for plain tables), "
                f"got {self.partitions}"
            )
        asked_distribute = distribute if distribute is not None else url.query.get("distribute")
        self.distribute: str | None = None if asked_distribute is None else text(asked_distribute, "distribute")
        if self.distribute not in (None, "citus"):
            raise InvalidRecordError(f"distribute must be 'citus' (or left out), got {self.distribute!r}")
        if self.distribute and self.partitions:
            raise InvalidRecordError("choose partitions or distribute=citus, not both: Citus shards the tables itself")
        if self.distribute:
            # its workflow job (.github/workflows/citus.yml) has not been seen green yet
            warnings.warn(
                "distribute=citus is experimental: see docs/scaling-cluster.md", ExperimentalWarning, stacklevel=2
            )
        self._names = _Names(self.table)
        self._ann_expression = _ann_expression(self.dim)
        self._vector_info: TypeInfo | None = None
        self._iterative_scan = False
        conninfo = _conninfo(url)
        # the schema is checked on a connection of its own, so a wrong address or password fails at
        # once (a pool would keep retrying in the background until its timeout)
        try:
            first = psycopg.Connection.connect(conninfo, autocommit=True)
        except psycopg.Error as error:
            raise self._connection_error(error, connecting=True) from None
        with first:
            self._ensure_schema(first)
        asked_wait = failover_wait if failover_wait is not None else url.query.get("failover_wait")
        self.failover_wait = (
            (DEFAULT_FAILOVER_WAIT if url.hosts else 0.0)
            if asked_wait is None
            else non_negative_float(asked_wait, "failover_wait")
        )
        self.round_trips: Counter[str] = Counter()
        self._pool = _Pool(conninfo, size, self._configure, self._connection_error, self.failover_wait)
        self.lost_writes: Counter[str] = Counter()
        """Writes whose connection died after sending, by what the new primary showed: ``applied`` (returned
        without sending again), ``untouched`` (sent again), ``unknown`` (raised)."""
        self._replicas = self._replica_pool(conninfo, size, replicas, read_host, replica_reads)
        if self._replicas is not None:
            # a replica serves nothing older than the store as this open found it (its tables, first of all)
            self._replicas.seen(self._on_primary(insert_position))

    @classmethod
    def open_url(cls, url: StoreURL, options: dict[str, Any]) -> PostgresStore:
        """Open the store ``url`` names, with ``dim``, ``table`` and ``pool_size`` already parsed."""
        return cls(
            url,
            dim=options["dim"],
            table=options["table"],
            pool_size=options["pool_size"],
            partitions=options["partitions"],
            read_host=options["read_host"],
            distribute=options["distribute"],
            replicas=options["replicas"],
            replica_reads=options["replica_reads"],
            failover_wait=options["failover_wait"],
        )

    def __repr__(self) -> str:
        shown = f", partitions={self.partitions}" if self.partitions else ""
        return f"PostgresStore({self.url.render()!r}, table={self.table!r}, dim={self.dim}{shown})"

    def close(self) -> None:
        """Close every pooled connection; a connection in use closes when its call finishes."""
        self._pool.close()
        if self._replicas is not None:
            self._replicas.pool.close()

    def purge(self, scopes: Any = ()) -> bool:
        """Delete the counter rows of emptied ``scopes`` (a forgotten user's): the name must not outlive the
        records. Nothing here rewrites the table files: the deleted rows stay on disk as dead tuples until
        VACUUM makes their space reusable (and a write overwrites it); Kioko runs no VACUUM itself (its cost
        grows with the tables, not with the user). docs/privacy.md has the operator's steps. False: the
        files were not purged."""
        n = self._names
        for user, agent in [(scope.user_id, _agent(scope)) for scope in map(check_scope, scopes)]:
            # a scope without a row reads as the forgotten generation, above every count a forgotten scope
            # reached, so another process's cache of it never matches the scope written anew
            statement = sql.SQL(
                """WITH gone AS (DELETE FROM {scopes} WHERE user_id = %s AND agent_id = %s
                       AND NOT EXISTS (SELECT 1 FROM {records} WHERE user_id = %s AND agent_id = %s)
                       RETURNING generation)
                   INSERT INTO {meta} (key, value) SELECT 'forgotten_generation', (generation + 1)::text FROM gone
                   ON CONFLICT (key) DO UPDATE SET value = greatest({meta}.value::bigint, excluded.value::bigint)::text"""
            ).format(scopes=n.scopes, records=n.records, meta=n.meta)
            # the scope's change log goes too: its removal marks name the user
            forget_changes = sql.SQL(
                """DELETE FROM {changes} WHERE user_id = %s AND agent_id = %s
                   AND NOT EXISTS (SELECT 1 FROM {records} WHERE user_id = %s AND agent_id = %s)"""
            ).format(changes=n.changes, records=n.records)
            with self._writing() as conn:
                with _transaction(conn):
                    conn.execute(statement, [user, agent, user, agent])
                    conn.execute(forget_changes, [user, agent, user, agent])
                if self._replicas is not None:
                    self._replicas.seen(insert_position(conn))
        return False

    def _configure(self, conn: psycopg.Connection) -> None:
        """Per new connection: teach it the vector type (fetched once per store, not per connection)."""
        if self._vector_info is not None:
            register_vector_info(conn, self._vector_info)

    def _connection_error(self, error: BaseException, connecting: bool) -> StoreError:
        detail = _scrub(str(error).strip(), self.url.password)
        where = self.url.render()
        if connecting:
            return ConnectionLostError(
                f"could not connect to PostgreSQL at {where}: {detail}\nCheck that the server is running "
                "and reachable, and the user, password and database name in the URL."
            )
        return ConnectionLostError(
            f"lost the connection to PostgreSQL at {where}: {detail}\nCheck that the server is still "
            "running; nothing of the failed call is guaranteed to have been applied."
        )

    # ------------------------------------------------------------------ reads

    def do_get(self, scope: Scope, ids: list[str]) -> dict[str, Record]:
        query = sql.SQL("SELECT {} FROM {} WHERE id = ANY(%s::text[]) AND user_id = %s AND agent_id = %s").format(
            _RECORD_COLUMNS, self._names.records
        )
        rows = self._read(
            lambda conn: _fetch(conn, query, [ids, scope.user_id, _agent(scope)]), search=False, what="get"
        )
        return {row[0]: self._record(row) for row in rows}

    def get_with_links(
        self, scope: Scope, ids: Sequence[str]
    ) -> tuple[list[Record | None], dict[str, list[dict[str, Any]]]]:
        """``get`` and ``links`` in one statement (:class:`~kioko_core.store.link_store.LinkedGet`): each record row
        carries its entries, aggregated in the order last put (``json_agg`` keeps each entry's text)."""
        scope = check_scope(scope)
        asked, wanted = self._asked(ids)
        if not wanted:
            return self._in_order(asked, {}), {}
        query = sql.SQL(
            "SELECT {}, (SELECT json_agg(l.entry ORDER BY l.seq) FROM {} AS l WHERE l.user_id = r.user_id "
            "AND l.agent_id = r.agent_id AND l.owner = r.id) FROM {} AS r "
            "WHERE r.id = ANY(%s::text[]) AND r.user_id = %s AND r.agent_id = %s"
        ).format(_RECORD_COLUMNS, self._names.links, self._names.records)
        rows = self._read(
            lambda conn: _fetch(conn, query, [wanted, scope.user_id, _agent(scope)]), search=False, what="get"
        )
        found = {row[0]: self._record(row[:-1]) for row in rows}
        held = {row[0]: [dict(e) for e in row[-1]] for row in rows if row[-1]}
        return self._in_order(asked, found), held

    def _get_on_primary(self, scope: Scope, ids: list[str]) -> dict[str, Record]:
        query = sql.SQL("SELECT {} FROM {} WHERE id = ANY(%s::text[]) AND user_id = %s AND agent_id = %s").format(
            _RECORD_COLUMNS, self._names.records
        )
        rows = self._on_primary(lambda conn: _fetch(conn, query, [ids, scope.user_id, _agent(scope)]))
        return {row[0]: self._record(row) for row in rows}

    def generation(self, scope: Scope) -> int:
        """The scope's write counter (``{p}_scopes.generation``), shared by every process: ScopeGenerations.

        Read where postings are read (a replica, with ``?replicas=``), so the postings an index cache fetches
        after it show at least this generation, as the protocol's lookup order expects: a replica serves the
        postings only once it has replayed what any earlier read of this process saw on the primary.
        """
        scope = check_scope(scope)
        query = sql.SQL("SELECT coalesce((SELECT generation FROM {} WHERE user_id = %s AND agent_id = %s), {})").format(
            self._names.scopes, _forgotten_generation(self._names)
        )
        rows = self._read(
            lambda conn: _fetch(conn, query, [scope.user_id, _agent(scope)]), search=True, what="generation"
        )
        return int(rows[0][0]) if rows else 0

    def generations(self, scopes: Sequence[Scope]) -> list[int]:
        """Each scope's :meth:`generation`, in one statement (ManyGenerations): a recall reads its user's scope and
        their entity graph's in one round trip, where :meth:`generation` is read."""
        checked = [check_scope(scope) for scope in scopes]
        if not checked:
            return []
        # a column per scope, each the statement generation() sends: a lookup by the tables' key (and, in tables
        # split by user, routed to that user's partition or shard), where a join would not be
        one = sql.SQL("coalesce((SELECT generation FROM {} WHERE user_id = %s AND agent_id = %s), {})").format(
            self._names.scopes, _forgotten_generation(self._names)
        )
        query = sql.SQL("SELECT ") + sql.SQL(", ").join([one] * len(checked))
        params = [value for scope in checked for value in (scope.user_id, _agent(scope))]
        rows = self._read(lambda conn: _fetch(conn, query, params), search=True, what="generation")
        return [int(value) for value in rows[0]]

    def changes_since(self, scope: Scope, generation: int) -> ScopeChangeSet | None:
        """The ids written into ``scope`` after ``generation`` (``{p}_changes``): ScopeChanges.

        One statement, read where the generation is read, so the rows and the generation agree."""
        scope = check_scope(scope)
        query = sql.SQL(
            """SELECT now.generation, c.generation, c.id
               FROM (SELECT coalesce((SELECT generation FROM {scopes} WHERE user_id = %(u)s AND agent_id = %(a)s),
                                     {forgotten}) AS generation) AS now
               LEFT JOIN {changes} c ON c.user_id = %(u)s AND c.agent_id = %(a)s AND c.generation > %(g)s"""
        ).format(scopes=self._names.scopes, changes=self._names.changes, forgotten=_forgotten_generation(self._names))
        params = {"u": scope.user_id, "a": _agent(scope), "g": int(generation)}
        rows = self._read(lambda conn: _fetch(conn, query, params), search=True, what="changes")
        return changes_from_rows(generation, rows)

    def do_postings(self, scope: Scope, terms: list[str], limit: int) -> Postings:
        n = self._names
        # One statement: n from the counter row, then per term its df row and the first `limit`
        # entries of the (created_at DESC, id) index.
        query = sql.SQL(
            """SELECT coalesce((SELECT with_terms FROM {scopes} WHERE user_id = %(u)s AND agent_id = %(a)s), 0),
                      t.term,
                      coalesce((SELECT d.df FROM {term_df} d
                                 WHERE d.user_id = %(u)s AND d.agent_id = %(a)s AND d.term = t.term), 0),
                      ARRAY(SELECT p.id FROM {postings} p
                             WHERE p.user_id = %(u)s AND p.agent_id = %(a)s AND p.term = t.term
                             ORDER BY p.created_at DESC, p.id LIMIT %(limit)s)
               FROM (SELECT 1) AS one LEFT JOIN unnest(%(terms)s::text[]) AS t(term) ON true"""
        ).format(scopes=n.scopes, postings=n.postings, term_df=n.term_df)
        params = {"u": scope.user_id, "a": _agent(scope), "terms": terms, "limit": limit}
        rows = self._read(lambda conn: _fetch(conn, query, params), search=True, what="postings")
        count = int(rows[0][0]) if rows else 0
        stats = {row[1]: (int(row[2]), list(row[3])) for row in rows if row[1] is not None}
        return Postings(
            n=count,
            df={term: df for term, (df, _) in stats.items()},
            ids={term: ids for term, (_, ids) in stats.items()},
        )

    def do_knn(self, scope: Scope, query: np.ndarray, k: int, filter: Filter | None) -> list[Neighbor]:
        """Candidates from pgvector, re-scored exactly here; the base orders them and cuts at k."""
        fetch = k + min(max(k, 8), 64)  # a margin, so records tied at the k-th score come along (the tie rule)
        rows = self._read(lambda conn: self._knn_candidates(conn, scope, query, fetch, filter), search=True, what="knn")
        seen: dict[str, Any] = {}
        for record_id, embedding in rows:
            seen.setdefault(record_id, embedding)
        if not seen:
            return []
        scores = _cosines(np.stack([_as_array(v) for v in seen.values()]), query)
        return [Neighbor(record_id, score) for record_id, score in zip(seen, scores)]

    def _knn_candidates(
        self, conn: psycopg.Connection, scope: Scope, query: np.ndarray, fetch: int, filter: Filter | None
    ) -> list[tuple[str, Any]]:
        where, params = _filter_sql(filter)
        params.update(u=scope.user_id, a=_agent(scope), q=query, fetch=fetch, exact_below=_EXACT_KNN_BELOW)
        distance: sql.Composable
        if self._ann_expression is not None and self._ann_expression[0] != "embedding":
            distance = sql.SQL("({}) <=> %(q)s::halfvec({})").format(
                sql.SQL(self._ann_expression[0]), sql.Literal(self.dim)
            )
        else:
            distance = sql.SQL("embedding <=> %(q)s")
        # A scope with few vectors is scored exactly: HNSW gains nothing there, and its recall can
        # collapse on many identical vectors. Otherwise the ANN branch walks the HNSW index; if it
        # brings fewer than `fetch` rows (a filter it could not satisfy within its scan budget) the
        # exact branch runs too, in the same statement, and scores every match: a selective filter
        # still yields k. Both decisions are one-time filters, so a branch not needed never runs; the
        # exact branch is gated outside its LIMIT so the gate sits above any parallel Gather and no
        # worker is started for nothing.
        statement = sql.SQL(
            """WITH small AS MATERIALIZED (
                   SELECT coalesce((SELECT with_embedding FROM {scopes}
                                     WHERE user_id = %(u)s AND agent_id = %(a)s), 0) <= %(exact_below)s AS yes),
               ann AS MATERIALIZED (
                   SELECT id, embedding FROM {records}
                    WHERE user_id = %(u)s AND agent_id = %(a)s AND embedding IS NOT NULL {where}
                      AND NOT (SELECT yes FROM small)
                    ORDER BY {distance} LIMIT %(fetch)s)
               SELECT id, embedding FROM ann
               UNION ALL
               SELECT id, embedding FROM (
                   SELECT id, embedding FROM {records}
                    WHERE user_id = %(u)s AND agent_id = %(a)s AND embedding IS NOT NULL {where}
                    ORDER BY (embedding <=> %(q)s) + 0, id LIMIT %(fetch)s) AS exact
                WHERE (SELECT yes FROM small) OR (SELECT count(*) FROM ann) < %(fetch)s"""
        ).format(records=self._names.records, scopes=self._names.scopes, where=where, distance=distance)
        ef_search = str(min(1000, max(100, 2 * fetch)))
        with _pipeline(conn):
            cursor = conn.cursor(binary=True)
            cursor.execute("BEGIN")
            if self._iterative_scan:  # pgvector >= 0.8: keep walking the graph until the filter is met
                cursor.execute(
                    "SELECT set_config('hnsw.ef_search', %s, true), "
                    "set_config('hnsw.iterative_scan', 'relaxed_order', true)",
                    [ef_search],
                )
            else:
                cursor.execute("SELECT set_config('hnsw.ef_search', %s, true)", [ef_search])
            cursor.execute(statement, params)
            result = cursor
            conn.cursor().execute("COMMIT")
        return result.fetchall()

    def do_scan(self, scope: Scope, filter: Filter | None, batch: int) -> Iterator[Record]:
        where, params = _filter_sql(filter)
        params.update(u=scope.user_id, a=_agent(scope), batch=batch)
        query = sql.SQL(
            "SELECT {columns} FROM {records} WHERE user_id = %(u)s AND agent_id = %(a)s AND id > %(after)s "
            "{where} ORDER BY id LIMIT %(batch)s"
        ).format(columns=_RECORD_COLUMNS, records=self._names.records, where=where)
        after = ""
        while True:
            # keyset pagination over ids, one connection checkout per page: records written meanwhile
            # never shift what is left to read, and no connection is held while the caller works
            page = self._read(lambda conn: _fetch(conn, query, {**params, "after": after}), search=False)  # noqa: B023
            for row in page:
                yield self._record(row)
            if len(page) < batch:
                return
            after = page[-1][0]

    def _record(self, row: tuple[Any, ...]) -> Record:
        fields = row_fields(row)
        embedding = fields["embedding"]
        fields.update(
            agent_id=fields["agent_id"] or None,
            terms=list(fields["terms"]),
            embedding=None if embedding is None else _as_array(embedding),
        )
        return Record.model_construct(**fields)

    # ------------------------------------------------------------------ writes

    def do_update_many(self, ops: list[Op]) -> list[Record | None]:
        return self._recovering(ops, [])[0]

    def update_with_links(
        self, ops: Sequence[Op], changes: Sequence[LinkChange]
    ) -> tuple[list[Record | None], list[int | None]]:
        """``ops`` and then ``changes`` in one transaction (:class:`~kioko_core.store.link_store.LinkStore`)."""
        checked, edits = validate_ops(ops, self.dim), validate_changes(changes)
        if not edits:
            return (self.do_update_many(checked) if checked else []), []
        return self._recovering(checked, edits)

    def links(self, scope: Scope, ids: Sequence[str]) -> list[list[dict[str, Any]]]:
        """Each id's link entries in the order last put (:class:`~kioko_core.store.link_store.LinkStore`); read where
        ``get`` reads, so a record and its links come from the same server."""
        scope = check_scope(scope)
        wanted = list(dict.fromkeys(i for i in ids if isinstance(i, str) and is_storable_text(i)))
        found: dict[str, list[dict[str, Any]]] = {}
        if wanted:
            query = sql.SQL(
                "SELECT owner, entry FROM {} WHERE user_id = %s AND agent_id = %s AND owner = ANY(%s::text[]) "
                "ORDER BY owner, seq"
            ).format(self._names.links)
            rows = self._read(lambda conn: _fetch(conn, query, [scope.user_id, _agent(scope), wanted]), search=False)
            for owner, entry in rows:
                found.setdefault(owner, []).append(entry)
        return [[dict(e) for e in found.get(i, ())] if isinstance(i, str) else [] for i in ids]

    def _recovering(self, ops: list[Op], changes: list[LinkChange]) -> tuple[list[Record | None], list[int | None]]:
        """One write call (records, and link changes if any) with the failover rule of ``failover.py``."""
        encoded = _encode_records(ops)
        recovery = _Recovery(self._pool)
        while True:
            try:
                return self._update_once(ops, encoded, changes)
            except _LostBeforeWriting as lost:
                # the connection died before any write was sent, so nothing was applied: try again
                if not recovery.again():
                    raise self._connection_error(lost.error, connecting=False) from None
            except _NotConnected:
                if self.failover_wait <= 0 or not recovery.again():
                    raise
            except ConnectionLostError as lost:
                # sent, perhaps committed: repeated only when the new primary shows which (failover.py)
                if self.failover_wait <= 0 or not repeatable(ops, changes) or not recovery.again():
                    raise
                found = outcome(ops, self._get_on_primary, changes)
                self.lost_writes[found] += 1
                if found == APPLIED:
                    if self._replicas is not None:  # the commit's position was not learnt: take the primary's
                        self._replicas.seen(self._on_primary(insert_position))
                    stored = [None if r is None else r.model_copy(deep=True) for r in results(ops)]
                    return stored, link_versions(ops, changes)
                if found == UNKNOWN:
                    raise ConnectionLostError(
                        f"{lost}\nA server accepts writes again, but the records of this batch are neither as it "
                        "would leave them nor as it expected them (another writer moved them meanwhile): read "
                        "them again before retrying."
                    ) from None

    def _update_once(
        self, ops: list[Op], encoded: dict[int, Any], changes: list[LinkChange]
    ) -> tuple[list[Record | None], list[int | None]]:
        if not changes and _only_inserts(ops):
            return self._insert_only(ops, encoded), []
        for attempt in range(1, _WRITE_ATTEMPTS + 1):
            try:
                return self._write(ops, encoded, changes)
            except (pg_errors.UniqueViolation, pg_errors.DeadlockDetected, pg_errors.SerializationFailure) as error:
                # another process inserted one of our new ids (or locked in the other order) between
                # our read and our write; rereading the versions decides whether that is a conflict
                if attempt == _WRITE_ATTEMPTS:
                    raise ConflictError(
                        f"update_many lost {attempt} races with concurrent writers "
                        f"({type(error).__name__}); nothing was applied: read the records again and retry"
                    ) from None
        raise AssertionError("unreachable")

    def _insert_only(self, ops: Sequence[Op], encoded: dict[int, Any]) -> list[Record | None]:
        """One round trip for a batch of new ids: insert, and let the primary key refuse a taken id.

        Every op expects version 0, so an id that exists, in this scope or another, is a conflict
        whichever op it is; no versions need reading first.
        """
        stored = [stamped(op.record, 0) for op in ops]  # type: ignore[union-attr]
        writes = _Writes()
        for position, record in enumerate(stored):
            writes.insert(record, encoded[position])
        try:
            self._commit(writes)
        except pg_errors.UniqueViolation:
            raise IdTaken(
                "a record id in this batch already exists, in this scope or another (expected_version=0 means it "
                "must not); nothing was applied"
            ) from None
        except (pg_errors.DeadlockDetected, pg_errors.SerializationFailure):
            # only another batch inserting some of the same new ids can lock against this one,
            # and then at most one of the two may succeed
            raise ConflictError(
                "another writer was inserting some of these ids at the same time; nothing was applied"
            ) from None
        return [r.model_copy(deep=True) for r in stored]

    def _write(
        self, ops: Sequence[Op], encoded: dict[int, Any], changes: Sequence[LinkChange]
    ) -> tuple[list[Record | None], list[int | None]]:
        # the link changes' owners are locked with the ops' rows: their versions are checked and bumped
        keys = list(
            dict.fromkeys(
                [op.id if isinstance(op, Delete) else op.record.id for op in ops] + [c.owner for c in changes]
            )
        )
        names = self._names
        columns = "SELECT id, user_id, agent_id, version, terms, created_at, embedding IS NOT NULL FROM {} "
        users: list[str] = []
        if names.sharded:
            # Tables split by user: lock only the batch's users' rows (one partition, or one Citus shard,
            # per user), and learn from {p}_ids which of the other ids belong to other users. The owners
            # are read first, so a row locked after is the newer truth.
            users = sorted(
                {op.scope.user_id if isinstance(op, Delete) else op.record.user_id for op in ops}
                | {change.scope.user_id for change in changes}
            )
            # one user (the usual batch) is an equality, which Citus routes to that user's shard alone
            one_user = len(users) == 1
            lock = sql.SQL(
                columns
                + ("WHERE user_id = %s" if one_user else "WHERE user_id = ANY(%s::text[])")
                + " AND id = ANY(%s::text[]) ORDER BY id FOR UPDATE"
            ).format(names.records)
            lock_params: list[Any] = [users[0] if one_user else users, keys]
        else:
            lock = sql.SQL(columns + "WHERE id = ANY(%s::text[]) ORDER BY id FOR UPDATE").format(names.records)
            lock_params = [keys]
        owners = sql.SQL("SELECT id, user_id FROM {} WHERE id = ANY(%s::text[])").format(names.sharded_ids)
        writes_sent = False
        with self._writing() as conn:
            try:
                with _pipeline(conn):
                    cursor = conn.cursor()
                    cursor.execute("BEGIN")
                    owner_cursor = conn.cursor()
                    if names.sharded:
                        owner_cursor.execute(owners, [keys])
                    cursor.execute(lock, lock_params)
                    self.round_trips["write"] += 1
                    existing = {row[0]: _Existing(*row) for row in cursor.fetchall()}  # round trip 1
                    foreign = (
                        {key: Scope(user) for key, user in owner_cursor.fetchall() if user not in users}
                        if names.sharded
                        else {}
                    )
                    planned = _plan(ops, existing, foreign)
                    links, versions = plan_links(changes, planned, existing)
                    writes_sent = True
                    self._queue_writes(cursor, planned, existing, encoded, links)
                    cursor.execute("COMMIT")
                    position = self._queue_position(conn)
                # leaving the pipeline syncs: round trip 2
                self.round_trips["write"] += 1
                self._note_position(position)
            except psycopg.OperationalError as error:
                if not writes_sent and self._pool.is_connection_failure(error):
                    raise _LostBeforeWriting(error) from None
                raise
        return [s.model_copy(deep=True) if s is not None else None for _, s, _ in planned], versions

    def _queue_writes(
        self,
        cursor: psycopg.Cursor,
        planned: list[tuple[Op, Record | None, bool]],
        existing: dict[str, _Existing],
        encoded: dict[int, Any],
        links: LinkWrites,
    ) -> None:
        """Queue the statements that take the locked rows (and the owners' links) to the batch's final state."""
        writes = _Writes()
        final: dict[str, tuple[Record | None, int]] = {}
        for position, (op, stored, exists) in enumerate(planned):
            if stored is not None:
                final[stored.id] = (stored, position)
            elif exists:
                final[op.id] = (None, position)  # type: ignore[union-attr]
        for record_id, (record, position) in final.items():
            before = existing.get(record_id)
            if record is None:
                if before is not None:
                    writes.delete(before)
            elif before is None:
                writes.insert(record, encoded[position])
            elif self._names.sharded and before.scope.user_id != record.user_id:
                # a row never changes user in place: Citus refuses to update the distribution column
                writes.delete(before)
                writes.insert(record, encoded[position])
            else:
                writes.update(before, record, encoded[position])
        for row in links.bumped:
            writes.touch(row)
        writes.send(cursor, self._names)
        send_links(cursor, self._names, links)

    def _commit(self, writes: _Writes) -> None:
        """Send ``writes`` in one transaction and one round trip."""
        with self._writing() as conn:
            with _pipeline(conn):
                cursor = conn.cursor()
                cursor.execute("BEGIN")
                writes.send(cursor, self._names)
                cursor.execute("COMMIT")
                position = self._queue_position(conn)
            self.round_trips["write"] += 1
            self._note_position(position)

    def _queue_position(self, conn: psycopg.Connection) -> psycopg.Cursor | None:
        """With replicas, the primary's WAL position asked right behind a COMMIT, in the same round trip."""
        if self._replicas is None:
            return None
        cursor = conn.cursor()
        cursor.execute(INSERT_POSITION)
        return cursor

    def _note_position(self, cursor: psycopg.Cursor | None) -> None:
        """Committed: a replica serves this process again once it has replayed this far (routing.py)."""
        if cursor is not None and self._replicas is not None:
            row = cursor.fetchone()
            self._replicas.seen(int(row[0]) if row else 0)

    @contextmanager
    def _writing(self) -> Iterator[psycopg.Connection]:
        """A pooled connection for one write transaction; errors become Kioko's, the transaction ends."""
        try:
            with self._pool.connection() as conn:
                try:
                    yield conn
                finally:
                    _end_transaction(conn)
        except (
            ConflictError,
            InvalidRecordError,
            pg_errors.UniqueViolation,
            pg_errors.DeadlockDetected,
            pg_errors.SerializationFailure,
        ):
            raise
        except _LostBeforeWriting:
            self._pool.discard_idle()
            raise
        except psycopg.OperationalError as error:
            if self._pool.is_connection_failure(error):
                self._pool.discard_idle()
                raise self._connection_error(error, connecting=False) from None
            raise _store_error(error, self.url.password) from error
        except UnicodeEncodeError as error:
            raise InvalidRecordError(
                f"a text field cannot be encoded as UTF-8 ({error.reason}); nothing was written"
            ) from None
        except psycopg.Error as error:
            raise _store_error(error, self.url.password) from error


def _cosines(matrix: np.ndarray, query: np.ndarray) -> list[float]:
    """Cosine similarity of each row with ``query``, as float32 values like the reference driver's.

    Each row is reduced on its own in float64, so identical vectors always get identical scores
    (a BLAS matrix-vector product may round a row differently depending on where it sits) and ties
    are then broken by id.
    """
    rows, q = matrix.astype(np.float64), query.astype(np.float64)
    scores = (rows * q).sum(axis=1) / (np.sqrt((rows * rows).sum(axis=1)) * np.sqrt((q * q).sum()))
    return [float(score) for score in scores.astype(np.float32)]


def _as_array(value: Any) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value.astype(np.float32, copy=True)
    return np.array(value.to_numpy(), dtype=np.float32)  # a fresh, writable copy
