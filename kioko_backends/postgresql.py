"""``postgresql://``: PostgreSQL with pgvector, for many processes sharing one store.

Layout (``{p}`` is the ``?table=`` prefix, ``kioko`` by default, so several stores share a database):

``{p}_records``
    One row per record. ``agent_id`` None is stored as ``''`` so a scope is a plain equality. Text
    columns that are compared or ordered use the "C" collation, so ids sort by code point exactly as
    Python's ``sorted`` does. ``metadata`` is ``json`` rather than ``jsonb``: ``json`` keeps the text
    as written, so key order and float spelling round-trip exactly. An HNSW index (cosine) serves knn.
``{p}_postings``
    One row per (record, term), with a btree on ``(user_id, agent_id, term, created_at DESC, id)``:
    a term's newest ids are the first ``limit`` index entries.
``{p}_term_df``
    Per scope and term, how many postings it has (the term's df), changed in the same transaction as
    the postings. Counting the postings instead grows with the store: ``k:episodic`` holds every
    episode of a user, so at a million memories one count read a million index entries per question.
``{p}_scopes``
    Per scope, how many records have at least one term (postings' ``n``) and how many have a vector
    (which decides between exact and HNSW knn), and its ``generation``: how many committed batches
    touched it (ScopeGenerations), so every process's index cache sees another's write at its next
    lookup. Updated in the same transaction as the records.
``{p}_changes``
    Per scope and generation, the ids the batch wrote into the scope (ScopeChanges), for the last
    ``CHANGES_KEPT`` generations; a batch that removed a record from the scope leaves one row of id
    ``''`` instead, and the removed ids' rows go in the same transaction (see ``_changes.py``).
``{p}_meta``
    ``schema_version`` and ``dim``, so a reopen with another vector length fails loudly, and the layout.

Split by user (``?partitions=N``: hash partitions; ``?distribute=citus``: Citus distributed tables),
the three data tables are keyed by user, records have no primary key of their own, and ``{p}_ids``
(id primary key, user) keeps ids unique across users; see docs/scaling-cluster.md.
``?read_host=`` sends knn and postings to a read replica.

Round trips: a read is one; knn is one (its settings, the HNSW query and an exact fallback travel in
one pipeline); update_many is two (lock and read versions, then write and commit), or one for a batch
that only inserts ids with ``expected_version=0``.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np
import psycopg
from pgvector.psycopg.vector import register_vector_info
from psycopg import errors as pg_errors
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.pq import TransactionStatus
from psycopg.types import TypeInfo
from psycopg.types.json import Json
from psycopg_pool import ConnectionPool, PoolTimeout

from kioko_core.driver import DIM, Option, StoreBase, positive_int, text
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
    Upsert,
    check_scope,
    plan_batch,
    stamped,
)
from kioko_core.url import StoreURL

from ._changes import REMOVAL, batch_changes, changes_from_rows
from ._rows import row_fields

SCHEMA_VERSION = 4
"""Bumped whenever the tables change shape; a store refuses tables newer than it understands.
2: ``{p}_term_df`` (tables of schema 1 gain it, counted from their postings, when first opened).
3: ``{p}_scopes.generation`` (older tables gain it at 0, the generation of a scope never written).
4: ``{p}_changes`` (created empty: caches of older generations rebuild once)."""

CHANGES_KEPT = 256
"""Generations per scope whose written ids ``{p}_changes`` keeps: a cache further behind rebuilds."""

DEFAULT_TABLE = "kioko"
DEFAULT_POOL_SIZE = 4
OPTIONS = {
    "dim": DIM,
    "table": Option(text, DEFAULT_TABLE),
    "pool_size": Option(positive_int, DEFAULT_POOL_SIZE),
    "partitions": Option(positive_int),
    "read_host": Option(text),
    "distribute": Option(text),
}
KIOKO_QUERY_KEYS = frozenset(OPTIONS)
"""Query parameters Kioko reads itself; every other one goes to libpq, which refuses what it does not know."""

_TABLE_PREFIX = re.compile(r"[a-z_][a-z0-9_]{0,39}")
_SCHEMA_LOCK_KEY = 0x6B696F6B6F  # "kioko": one advisory lock for all schema work, across prefixes
_HNSW_MAX_DIM_VECTOR = 2000  # pgvector's HNSW limit for `vector`; up to 4000 it can index a halfvec cast
_HNSW_MAX_DIM_HALFVEC = 4000
_EXACT_KNN_BELOW = 2000  # scopes with at most this many vectors are scored exactly (about as fast as HNSW there)
_POOL_TIMEOUT = 30.0  # seconds a call waits for a pooled connection before ConnectionLostError
_POOL_MAX_IDLE = 300.0  # an idle connection older than this is closed; a later call opens another
_WRITE_ATTEMPTS = 4  # a lost race on a new id or a deadlock is retried; versions are re-read each time
_MAX_PARTITIONS = 1024

T = TypeVar("T")

# Connections inherited by a forked child must never be closed there (closing would end the parent's
# session on the server), so the child parks them here for the rest of its life.
_ABANDONED_AFTER_FORK: list[Any] = []


class PostgresStore(StoreBase):
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
    ) -> None:
        """Open the tables ``url`` names, creating them on first use.

        ``partitions`` (``?partitions=N``, N >= 2) creates new tables hash-partitioned by user into N
        partitions; tables that exist keep the layout they were made with (asking for another one is
        refused), so the option matters only for the first open. ``distribute="citus"``
        (``?distribute=citus``) makes new tables Citus distributed tables instead, sharded by user
        (``create_distributed_table`` on ``user_id``, the three co-located; the id registry
        ``{p}_ids`` by ``id``); the database must have the citus extension, and pgvector on every node.

        ``read_host`` (``?read_host=replica:5432`` or a socket directory) names a read replica, same
        database, user and password: knn and postings (what recall and linking search with) are read
        there, everything else on the primary. A replica lags its primary, so a record just written
        may be missing from those two reads for the replication delay.
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
        self._pool = _Pool(conninfo, size, self._configure, self._connection_error)
        asked_replica = read_host if read_host is not None else url.query.get("read_host")
        self.read_host = None if asked_replica is None else text(asked_replica, "read_host")
        self._search_pool = (
            self._pool
            if self.read_host is None
            else _Pool(_replica_conninfo(conninfo, self.read_host), size, self._configure, self._connection_error)
        )

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
        )

    def __repr__(self) -> str:
        shown = f", partitions={self.partitions}" if self.partitions else ""
        return f"PostgresStore({self.url.render()!r}, table={self.table!r}, dim={self.dim}{shown})"

    def close(self) -> None:
        """Close every pooled connection; a connection in use closes when its call finishes."""
        self._pool.close()
        if self._search_pool is not self._pool:
            self._search_pool.close()

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
        return False

    # ------------------------------------------------------------------ schema

    def _ensure_schema(self, conn: psycopg.Connection) -> None:
        """Create the tables on first use, under an advisory lock; check version and dim every time."""
        meta = self._read_meta(conn)
        if meta is None or int(meta.get("schema_version", 0)) < SCHEMA_VERSION:
            with _transaction(conn):
                conn.execute("SELECT pg_advisory_xact_lock(%s)", [_SCHEMA_LOCK_KEY])
                self._create_schema(conn)
            meta = self._read_meta(conn) or {}
        stored_version = int(meta.get("schema_version", 0))
        if stored_version > SCHEMA_VERSION:
            raise StoreError(
                f"tables {self.table}_* were written by a newer Kioko (schema {stored_version}, this one "
                f"understands {SCHEMA_VERSION}); upgrade kioko or open another ?table="
            )
        stored_partitions = int(meta.get("partitions", "0")) or None
        stored_distribute = meta.get("distribute") or None
        if self.distribute is not None and stored_distribute != self.distribute:
            raise InvalidRecordError(
                f"tables {self.table}_* exist and are not Citus distributed tables; a layout is chosen when the "
                "tables are created: use another ?table= (or database) for distribute=citus"
            )
        self.distribute = stored_distribute
        if self.partitions is not None and stored_partitions != self.partitions:
            made = f"hash-partitioned by user into {stored_partitions}" if stored_partitions else "without partitions"
            raise InvalidRecordError(
                f"tables {self.table}_* exist, made {made}; a layout is chosen when the tables are created: "
                "open them without ?partitions=, or use another ?table= for the other layout"
            )
        self.partitions = stored_partitions
        self._names.sharded = stored_partitions is not None or stored_distribute is not None
        stored_dim = int(meta.get("dim", self.dim))
        if stored_dim != self.dim:
            raise InvalidRecordError(
                f"tables {self.table}_* in this database hold {stored_dim}-dimensional vectors, not "
                f"{self.dim}; open the store with ?dim={stored_dim}, or use another ?table= for {self.dim}"
            )
        row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
        self._iterative_scan = row is not None and _version_tuple(row[0]) >= (0, 8)
        self._vector_info = TypeInfo.fetch(conn, "vector")
        if self._vector_info is None:
            raise StoreError("the pgvector extension is not installed in this database")
        register_vector_info(conn, self._vector_info)

    def _read_meta(self, conn: psycopg.Connection) -> dict[str, str] | None:
        try:
            rows = conn.execute(sql.SQL("SELECT key, value FROM {}").format(self._names.meta)).fetchall()
        except pg_errors.UndefinedTable:
            return None
        return dict(rows)

    def _create_schema(self, conn: psycopg.Connection) -> None:
        installed = conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone()
        if installed is None:
            try:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            except pg_errors.InsufficientPrivilege:
                raise StoreError(
                    "the pgvector extension is not installed in this database and this user may not "
                    "install it; ask an administrator to run CREATE EXTENSION vector in it"
                ) from None
            except pg_errors.FeatureNotSupported as error:
                raise StoreError(f"pgvector is not available on this server: {error}") from None
        n = self._names
        # inside the schema transaction, so asked without raising (an error would abort the transaction)
        made = conn.execute("SELECT to_regclass(%s)", [f"{n.prefix}_meta"]).fetchone()
        existing = self._read_meta(conn) if made is not None and made[0] is not None else None
        if existing is not None:
            # tables being upgraded: new tables take the layout the others were made with, whatever is asked
            # (a layout asked that differs is refused after this, by _ensure_schema)
            partitions: int | None = int(existing.get("partitions", "0")) or None
            citus = existing.get("distribute") == "citus"
        else:
            partitions, citus = self.partitions, self.distribute == "citus"
        if citus and conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'citus'").fetchone() is None:
            raise StoreError("distribute=citus needs the citus extension in this database: CREATE EXTENSION citus")
        # Partitioned by user, a table's unique keys must hold user_id, so the records' primary key is
        # (user_id, id) and the {p}_ids table keeps record ids unique across users.
        by_user = sql.SQL(" PARTITION BY HASH (user_id)") if partitions else sql.SQL("")
        id_key = sql.SQL("") if partitions or citus else sql.SQL(" PRIMARY KEY")
        storage = sql.SQL("") if partitions else sql.SQL(" WITH (fillfactor = 90)")
        statements = [
            sql.SQL("CREATE TABLE IF NOT EXISTS {} (key text PRIMARY KEY, value text NOT NULL)").format(n.meta),
            sql.SQL(
                """CREATE TABLE IF NOT EXISTS {records} (
                    id text COLLATE "C"{id_key},
                    user_id text COLLATE "C" NOT NULL,
                    agent_id text COLLATE "C" NOT NULL,
                    kind text COLLATE "C" NOT NULL,
                    content text NOT NULL,
                    metadata json NOT NULL,
                    terms text[] NOT NULL,
                    embedding vector({dim}),
                    session_id text COLLATE "C",
                    created_at double precision NOT NULL,
                    updated_at double precision NOT NULL,
                    version integer NOT NULL
                ){storage}{by_user}"""
            ).format(records=n.records, dim=sql.Literal(self.dim), id_key=id_key, storage=storage, by_user=by_user),
            sql.SQL("CREATE UNIQUE INDEX IF NOT EXISTS {} ON {} (user_id, agent_id, id)").format(
                n.index("records_scope_id"), n.records
            ),
            sql.SQL(
                "CREATE INDEX IF NOT EXISTS {} ON {} (user_id, agent_id, session_id) WHERE session_id IS NOT NULL"
            ).format(n.index("records_session"), n.records),
            sql.SQL(
                """CREATE TABLE IF NOT EXISTS {} (
                    user_id text COLLATE "C" NOT NULL,
                    agent_id text COLLATE "C" NOT NULL,
                    term text COLLATE "C" NOT NULL,
                    created_at double precision NOT NULL,
                    id text COLLATE "C" NOT NULL
                ){}"""
            ).format(n.postings, by_user),
            sql.SQL("CREATE UNIQUE INDEX IF NOT EXISTS {} ON {} (user_id, agent_id, term, created_at DESC, id)").format(
                n.index("postings_term"), n.postings
            ),
            sql.SQL(
                """CREATE TABLE IF NOT EXISTS {} (
                    user_id text COLLATE "C" NOT NULL,
                    agent_id text COLLATE "C" NOT NULL,
                    with_terms bigint NOT NULL,
                    with_embedding bigint NOT NULL,
                    generation bigint NOT NULL DEFAULT 0,
                    PRIMARY KEY (user_id, agent_id)
                ){}"""
            ).format(n.scopes, by_user),
            sql.SQL(
                """CREATE TABLE IF NOT EXISTS {} (
                    user_id text COLLATE "C" NOT NULL,
                    agent_id text COLLATE "C" NOT NULL,
                    term text COLLATE "C" NOT NULL,
                    df bigint NOT NULL,
                    PRIMARY KEY (user_id, agent_id, term)
                ){}"""
            ).format(n.term_df, by_user),
            sql.SQL(
                """CREATE TABLE IF NOT EXISTS {} (
                    user_id text COLLATE "C" NOT NULL,
                    agent_id text COLLATE "C" NOT NULL,
                    generation bigint NOT NULL,
                    id text COLLATE "C" NOT NULL,
                    PRIMARY KEY (user_id, agent_id, generation, id)
                ){}"""
            ).format(n.changes, by_user),
        ]
        if partitions or citus:
            statements += [
                sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} (id)").format(n.index("records_id"), n.records),
                sql.SQL(
                    'CREATE TABLE IF NOT EXISTS {} (id text COLLATE "C" PRIMARY KEY, user_id text COLLATE "C" NOT NULL)'
                ).format(n.sharded_ids),
            ]
            for table in ("records", "postings", "scopes", "term_df", "changes"):
                for remainder in range(partitions or 0):
                    statements.append(
                        sql.SQL(
                            "CREATE TABLE IF NOT EXISTS {} PARTITION OF {} FOR VALUES WITH (MODULUS {}, REMAINDER {}){}"
                        ).format(
                            n.index(f"{table}_p{remainder}"),
                            sql.Identifier(f"{n.prefix}_{table}"),
                            sql.Literal(partitions),
                            sql.Literal(remainder),
                            sql.SQL(" WITH (fillfactor = 90)") if table == "records" else sql.SQL(""),
                        )
                    )
        if self._ann_expression is not None:
            expression, opclass = self._ann_expression
            statements.append(
                sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} USING hnsw (({}) {})").format(
                    n.index("records_hnsw"), n.records, sql.SQL(expression), sql.SQL(opclass)
                )
            )
        if citus:
            # every user's records, postings and counters on one shard (co-located); ids by id. Tables
            # distributed by an earlier open (an upgrade) are left as they are.
            distributed = {
                row[0] for row in conn.execute("SELECT logicalrelid::regclass::text FROM pg_dist_partition").fetchall()
            }
            statements += [
                sql.SQL("SELECT create_distributed_table({}, 'user_id')").format(sql.Literal(f"{n.prefix}_records")),
                *(
                    sql.SQL("SELECT create_distributed_table({}, 'user_id', colocate_with => {})").format(
                        sql.Literal(f"{n.prefix}_{table}"), sql.Literal(f"{n.prefix}_records")
                    )
                    for table in ("postings", "scopes", "term_df", "changes")
                ),
                sql.SQL("SELECT create_distributed_table({}, 'id')").format(sql.Literal(f"{n.prefix}_ids")),
                sql.SQL("SELECT create_reference_table({})").format(sql.Literal(f"{n.prefix}_meta")),
            ]
        for statement in statements:
            if citus and _distributes(statement, distributed):
                continue
            conn.execute(statement)
        stored = int((self._read_meta(conn) or {}).get("schema_version", SCHEMA_VERSION))
        if stored < 3:
            # every scope starts at 0, as a scope without a row reads; partitions and Citus shards gain
            # the column with their parent. A process of an older Kioko still writing does not advance
            # it: its writes reach other processes' caches only at their ttl, as before.
            conn.execute(
                sql.SQL("ALTER TABLE {} ADD COLUMN IF NOT EXISTS generation bigint NOT NULL DEFAULT 0").format(n.scopes)
            )
        if stored < 2:
            # tables of schema 1 have postings and no df rows: count them once. The share lock holds
            # back writers of an older Kioko still running, so no posting lands between count and commit.
            if not citus:
                conn.execute(sql.SQL("LOCK TABLE {} IN SHARE MODE").format(n.postings))
            conn.execute(
                sql.SQL(
                    """INSERT INTO {df} (user_id, agent_id, term, df)
                       SELECT user_id, agent_id, term, count(*) FROM {postings} GROUP BY 1, 2, 3
                       ON CONFLICT (user_id, agent_id, term) DO UPDATE SET df = excluded.df"""
                ).format(df=n.term_df, postings=n.postings)
            )
        conn.execute(
            sql.SQL(
                "INSERT INTO {} (key, value) VALUES ('schema_version', %s), ('dim', %s), ('partitions', %s), "
                "('distribute', %s) ON CONFLICT (key) DO NOTHING"
            ).format(n.meta),
            [str(SCHEMA_VERSION), str(self.dim), str(partitions or 0), self.distribute or ""],
        )
        conn.execute(
            sql.SQL("UPDATE {} SET value = %s WHERE key = 'schema_version'").format(n.meta), [str(SCHEMA_VERSION)]
        )

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
        rows = self._read(lambda conn: _fetch(conn, query, [ids, scope.user_id, _agent(scope)]))
        return {row[0]: self._record(row) for row in rows}

    def generation(self, scope: Scope) -> int:
        """The scope's write counter (``{p}_scopes.generation``), shared by every process: ScopeGenerations.

        Read where postings are read (the replica, with ``?read_host=``), so the postings an index cache
        fetches after it show at least this generation, as the protocol's lookup order expects.
        """
        scope = check_scope(scope)
        query = sql.SQL("SELECT coalesce((SELECT generation FROM {} WHERE user_id = %s AND agent_id = %s), {})").format(
            self._names.scopes, _forgotten_generation(self._names)
        )
        rows = self._read(lambda conn: _fetch(conn, query, [scope.user_id, _agent(scope)]), self._search_pool)
        return int(rows[0][0]) if rows else 0

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
        rows = self._read(lambda conn: _fetch(conn, query, params), self._search_pool)
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
        rows = self._read(lambda conn: _fetch(conn, query, params), self._search_pool)
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
        rows = self._read(lambda conn: self._knn_candidates(conn, scope, query, fetch, filter), self._search_pool)
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
            page = self._read(lambda conn: _fetch(conn, query, {**params, "after": after}))  # noqa: B023 (called at once)
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

    def _read(self, work: Callable[[psycopg.Connection], T], pool: _Pool | None = None) -> T:
        """Run a read (on the primary, or on ``pool``); a read is safe to repeat, so a dead connection is replaced once."""
        pool = pool or self._pool
        for attempt in (1, 2):
            try:
                with pool.connection() as conn:
                    try:
                        return work(conn)
                    finally:
                        _end_transaction(conn)
            except psycopg.OperationalError as error:
                if not pool.is_connection_failure(error):
                    raise _store_error(error, self.url.password) from error
                pool.discard_idle()  # the server went away: its other sessions are gone too
                if attempt == 2:
                    error_text = self._connection_error(error, connecting=False)
                    if pool is not self._pool:
                        raise type(error_text)(f"{error_text} (the read replica {self.read_host})") from None
                    raise error_text from None
            except psycopg.Error as error:
                raise _store_error(error, self.url.password) from error
            except UnicodeEncodeError as error:
                raise InvalidRecordError(
                    f"an argument cannot be encoded as UTF-8 ({error.reason}), so PostgreSQL cannot compare it"
                ) from None
        raise AssertionError("unreachable")

    # ------------------------------------------------------------------ writes

    def do_update_many(self, ops: list[Op]) -> list[Record | None]:
        encoded = _encode_records(ops)
        if _only_inserts(ops):
            return self._insert_only(ops, encoded)
        lost_before_writing = 0
        for attempt in range(1, _WRITE_ATTEMPTS + 1):
            try:
                return self._write(ops, encoded)
            except _LostBeforeWriting as lost:
                # the connection died before any write was sent, so nothing was applied: one retry
                lost_before_writing += 1
                if lost_before_writing > 1:
                    raise self._connection_error(lost.error, connecting=False) from None
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

    def _write(self, ops: Sequence[Op], encoded: dict[int, Any]) -> list[Record | None]:
        keys = list(dict.fromkeys(op.id if isinstance(op, Delete) else op.record.id for op in ops))
        names = self._names
        columns = "SELECT id, user_id, agent_id, version, terms, created_at, embedding IS NOT NULL FROM {} "
        users: list[str] = []
        if names.sharded:
            # Tables split by user: lock only the batch's users' rows (one partition, or one Citus shard,
            # per user), and learn from {p}_ids which of the other ids belong to other users. The owners
            # are read first, so a row locked after is the newer truth.
            users = sorted({op.scope.user_id if isinstance(op, Delete) else op.record.user_id for op in ops})
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
                    existing = {row[0]: _Existing(*row) for row in cursor.fetchall()}  # round trip 1
                    foreign = (
                        {key: Scope(user) for key, user in owner_cursor.fetchall() if user not in users}
                        if names.sharded
                        else {}
                    )
                    planned = _plan(ops, existing, foreign)
                    writes_sent = True
                    self._queue_writes(cursor, planned, existing, encoded)
                    cursor.execute("COMMIT")
                # leaving the pipeline syncs: round trip 2
            except psycopg.OperationalError as error:
                if not writes_sent and self._pool.is_connection_failure(error):
                    raise _LostBeforeWriting(error) from None
                raise
        return [s.model_copy(deep=True) if s is not None else None for _, s, _ in planned]

    def _queue_writes(
        self,
        cursor: psycopg.Cursor,
        planned: list[tuple[Op, Record | None, bool]],
        existing: dict[str, _Existing],
        encoded: dict[int, Any],
    ) -> None:
        """Queue the statements that take the locked rows to the batch's final state."""
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
        writes.send(cursor, self._names)

    def _commit(self, writes: _Writes) -> None:
        """Send ``writes`` in one transaction and one round trip."""
        with self._writing() as conn:
            with _pipeline(conn):
                cursor = conn.cursor()
                cursor.execute("BEGIN")
                writes.send(cursor, self._names)
                cursor.execute("COMMIT")

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


