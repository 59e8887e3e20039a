"""The tables' shape: DDL on first open, upgrades of older tables, and the checks every open makes.

The layout itself is described in the package docstring (``kioko_backends/postgresql/__init__.py``)."""

from __future__ import annotations

import re

import psycopg
from pgvector.psycopg.vector import register_vector_info
from psycopg import errors as pg_errors
from psycopg import sql
from psycopg.types import TypeInfo

from kioko_backends.postgresql.pool import _transaction
from kioko_backends.postgresql.tables import _Names
from kioko_core.store import (
    InvalidRecordError,
    StoreError,
)

SCHEMA_VERSION = 5
"""Bumped whenever the tables change shape; a store refuses tables newer than it understands.
2: ``{p}_term_df`` (tables of schema 1 gain it, counted from their postings, when first opened).
3: ``{p}_scopes.generation`` (older tables gain it at 0, the generation of a scope never written).
4: ``{p}_changes`` (created empty: caches of older generations rebuild once).
5: ``{p}_links`` and its sequence (created empty: links written before stay in the records' metadata, where the
layer still reads them, and move to the table when their memory is written)."""

_SCHEMA_LOCK_KEY = 0x6B696F6B6F  # "kioko": one advisory lock for all schema work, across prefixes
_HNSW_MAX_DIM_VECTOR = 2000  # pgvector's HNSW limit for `vector`; up to 4000 it can index a halfvec cast
_HNSW_MAX_DIM_HALFVEC = 4000


class _Schema:
    """PostgresStore's schema work, kept apart from its reads and writes; only PostgresStore inherits it."""

    table: str
    dim: int
    partitions: int | None
    distribute: str | None
    _names: _Names
    _ann_expression: tuple[str, str] | None
    _vector_info: TypeInfo | None
    _iterative_scan: bool

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
            # LinkStore: one row per (owner, other memory); a put takes the next number of the sequence, so an
            # owner's entries read in `seq` order are in the order they were last put. Record ids are unique
            # across users, so (user_id, owner, other) is a key, and it holds the user for the partitions.
            sql.SQL("CREATE SEQUENCE IF NOT EXISTS {}").format(n.link_order),
            sql.SQL(
                """CREATE TABLE IF NOT EXISTS {} (
                    user_id text COLLATE "C" NOT NULL,
                    agent_id text COLLATE "C" NOT NULL,
                    owner text COLLATE "C" NOT NULL,
                    other text COLLATE "C" NOT NULL,
                    seq bigint NOT NULL,
                    entry json NOT NULL,
                    PRIMARY KEY (user_id, owner, other)
                ){}"""
            ).format(n.links, by_user),
        ]
        if partitions or citus:
            statements += [
                sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} (id)").format(n.index("records_id"), n.records),
                sql.SQL(
                    'CREATE TABLE IF NOT EXISTS {} (id text COLLATE "C" PRIMARY KEY, user_id text COLLATE "C" NOT NULL)'
                ).format(n.sharded_ids),
            ]
            for table in ("records", "postings", "scopes", "term_df", "changes", "links"):
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
                    for table in ("postings", "scopes", "term_df", "changes", "links")
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
