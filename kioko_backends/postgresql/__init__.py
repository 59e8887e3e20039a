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
``{p}_links``
    Per (user, owner, other memory), a link entry of the owner (LinkStore: the layer's links, apart from the
    records), as ``json`` kept as written, numbered by ``{p}_links_order`` when put, so an owner's entries read
    in the order they were last put. Written in the records' transaction; a new link writes two rows and bumps
    both memories' versions, instead of rewriting both records (see ``links.py``).
``{p}_meta``
    ``schema_version`` and ``dim``, so a reopen with another vector length fails loudly, and the layout.

Split by user (``?partitions=N``: hash partitions; ``?distribute=citus``: Citus distributed tables),
the three data tables are keyed by user, records have no primary key of their own, and ``{p}_ids``
(id primary key, user) keeps ids unique across users; see docs/scaling-cluster.md.
Several hosts in the URL (``h1:p1,h2:p2`` with ``target_session_attrs=read-write``) survive a failover
(``failover.py``); ``?replicas=`` sends reads to read replicas with read-your-writes (``routing.py``).

Round trips: a read is one; knn is one (its settings, the HNSW query and an exact fallback travel in
one pipeline); update_many is two (lock and read versions, then write and commit), or one for a batch
that only inserts ids with ``expected_version=0``; update_with_links is two, its owners locked with the
ops' rows; links is one.
"""

from kioko_backends.postgresql.schema import SCHEMA_VERSION
from kioko_backends.postgresql.store import PostgresStore
from kioko_backends.postgresql.url import DEFAULT_POOL_SIZE, DEFAULT_TABLE, KIOKO_QUERY_KEYS, OPTIONS
from kioko_backends.postgresql.writes import CHANGES_KEPT

__all__ = [
    "CHANGES_KEPT",
    "DEFAULT_POOL_SIZE",
    "DEFAULT_TABLE",
    "KIOKO_QUERY_KEYS",
    "OPTIONS",
    "SCHEMA_VERSION",
    "PostgresStore",
]