class _LostBeforeWriting(Exception):
    """The connection failed while a write was still reading versions: nothing can have been applied."""

    def __init__(self, error: psycopg.OperationalError) -> None:
        super().__init__(str(error))
        self.error = error


# ---------------------------------------------------------------------- planning (mirrors MemoryStore)


class _Existing:
    """A locked row as the write transaction found it."""

    __slots__ = ("id", "scope", "version", "terms", "created_at", "has_embedding")

    def __init__(
        self,
        record_id: str,
        user_id: str,
        agent_id: str,
        version: int,
        terms: list[str],
        created_at: float,
        has_embedding: bool,
    ) -> None:
        self.id = record_id
        self.scope = Scope(user_id, agent_id or None)
        self.version = version
        self.terms = list(terms)
        self.created_at = created_at
        self.has_embedding = has_embedding


def _plan(
    ops: Sequence[Op], existing: dict[str, _Existing], foreign: dict[str, Scope]
) -> list[tuple[Op, Record | None, bool]]:
    """Check every op against the state the batch would see: the protocol's shared rules.

    ``foreign`` holds ids that belong to users outside the batch (tables split by user): only their
    scope matters, since an upsert of one is refused and a delete of one does nothing.
    """
    current = {key: (scope, 1) for key, scope in foreign.items() if key not in existing}
    current.update({key: (row.scope, row.version) for key, row in existing.items()})
    return plan_batch(ops, current)


