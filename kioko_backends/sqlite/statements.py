"""The file's tables and the SQL the store sends: DDL, upgrades, and every statement it prepares."""

from __future__ import annotations

import functools

SCHEMA_VERSION = 5
"""Bumped whenever the table layout changes; a file written by a newer Kioko is refused.
2: ``kioko_term_df``; 3: a term's df row goes when its last posting does; 4: ``kioko_changes``; 5:
``kioko_links`` (files of 1 to 4 upgrade when opened)."""

CHANGES_KEPT = 256
"""Generations per scope whose written ids ``kioko_changes`` keeps: a cache further behind rebuilds."""


_NO_AGENT = ""
"""How ``agent_id=None`` is stored: its own scope value, never a wildcard."""


# --------------------------------------------------------------------------- schema and statements

_CREATE_CHANGES = """CREATE TABLE IF NOT EXISTS kioko_changes (
    user_id TEXT NOT NULL, agent_id TEXT NOT NULL, generation INTEGER NOT NULL, id TEXT NOT NULL,
    PRIMARY KEY (user_id, agent_id, generation, id)) WITHOUT ROWID"""

# Schema 5: each memory's link entries (LinkStore), one row per (owner, other memory); a put replaces the row,
# which takes a new rowid above every other, so rowid order is the order entries were last put. Record ids
# are unique across the file, so the owner alone says whose they are (its scope is its record's).
_CREATE_LINKS = """CREATE TABLE IF NOT EXISTS kioko_links (
    owner TEXT NOT NULL, other TEXT NOT NULL, entry TEXT NOT NULL, UNIQUE (owner, other))"""

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
    _CREATE_LINKS,
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
_DELETE_LINKS = "DELETE FROM kioko_links WHERE owner = ?"
_DELETE_LINK = "DELETE FROM kioko_links WHERE owner = ? AND other = ?"
_PUT_LINK = "INSERT OR REPLACE INTO kioko_links (owner, other, entry) VALUES (?, ?, ?)"
_BUMP_VERSION = "UPDATE kioko_records SET version = version + 1 WHERE id = ?"
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


@functools.cache
def _scope_generations(count: int) -> str:
    """The generations of ``count`` scopes in one statement (one snapshot): a column per scope, each what
    ``_SCOPE_GENERATION`` reads, a lookup by the table's key."""
    one = f"coalesce((SELECT generation FROM kioko_scopes WHERE {_IN_SCOPE}), {_FORGOTTEN_GENERATION})"
    return "SELECT " + ", ".join([one] * count)


_SCOPE_VECTORS = f"SELECT id, embedding FROM kioko_records WHERE {_IN_SCOPE} AND embedding IS NOT NULL"
_TERM_IDS = f"SELECT id FROM kioko_postings WHERE {_IN_SCOPE} AND term = ? ORDER BY created_at DESC, id LIMIT ?"


def _marks(count: int) -> str:
    return ", ".join("?" * count)


@functools.cache
def _select_by_ids(count: int) -> str:
    """Records of one scope among ``count`` ids (callers pad to a power of two, so few shapes exist)."""
    return f"SELECT {_COLUMNS} FROM kioko_records WHERE id IN ({_marks(count)}) AND {_IN_SCOPE}"


@functools.cache
def _select_links(count: int) -> str:
    """The link entries of ``count`` owners of one scope, in the order they were last put."""
    return (
        "SELECT l.owner, l.entry FROM kioko_links l JOIN kioko_records r ON r.id = l.owner "
        f"WHERE l.owner IN ({_marks(count)}) AND r.user_id = ? AND r.agent_id = ? ORDER BY l.rowid"
    )


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
