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

from kioko_backends.sqlite.statements import CHANGES_KEPT, SCHEMA_VERSION
from kioko_backends.sqlite.store import DEFAULT_TIMEOUT, DEFAULT_VECTOR_CACHE_MB, MAX_PATCHED_VECTORS, SQLiteStore

__all__ = [
    "CHANGES_KEPT",
    "DEFAULT_TIMEOUT",
    "DEFAULT_VECTOR_CACHE_MB",
    "MAX_PATCHED_VECTORS",
    "SCHEMA_VERSION",
    "SQLiteStore",
]