def _only_inserts(ops: Sequence[Op]) -> bool:
    """True for a batch of upserts of distinct ids that all expect no record (expected_version=0)."""
    ids = [op.record.id for op in ops if isinstance(op, Upsert) and op.expected_version == 0]
    return len(ids) == len(ops) and len(set(ids)) == len(ids)


class _Writes:
    """The statements one transaction sends, gathered first so they travel in one pipeline."""

    def __init__(self) -> None:
        self.inserts: list[tuple[Any, ...]] = []
        self.updates: list[tuple[Any, ...]] = []
        self.deleted_ids: list[str] = []
        self.new_owners: list[tuple[str, str]] = []
        """(id, user_id) of inserted rows, for {p}_ids when the tables are split by user."""
        self.postings_out: list[tuple[str, str, str, float, str]] = []
        self.postings_in: list[tuple[str, str, str, float, str]] = []
        self.finals: list[tuple[str, Scope | None, Scope | None]] = []
        """(id, scope before, scope after) of every changed row, for {p}_changes."""
        self.counts: dict[tuple[str, str], list[int]] = {}
        """Per scope touched (every one, even at no change), the change in (records with terms, records with
        an embedding); each of these scopes' generation advances by one."""

    def insert(self, record: Record, metadata: Any) -> None:
        self.inserts.append(_row(record, metadata))
        self.new_owners.append((record.id, record.user_id))
        self.finals.append((record.id, None, record.scope))
        self._postings(None, record)
        self._count(record.scope, bool(record.terms), record.embedding is not None)

    def update(self, before: _Existing, record: Record, metadata: Any) -> None:
        """Replace a locked row. Its scope may differ: a batch may delete an id, then reuse it elsewhere."""
        self.updates.append(_row(record, metadata)[1:] + (record.id,))
        self.finals.append((record.id, before.scope, record.scope))
        self._postings(before, record)
        self._count(record.scope, bool(record.terms), record.embedding is not None)
        self._count(before.scope, bool(before.terms), before.has_embedding, sign=-1)

    def delete(self, before: _Existing) -> None:
        self.deleted_ids.append(before.id)
        self.finals.append((before.id, before.scope, None))
        self._postings(before, None)
        self._count(before.scope, bool(before.terms), before.has_embedding, sign=-1)

    def _postings(self, before: _Existing | None, record: Record | None) -> None:
        """Only the difference: a record whose scope, terms and created_at stay put touches no posting."""
        keep: set[str] = set()
        if (
            before is not None
            and record is not None
            and (before.scope, before.created_at) == (record.scope, record.created_at)
        ):
            keep = set(record.terms).intersection(before.terms)
        if before is not None:
            user, agent = before.scope.user_id, before.scope.agent_id or ""
            self.postings_out += [(user, agent, t, before.created_at, before.id) for t in before.terms if t not in keep]
        if record is not None:
            user, agent = record.user_id, record.agent_id or ""
            self.postings_in += [(user, agent, t, record.created_at, record.id) for t in record.terms if t not in keep]

    def _count(self, scope: Scope, with_terms: bool, with_embedding: bool, sign: int = 1) -> None:
        delta = self.counts.setdefault((scope.user_id, scope.agent_id or ""), [0, 0])
        delta[0] += sign * with_terms
        delta[1] += sign * with_embedding

    def send(self, cursor: psycopg.Cursor, names: _Names) -> None:
        if self.postings_out:
            cursor.execute(
                sql.SQL(
                    """DELETE FROM {} p USING unnest(%s::text[], %s::text[], %s::text[], %s::float8[], %s::text[])
                           AS d(user_id, agent_id, term, created_at, id)
                       WHERE p.user_id = d.user_id AND p.agent_id = d.agent_id AND p.term = d.term
                         AND p.created_at = d.created_at AND p.id = d.id"""
                ).format(names.postings),
                _columns(self.postings_out, 5),
            )
        if self.deleted_ids:
            cursor.execute(
                sql.SQL("DELETE FROM {} WHERE id = ANY(%s::text[])").format(names.records), [self.deleted_ids]
            )
            if names.sharded:
                cursor.execute(
                    sql.SQL("DELETE FROM {} WHERE id = ANY(%s::text[])").format(names.sharded_ids), [self.deleted_ids]
                )
        # rows in id order, so two batches touching the same ids wait for each other instead of deadlocking
        self.updates.sort(key=lambda row: row[-1])
        self.inserts.sort(key=lambda row: row[0])
        if self.updates:
            # split by user, the row's user (the same before and after) names its partition or shard
            cursor.executemany(
                sql.SQL(
                    "UPDATE {} SET user_id = %s, agent_id = %s, kind = %s, content = %s, metadata = %s, "
                    "terms = %s::text[], embedding = %s, session_id = %s, created_at = %s, updated_at = %s, "
                    "version = %s WHERE id = %s{}"
                ).format(names.records, sql.SQL(" AND user_id = %s") if names.sharded else sql.SQL("")),
                [row + (row[0],) for row in self.updates] if names.sharded else self.updates,
            )
        if self.inserts and names.sharded:
            # the primary key of {p}_ids refuses an id another user holds, as the records' key does unsplit
            cursor.execute(
                sql.SQL("INSERT INTO {} (id, user_id) SELECT * FROM unnest(%s::text[], %s::text[])").format(
                    names.sharded_ids
                ),
                _columns(sorted(self.new_owners), 2),
            )
        if self.inserts:
            cursor.executemany(
                sql.SQL(
                    "INSERT INTO {} (id, user_id, agent_id, kind, content, metadata, terms, embedding, "
                    "session_id, created_at, updated_at, version) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s::text[], %s, %s, %s, %s, %s)"
                ).format(names.records),
                self.inserts,
            )
        if self.postings_in:
            cursor.execute(
                sql.SQL(
                    "INSERT INTO {} (user_id, agent_id, term, created_at, id) "
                    "SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::float8[], %s::text[])"
                ).format(names.postings),
                _columns(self.postings_in, 5),
            )
        self._send_df(cursor, names)
        # every scope the batch touched, even one whose counts stay put (a neighbour's new link): its
        # generation must move. Sorted, and after the df rows, so two transactions lock the counters
        # in one order (df rows by (scope, term), then scope rows by scope) and never deadlock.
        touched = sorted(self.counts.items())
        if touched:
            cursor.execute(
                sql.SQL(
                    """INSERT INTO {scopes} AS s (user_id, agent_id, with_terms, with_embedding, generation)
                       SELECT *, 1 + {forgotten} FROM unnest(%s::text[], %s::text[], %s::int8[], %s::int8[])
                       ORDER BY 1, 2
                       ON CONFLICT (user_id, agent_id) DO UPDATE
                       SET with_terms = s.with_terms + excluded.with_terms,
                           with_embedding = s.with_embedding + excluded.with_embedding,
                           generation = s.generation + 1"""
                ).format(scopes=names.scopes, forgotten=_forgotten_generation(names)),
                [
                    [k[0] for k, _ in touched],
                    [k[1] for k, _ in touched],
                    [d[0] for _, d in touched],
                    [d[1] for _, d in touched],
                ],
            )
            self._send_changes(cursor, names, [key for key, _ in touched])

    def _send_changes(self, cursor: psycopg.Cursor, names: _Names, touched: list[tuple[str, str]]) -> None:
        """{p}_changes for this batch, at each touched scope's new generation (read from its counter row,
        which this transaction holds locked), and the scopes' rows older than CHANGES_KEPT generations."""
        removed: list[tuple[str, str, str]] = []
        logged: list[tuple[str, str, str]] = []
        for scope, (written, gone) in batch_changes(self.finals).items():
            user, agent = scope.user_id, scope.agent_id or ""
            removed += [(user, agent, record_id) for record_id in gone]
            logged += [(user, agent, REMOVAL)] if gone else [(user, agent, record_id) for record_id in written]
        if removed:
            # the removed ids leave the log with their records; the '' row sends caches to a rebuild
            cursor.execute(
                sql.SQL(
                    """DELETE FROM {changes} c USING unnest(%s::text[], %s::text[], %s::text[]) AS g(user_id, agent_id, id)
                       WHERE c.user_id = g.user_id AND c.agent_id = g.agent_id AND c.id = g.id"""
                ).format(changes=names.changes),
                _columns(removed, 3),
            )
        if logged:
            cursor.execute(
                sql.SQL(
                    """INSERT INTO {changes} (user_id, agent_id, generation, id)
                       SELECT c.user_id, c.agent_id, s.generation, c.id
                       FROM unnest(%s::text[], %s::text[], %s::text[]) AS c(user_id, agent_id, id)
                       JOIN {scopes} s ON s.user_id = c.user_id AND s.agent_id = c.agent_id
                       ON CONFLICT DO NOTHING"""
                ).format(changes=names.changes, scopes=names.scopes),
                _columns(logged, 3),
            )
        cursor.execute(
            sql.SQL(
                """DELETE FROM {changes} c USING {scopes} s, unnest(%s::text[], %s::text[]) AS t(user_id, agent_id)
                   WHERE s.user_id = t.user_id AND s.agent_id = t.agent_id AND s.generation %% 16 = 0
                     AND c.user_id = s.user_id AND c.agent_id = s.agent_id AND c.generation <= s.generation - %s"""
            ).format(changes=names.changes, scopes=names.scopes),
            [[k[0] for k in touched], [k[1] for k in touched], CHANGES_KEPT],
        )

    def _send_df(self, cursor: psycopg.Cursor, names: _Names) -> None:
        """Every term's df moved by this transaction's postings, in one statement.

        The rows go in (scope, term) order, as the scope counters after them, so two transactions that
        share terms take the row locks in one order and wait for each other instead of deadlocking.
        """
        deltas: dict[tuple[str, str, str], int] = {}
        for user, agent, term, _, _ in self.postings_in:
            deltas[user, agent, term] = deltas.get((user, agent, term), 0) + 1
        for user, agent, term, _, _ in self.postings_out:
            deltas[user, agent, term] = deltas.get((user, agent, term), 0) - 1
        changed = sorted((key, delta) for key, delta in deltas.items() if delta)
        if not changed:
            return
        cursor.execute(
            sql.SQL(
                """INSERT INTO {df} AS d (user_id, agent_id, term, df)
                   SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::int8[]) ORDER BY 1, 2, 3
                   ON CONFLICT (user_id, agent_id, term) DO UPDATE SET df = d.df + excluded.df"""
            ).format(df=names.term_df),
            [
                [k[0] for k, _ in changed],
                [k[1] for k, _ in changed],
                [k[2] for k, _ in changed],
                [d for _, d in changed],
            ],
        )
        gone = [key for key, delta in changed if delta < 0]
        if gone:
            # a term no record holds any more leaves no row: a forgotten memory's words do not linger
            cursor.execute(
                sql.SQL(
                    """DELETE FROM {df} d USING unnest(%s::text[], %s::text[], %s::text[]) AS g(user_id, agent_id, term)
                       WHERE d.user_id = g.user_id AND d.agent_id = g.agent_id AND d.term = g.term AND d.df <= 0"""
                ).format(df=names.term_df),
                [[k[0] for k in gone], [k[1] for k in gone], [k[2] for k in gone]],
            )


def _row(record: Record, metadata: Any) -> tuple[Any, ...]:
    return (
        record.id,
        record.user_id,
        record.agent_id or "",
        record.kind,
        record.content,
        metadata,
        record.terms,
        record.embedding,
        record.session_id,
        record.created_at,
        record.updated_at,
        record.version,
    )


def _columns(rows: list[tuple[Any, ...]], width: int) -> list[list[Any]]:
    return [[row[i] for row in rows] for i in range(width)] if rows else [[] for _ in range(width)]


# ---------------------------------------------------------------------- encoding and checks


def _encode_records(ops: Sequence[Op]) -> dict[int, Any]:
    """Each upsert's metadata as JSON text, keyed by op position.

    The column is ``json``, not ``jsonb``: it keeps this text verbatim, so key order and float spelling
    (``1e+16`` stays a float) come back as given. validate_ops let only JSON through.
    """
    return {
        position: Json(json.dumps(op.record.metadata, ensure_ascii=False, separators=(",", ":")), dumps=_already_json)
        for position, op in enumerate(ops)
        if isinstance(op, Upsert)
    }


def _already_json(value: str) -> str:
    return value


def _filter_sql(filter: Filter | None) -> tuple[sql.Composable, dict[str, Any]]:
    """The WHERE clauses (each starting with AND) and parameters that reproduce ``Filter.matches``."""
    if filter is None:
        return sql.SQL(""), {}
    clauses: list[str] = []
    params: dict[str, Any] = {}
    if filter.kinds is not None:
        clauses.append("kind = ANY(%(f_kinds)s::text[])")
        params["f_kinds"] = sorted(filter.kinds)
    if filter.session_id is not None:
        clauses.append("session_id = %(f_session)s")
        params["f_session"] = filter.session_id
    if filter.created_after is not None:
        clauses.append("created_at >= %(f_after)s::float8")
        params["f_after"] = float(filter.created_after)
    if filter.created_before is not None:
        clauses.append("created_at < %(f_before)s::float8")
        params["f_before"] = float(filter.created_before)
    if filter.ids is not None:
        clauses.append("id = ANY(%(f_ids)s::text[])")
        params["f_ids"] = sorted(filter.ids)
    return sql.SQL("".join(f" AND {clause}" for clause in clauses)), params


def _cosines(matrix: np.ndarray, query: np.ndarray) -> list[float]:
    """Cosine similarity of each row with ``query``, as float32 values like the reference driver's.

    Each row is reduced on its own in float64, so identical vectors always get identical scores
    (a BLAS matrix-vector product may round a row differently depending on where it sits) and ties
    are then broken by id.
    """
    rows, q = matrix.astype(np.float64), query.astype(np.float64)
    scores = (rows * q).sum(axis=1) / (np.sqrt((rows * rows).sum(axis=1)) * np.sqrt((q * q).sum()))
    return [float(score) for score in scores.astype(np.float32)]


def _forgotten_generation(names: _Names) -> sql.Composable:
    """What a scope without a counter row reads as: above every generation a forgotten scope reached."""
    return sql.SQL("coalesce((SELECT value::bigint FROM {} WHERE key = 'forgotten_generation'), 0)").format(names.meta)


def _agent(scope: Scope) -> str:
    return scope.agent_id or ""


def _as_array(value: Any) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value.astype(np.float32, copy=True)
    return np.array(value.to_numpy(), dtype=np.float32)  # a fresh, writable copy


def _fetch(conn: psycopg.Connection, query: sql.SQL | sql.Composed, params: Any) -> list[tuple[Any, ...]]:
    with conn.cursor(binary=True) as cursor:
        cursor.execute(query, params)
        return cursor.fetchall()


@contextmanager
def _transaction(conn: psycopg.Connection) -> Iterator[None]:
    with conn.transaction():
        yield


def _end_transaction(conn: psycopg.Connection) -> None:
    """Roll back whatever a failed call left open, so the connection can go back to the pool."""
    if conn.closed:
        return
    status = conn.info.transaction_status
    try:
        if status == TransactionStatus.INERROR:
            # A server error aborted the pipeline, and psycopg may then believe a statement was
            # prepared whose Parse the server skipped; rollback() also resets that bookkeeping.
            conn.rollback()
        elif status != TransactionStatus.IDLE:
            conn.execute("ROLLBACK", prepare=False)
    except psycopg.Error:
        conn.close()  # the pool drops it


@contextmanager
def _pipeline(conn: psycopg.Connection) -> Iterator[None]:
    """``conn.pipeline()``, raising the server's first error rather than the "pipeline aborted" after it.

    In pipeline mode an error can surface at any later execute; the statements queued behind it then
    report only that the pipeline was aborted, which says nothing useful.
    """
    first: list[psycopg.Error] = []
    try:
        with conn.pipeline():
            try:
                yield
            except psycopg.Error as error:
                first.append(error)
    except psycopg.Error:
        if not first:
            raise
    if first:
        raise first[0]


def _ann_expression(dim: int) -> tuple[str, str] | None:
    """What the HNSW index covers: the vector itself, a half-precision cast for wide vectors, or nothing."""
    if dim <= _HNSW_MAX_DIM_VECTOR:
        return "embedding", "vector_cosine_ops"
    if dim <= _HNSW_MAX_DIM_HALFVEC:
        return f"embedding::halfvec({dim})", "halfvec_cosine_ops"
    return None


def _distributes(statement: sql.Composable, distributed: set[str]) -> bool:
    """True for a create_distributed_table / create_reference_table of a table Citus already distributes."""
    text = statement.as_string(None) if isinstance(statement, sql.Composed) else ""
    found = re.match(r"SELECT create_(?:distributed|reference)_table\('([a-z0-9_]+)'", text)
    return found is not None and found.group(1) in distributed


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def _conninfo(url: StoreURL) -> str:
    """libpq's connection string for ``url``, without Kioko's own query parameters."""
    params: dict[str, Any] = {key: value for key, value in url.query.items() if key not in KIOKO_QUERY_KEYS}
    if url.host:
        params.setdefault("host", url.host)
    if url.port is not None:
        params.setdefault("port", url.port)
    if url.username:
        params.setdefault("user", url.username)
    if url.password:
        params.setdefault("password", url.password)
    database = url.path.lstrip("/")
    if database:
        params.setdefault("dbname", database)
    params.setdefault("connect_timeout", 10)
    params.setdefault("application_name", "kioko")
    try:
        return make_conninfo("", **params)
    except psycopg.ProgrammingError as error:
        raise InvalidRecordError(
            f"{_scrub(str(error).strip(), url.password)} in {url.render()}: Kioko reads "
            f"{', '.join(sorted(KIOKO_QUERY_KEYS))} from the query and hands every other parameter to libpq"
        ) from None


def _replica_conninfo(conninfo: str, read_host: str) -> str:
    """The primary's connection string with the replica's host (``host``, ``host:port`` or a socket directory)."""
    host, port = read_host, None
    if not read_host.startswith("/") and read_host.count(":") == 1:
        host, _, port_text = read_host.partition(":")
        port = positive_int(port_text, "read_host's port")
    if not host:
        raise InvalidRecordError(f"read_host must name a host, host:port or a socket directory, got {read_host!r}")
    # its own application_name, so the replica's connections are told apart in pg_stat_activity
    name = f"{conninfo_to_dict(conninfo).get('application_name') or 'kioko'} (reads)"
    return make_conninfo(conninfo, host=host, application_name=name, **({"port": port} if port is not None else {}))


def _scrub(text: str, password: str | None) -> str:
    """``text`` with the password (plain or URL-quoted) replaced by ***."""
    if password:
        from urllib.parse import quote

        for secret in {password, quote(password, safe=""), quote(password)}:
            if secret:
                text = text.replace(secret, "***")
    return text


def _store_error(error: psycopg.Error, password: str | None) -> StoreError:
    message = _scrub(str(error).strip(), password)
    if isinstance(error, (pg_errors.DataError, pg_errors.IntegrityError)):
        return InvalidRecordError(f"PostgreSQL refused the data: {message}; nothing was written")
    if isinstance(error, pg_errors.UndefinedTable):
        return StoreError(f"{message}: the store's tables were dropped while it was open; reopen it")
    return StoreError(f"PostgreSQL error: {message}")


class _Names:
    """Quoted identifiers of one store's tables and indexes."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.meta = sql.Identifier(f"{prefix}_meta")
        self.records = sql.Identifier(f"{prefix}_records")
        self.postings = sql.Identifier(f"{prefix}_postings")
        self.scopes = sql.Identifier(f"{prefix}_scopes")
        self.term_df = sql.Identifier(f"{prefix}_term_df")
        self.changes = sql.Identifier(f"{prefix}_changes")
        self.sharded_ids = sql.Identifier(f"{prefix}_ids")
        self.sharded = False
        """True for tables split by user (partitioned): ids then live in {p}_ids too, and writes name the user."""

    def index(self, name: str) -> sql.Identifier:
        return sql.Identifier(f"{self.prefix}_{name}")


_RECORD_COLUMNS = sql.SQL(
    "id, user_id, agent_id, kind, content, metadata, terms, embedding, session_id, created_at, updated_at, version"
)


# ---------------------------------------------------------------------- connections


class _Pool:
    """psycopg_pool's pool, plus what a store needs around it: safety after fork, and Kioko's errors.

    Connections are opened lazily (``min_size=0``), up to ``pool_size``, and closed after idling
    ``_POOL_MAX_IDLE`` seconds; a broken one is dropped when it comes back.
    """

    def __init__(
        self,
        conninfo: str,
        size: int,
        configure: Callable[[psycopg.Connection], None],
        describe: Callable[[BaseException, bool], StoreError],
    ) -> None:
        self._conninfo, self._size, self._configure, self._describe = conninfo, size, configure, describe
        self._closed = False
        self._pid = os.getpid()
        self._pool = self._open()

    def _open(self) -> ConnectionPool:
        return ConnectionPool(
            self._conninfo,
            min_size=0,
            max_size=self._size,
            open=True,
            name="kioko",
            num_workers=1,
            kwargs={"autocommit": True, "prepare_threshold": 2},
            configure=self._configure,
            timeout=_POOL_TIMEOUT,
            max_idle=_POOL_MAX_IDLE,
        )

    def _current(self) -> ConnectionPool:
        if self._closed:
            raise StoreError("this store is closed; open it again with kioko.connect(url)")
        if os.getpid() != self._pid:
            # a forked child must never use or close the parent's connections: park them, start afresh
            _ABANDONED_AFTER_FORK.append(self._pool)
            self._pid, self._pool = os.getpid(), self._open()
        return self._pool

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        pool = self._current()
        try:
            conn = pool.getconn()
        except PoolTimeout as error:
            raise self._describe(error, True) from None
        try:
            yield conn
        finally:
            pool.putconn(conn)

    def is_connection_failure(self, error: BaseException) -> bool:
        """True when ``error`` means the connection is unusable (not, say, a query cancelled by timeout)."""
        return isinstance(error, psycopg.OperationalError) and not isinstance(
            error,
            (
                pg_errors.QueryCanceled,
                pg_errors.LockNotAvailable,
                pg_errors.DeadlockDetected,
                pg_errors.SerializationFailure,
            ),
        )

    def discard_idle(self) -> None:
        """Test the idle connections and replace the dead ones (after one died, the others usually have too)."""
        if not self._closed and os.getpid() == self._pid:
            self._pool.check()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if os.getpid() != self._pid:
            _ABANDONED_AFTER_FORK.append(self._pool)  # the parent's, not ours to close
        else:
            self._pool.close()
