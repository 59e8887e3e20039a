"""The inverted index cache: per-scope term statistics from ``Store.postings``, kept fresh by writes.

The write path asks only for the terms it needs; nothing here ever scans a scope. On a store that
counts writes per scope (:class:`~kioko_core.store.ScopeGenerations`: memory://, SQLite, PostgreSQL, Qdrant
edge) another process's write is seen at the next lookup, and entries never expire (what a write links to never
depends on the wall clock); on any other store (a Qdrant server, qdrant+local://) when a cached entry expires
(``ttl``, 10 minutes by default), so staleness is bounded.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, NamedTuple, Sequence

import numpy as np

from kioko_core.linking.term_rows import RowTable, top_k
from kioko_core.store import ManyGenerations, Record, Scope, ScopeChanges, ScopeGenerations, Store, record_copy
from kioko_core.telemetry import count

VIRTUAL_MEMORIES = 20
MAX_CHANGED_RECORDS = 400
"""Above this many records written since a cache's generation, starting the scope afresh is cheaper."""
ENTITY_BOOST = 1.5
INDEX_SWEEP_SECONDS = 1.0
"""How often a layer's index cache also checks its other cached scopes for records other processes removed."""
IMPORT_RECORDS = 250_000
"""Records a scope keeps cached while an import writes into it (:meth:`IndexCache.importing`). An import's memories
are candidates for the later ones; read again from the store once the 20,000 most recent had pushed them out, they
cost a growing part of each write past that size (7.7-11.6 ms a memory past 20,480 at load 12-23, against 5.9
below). The process grew by about 13 KB a memory (its text, vector, terms and up to 12 link entries) in a
20,480 import: peak 383 MB."""
SWEEP_SCOPES = 64
"""Cached scopes one sweep checks (one generation read each), taken in turn: a sweep's cost is bounded."""


_ONE_READ: ContextVar[dict[tuple[int, Scope], int] | None] = ContextVar("kioko_index_one_read", default=None)
"""Within :func:`one_read`: each store's generation of each scope (keyed by the store object's id), as first read
in the block; the caches over one store (the layer's, its entity graph's) share it."""


@contextmanager
def one_read() -> Iterator[None]:
    """Within the block, every :class:`IndexCache` reads a scope's store generation once, at its first lookup.

    A recall makes several lookups of the same scope (its words, the pins, the entity graph's names); on a
    store across a network each generation read is a round trip (three or four of a recall's five on
    PostgreSQL). What the block's lookups see is then the store as of its first read of that scope, as one
    statement would: another process's write made meanwhile is seen at the next block. This process's own
    writes in the block are recorded in the cache as usual. Nested blocks share the outermost one's reads.
    :func:`read_ahead` reads several scopes' generations in one call at the start of a block.
    """
    if _ONE_READ.get() is not None:
        yield
        return
    token = _ONE_READ.set({})
    try:
        yield
    finally:
        _ONE_READ.reset(token)


def read_ahead(store: Store, scopes: Sequence[Scope]) -> None:
    """Within :func:`one_read`: read the generations of ``scopes`` the block will look up, in one call, where
    ``store`` offers it (:class:`~kioko_core.store.ManyGenerations`; one round trip on PostgreSQL instead of one
    per scope). Outside a block, or on any other store, nothing happens: each is read at its first lookup.

    ``store`` is the object the caches read (the layer's store), never a cache's held batch
    (:class:`~kioko_core.linking.pending.PendingStore` answers for its own writes, which this read would miss).
    """
    memo = _ONE_READ.get()
    if memo is None or not isinstance(store, ManyGenerations):
        return
    unread = [scope for scope in dict.fromkeys(scopes) if (id(store), scope) not in memo]
    if unread:
        for scope, generation in zip(unread, store.generations(unread)):
            memo[(id(store), scope)] = int(generation)


def idf(df: int, n: int) -> float:
    """BM25's IDF smoothed with 20 virtual memories; 0 for a term in most memories once n >= 20."""
    if n >= VIRTUAL_MEMORIES and n > 0 and df / n > 0.5:
        return 0.0
    return math.log(1.0 + (n + VIRTUAL_MEMORIES - df + 0.5) / (df + 0.5))


def term_weight(term: str, df: int, n: int) -> float:
    """w(t): idf, times 1.5 for an entity term (``e:...``)."""
    weight = idf(df, n)
    return weight * ENTITY_BOOST if term.startswith("e:") else weight


def is_hub(df: int, n: int) -> bool:
    """A term or entity in many memories: df >= max(4, 0.15 n)."""
    return df >= max(4.0, 0.15 * n)


def nominates(df: int, n: int) -> bool:
    """A term with more than max(50, 0.2 n) postings nominates no candidates."""
    return df <= max(50.0, 0.2 * n)


def _keep_recent(terms: dict[str, _Term], asked: Sequence[str], bound: int) -> None:
    """Move ``asked`` to the end of ``terms`` (a dict keeps insertion order: its start is then the least recently
    asked), and drop from the start what is past ``bound``."""
    for term in asked:
        entry = terms.pop(term, None)
        if entry is not None:
            terms[term] = entry
    for term in list(itertools.islice(terms, max(0, len(terms) - bound))):
        del terms[term]


def _head(table: RowTable, entry: _Term, limit: int) -> np.ndarray:
    """The rows of ``entry.ids[:limit]``, in order: the entry's head, made (and kept on it) when it is shorter."""
    want = min(limit, len(entry.ids))
    head = entry.head
    if head is None or (len(head) < want and entry.head_limit < limit):
        head = entry.head = table.rows(entry.ids[:limit])
        entry.head_limit = limit
    return head[:want]


def own_copy(record: Record) -> Record:
    """A copy of a record the index cache keeps, for a caller: its metadata, bookkeeping, terms and vector its own, so
    a caller changing what a write returned never changes what the linker reads."""
    update: dict[str, Any] = {"metadata": _copied(record.metadata), "terms": list(record.terms)}
    if record.system is not None:
        update["system"] = _copied(record.system)
    if record.embedding is not None:
        update["embedding"] = record.embedding.copy()
    return record_copy(record, update)


def _copied(value: Any) -> Any:
    """A copy of a JSON-like value (dicts, lists and scalars): what a record's metadata and bookkeeping hold."""
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copied(v) for v in value]
    return value


@dataclass
class _Term:
    df: int
    ids: list[str]
    limit: int
    fetched_at: float
    rows: np.ndarray | None = None
    """``ids`` as the scope's rows (:class:`~kioko_core.linking.term_rows.RowTable`), in any order; made by the
    first exact scoring that needs them, kept in step by writes (None: not made, or a delete dropped them)."""
    head: np.ndarray | None = None
    """The rows of ``ids[:len(head)]``, in that order (newest first): what the linker's vote sums
    (:meth:`IndexCache.lookup_rows`), kept in step by writes, at most ``head_limit`` long (None: not made, or an id
    left the list)."""
    head_limit: int = 0


class Voting(NamedTuple):
    """:meth:`IndexCache.lookup_rows`: n, df and the ids per term (as :meth:`IndexCache.lookup`), the same ids as rows
    of ``table``."""

    n: int
    df: dict[str, int]
    ids: dict[str, list[str]]
    rows: dict[str, np.ndarray]
    table: RowTable


@dataclass
class _ScopeStats:
    n: int = 0
    fetched_at: float = 0.0
    terms: dict[str, _Term] = field(default_factory=dict)
    generation: int | None = None
    """The store's generation of the scope these statistics describe (None: the store does not count)."""
    synced: int | None = None
    """The last generation read from the store (``generation`` is that plus the batches this cache recorded
    itself): the changes after it are everything another writer may have done."""
    records: OrderedDict[str, Record] = field(default_factory=OrderedDict)
    """Records as the store holds them at ``generation``, least recently used first (see IndexCache.records)."""
    table: RowTable = field(default_factory=RowTable)
    """Row numbers of the ids the exact scoring has seen (see :meth:`IndexCache.exact_top`)."""


class IndexCache:
    """n and df(t) per (user, agent) scope, filled from ``store.postings`` on demand and updated on writes."""

    def __init__(
        self,
        store: Store,
        ttl: float = 600.0,
        clock: Callable[[], float] = time.time,
        max_records: int = 20_000,
        sweep_every: float | None = None,
        max_terms: int | None = None,
        import_records: int = IMPORT_RECORDS,
    ) -> None:
        """``max_terms`` (None: no bound): per scope, at most this many terms' entries are kept, the least recently
        asked dropped first; a dropped term costs one postings call when asked again. The entity graph's cache is
        asked about every n-gram of every text it matches, most of them names it does not know (df 0): without a
        bound they would stay until the graph changes.

        ``sweep_every`` (seconds; None: never): at a lookup at least this long after the last sweep, the
        other cached scopes whose store generation moved (another process wrote, or forgot the user) are
        dropped, at most :data:`SWEEP_SCOPES` of them checked per sweep, in turn. Without it a scope's
        cache catches up only at its own next lookup, and keeps what another process deleted until then.

        ``clock`` (seconds) times every freshness rule here, the ``ttl`` and the sweeps: a test fixes it (or
        moves it on) so what a lookup reads from the store never depends on how fast the machine ran.

        ``import_records``: the records a scope keeps while an import into it runs (:meth:`importing`), in place of
        ``max_records``."""
        self.store = store
        self.ttl = ttl
        self.clock = clock
        self.max_records = max_records
        self.import_records = import_records
        self._importing: dict[Scope, int] = {}
        """Scopes an import is writing into (how many imports each): their records are bounded by ``import_records``."""
        self.sweep_every = sweep_every
        self.max_terms = max_terms
        self._swept_at = clock()
        self._sweep_cursor = 0
        self._scopes: dict[Scope, _ScopeStats] = {}
        self._lock = threading.RLock()
        self._generation = store.generation if isinstance(store, ScopeGenerations) else None
        self._changes = store.changes_since if self._generation and isinstance(store, ScopeChanges) else None
        self.refreshes = {"changes": 0, "rebuilds": 0}
        """How often a scope whose generation moved was brought up to date by its changes, or started afresh."""

    def read_ahead(self, scopes: Sequence[Scope]) -> None:
        """:func:`read_ahead` of ``scopes`` through the store this cache reads, where it reads generations at all
        (a store that does not count its writes, even behind a batch's held writes, has none to read)."""
        if self._generation is not None:
            read_ahead(self.store, scopes)

    def lookup(
        self, scope: Scope, terms: Iterable[str], limit: int = 0
    ) -> tuple[int, dict[str, int], dict[str, list[str]]]:
        """(n, df per term, up to ``limit`` newest ids per term), with at most one postings call."""
        n, df, ids = self._lookup(scope, terms, limit, True)
        assert ids is not None
        return n, df, ids

    def lookup_rows(self, scope: Scope, terms: Iterable[str], limit: int) -> Voting:
        """:meth:`lookup` (``limit`` > 0), with each term's ids also as rows of the scope's :class:`RowTable`, in the
        same order, read under the same lock: the linker's vote is summed over them in C
        (:func:`~kioko_core.linking.term_rows.top_k`) instead of a Python loop over up to ``limit`` ids a term. A
        term's rows are made once, then kept in step by the writes this cache records."""
        rows: dict[str, np.ndarray] = {}
        with self._lock:  # re-entrant: the lookup's own block runs inside it, its store calls too
            n, df, ids = self._lookup(scope, terms, limit, True, rows)
            stats = self._scopes.get(scope)
            table = stats.table if stats is not None else RowTable()
        assert ids is not None
        return Voting(n, df, ids, rows, table)

    def counts(self, scope: Scope, terms: Iterable[str]) -> tuple[int, dict[str, int]]:
        """(n, df per term): :meth:`lookup` without ids, for the hundreds of terms a write's candidates bring (an
        empty id list per term was most of such a lookup's own time)."""
        n, df, _ = self._lookup(scope, terms, 0, False)
        return n, df

    def _lookup(
        self,
        scope: Scope,
        terms: Iterable[str],
        limit: int,
        with_ids: bool,
        rows: dict[str, np.ndarray] | None = None,
    ) -> tuple[int, dict[str, int], dict[str, list[str]] | None]:
        wanted = list(dict.fromkeys(terms))
        self._sweep(scope)
        now = self.clock()
        # read before the postings: they then show at least this generation, and a write in between is a
        # mismatch at the next lookup
        generation = self._read_generation(scope) if self._generation is not None else None
        with self._lock:
            stats = self._scopes.get(scope)
            if stats is None or stats.generation != generation:
                # a write this cache did not record (another process's, most often): read what changed, or
                # start the scope afresh
                if stats is None or not self._catch_up(scope, stats):
                    if stats is not None:
                        self.refreshes["rebuilds"] += 1
                        count("index_cache_total", outcome="rebuild")
                    stats = self._scopes[scope] = _ScopeStats(generation=generation, synced=generation)
                memo = _ONE_READ.get()
                if memo is not None and stats.generation is not None:
                    memo[(id(self.store), scope)] = stats.generation  # caught up: the block's later lookups agree
            elif generation is not None:
                stats.synced = generation  # its own batches alone since the last read: all of them seen
            # the ttl bounds how long another process's write goes unseen; where the store counts its writes the
            # generation shows every such write at once, so entries never expire there: a lookup's answer (and so
            # a write's links) then never depends on the wall clock, e.g. on how long an import has been running
            ttl = self.ttl if generation is None else math.inf
            if stats.n == 0 and stats.fetched_at and now - stats.fetched_at <= ttl:
                # a scope known to have nothing indexed (most users' shared knowledge base, asked at every
                # linked write) answers every term with df 0 and no ids, without a call to the store
                return 0, dict.fromkeys(wanted, 0), {t: [] for t in wanted} if with_ids else None
            # a cached entry serves while its ttl lasts, if it was fetched with as large a limit or holds every
            # posting (tested inline: a write asks about twenty terms, several times)
            cached = stats.terms
            if ttl == math.inf and limit == 0 and not with_ids:  # counts alone, in one pass over the terms
                return self._counts(scope, stats, wanted, now)
            if ttl == math.inf and limit == 0:  # counts alone (a write's candidates' terms: hundreds of them)
                missing = [t for t in wanted if t not in cached]
            else:
                missing = [
                    t
                    for t in wanted
                    if (entry := cached.get(t)) is None
                    or now - entry.fetched_at > ttl
                    or not (entry.limit >= limit or len(entry.ids) >= entry.df)
                ]
            fetching = bool(missing) or not stats.fetched_at or now - stats.fetched_at > ttl
            count("index_cache_total", outcome="fetch" if fetching else "hit")
            if fetching:
                result = self.store.postings(scope, missing, limit)
                stats.n, stats.fetched_at = result.n, now
                for term in missing:
                    stats.terms[term] = _Term(result.df.get(term, 0), list(result.ids.get(term, [])), limit, now)
            terms = stats.terms
            df = {t: terms[t].df for t in wanted}
            ids = (
                ({t: terms[t].ids[:limit] for t in wanted} if limit else {t: [] for t in wanted}) if with_ids else None
            )
            if rows is not None and limit:
                table = stats.table
                for t in wanted:
                    rows[t] = _head(table, terms[t], limit)
            if self.max_terms is not None:
                _keep_recent(terms, wanted, self.max_terms)
            return stats.n, df, ids

    def _counts(
        self, scope: Scope, stats: _ScopeStats, wanted: list[str], now: float
    ) -> tuple[int, dict[str, int], None]:
        """:meth:`counts` where entries never expire (the lock held): each term's df read from its entry as the
        entries are sought, the missing ones in one postings call."""
        cached = stats.terms
        seek = cached.get
        # the cached ones in one comprehension (a write asks a few hundred terms, nearly all cached), the rest after
        df = {term: entry.df for term in wanted if (entry := seek(term)) is not None}
        missing = [term for term in wanted if term not in df] if len(df) < len(wanted) else []
        fetching = bool(missing) or not stats.fetched_at
        count("index_cache_total", outcome="fetch" if fetching else "hit")
        if fetching:
            result = self.store.postings(scope, missing, 0)
            stats.n, stats.fetched_at = result.n, now
            for term in missing:
                entry = cached[term] = _Term(result.df.get(term, 0), list(result.ids.get(term, [])), 0, now)
                df[term] = entry.df
        if self.max_terms is not None:
            _keep_recent(cached, wanted, self.max_terms)
        return stats.n, df, None

    def _read_generation(self, scope: Scope) -> int:
        """The store's generation of ``scope``, read once per :func:`one_read` block."""
        assert self._generation is not None
        memo = _ONE_READ.get()
        if memo is None:
            return self._generation(scope)
        key = (id(self.store), scope)
        found = memo.get(key)
        if found is None:
            found = memo[key] = self._generation(scope)
        return found

    def lookup_all(
        self,
        scope: Scope,
        terms: Iterable[str],
        wanted: Callable[[str, int, int], bool],
        first: int = 0,
        whole_ids: bool = True,
    ) -> tuple[int, dict[str, int], dict[str, list[str]]]:
        """As :meth:`lookup`, with every id of each term for which ``wanted(term, df, n)`` holds (the others: up to
        ``first`` newest).

        Recall's exact scoring asks for every posting of the terms that nominate; the linker's lookups stay
        bounded. A term not cached costs two postings calls at most: its df (with ``first`` ids), then, if
        ``wanted`` and longer, its whole list (one call for all such terms). A cached whole list costs none.
        ``whole_ids`` False: those lists are made whole in the cache (for :meth:`exact_top`) but only their
        ``first`` ids are returned; a copy of a common word's list is tens of thousands of ids at 100,000.
        """
        terms = list(dict.fromkeys(terms))
        n, df, ids = self.lookup(scope, terms, first)
        whole: set[str] = set()  # made whole in the cache, ids not returned (``whole_ids`` False)
        for _ in range(2):  # a write in between may grow a list past the limit just asked: then once more
            short = [t for t in terms if t not in whole and df[t] and len(ids[t]) < df[t] and wanted(t, df[t], n)]
            if not short:
                break
            asked = max(df[t] for t in short)
            n, more, longer = self._lookup(scope, short, asked, whole_ids)
            df.update(more)
            if longer is not None:
                ids.update(longer)
            else:
                whole.update(t for t in short if more[t] <= asked)
        return n, df, ids

    def exact_top(self, scope: Scope, weights: dict[str, float], limit: int) -> list[tuple[str, float]] | None:
        """The ``limit`` ids with the highest sum of ``weights`` over their terms, best first (ties by id), from
        the cached posting lists; None when a term's list is not cached whole (then score what :meth:`lookup_all`
        returned with :func:`~kioko_core.linking.scoring.vote`). Equal to ``vote`` over whole lists, to the bit."""
        with self._lock:
            stats = self._scopes.get(scope)
            if stats is None:
                return None
            weighted = []
            for term, weight in weights.items():
                entry = stats.terms.get(term)
                if entry is None or len(entry.ids) < entry.df:
                    return None
                if entry.rows is None:
                    entry.rows = stats.table.rows(entry.ids)
                weighted.append((entry.rows, weight))
            table = stats.table
            return top_k(table, weighted, limit)

    def holding(self, scope: Scope, ids: Sequence[str], terms: Sequence[str]) -> set[str] | None:
        """Those of ``ids`` that hold one of ``terms``, from the terms' whole posting lists cached (as
        :meth:`exact_top` scored them); None when a list is not cached whole (then read the records to know).
        Recall's session mates read only the members of a session that hold one of the question's words."""
        with self._lock:
            stats = self._scopes.get(scope)
            if stats is None:
                return None
            arrays = []
            for term in terms:
                entry = stats.terms.get(term)
                if entry is None or len(entry.ids) < entry.df:
                    return None
                if entry.rows is None:
                    entry.rows = stats.table.rows(entry.ids)
                arrays.append(entry.rows)
            # an id without a row is in no list that has rows: it holds none of the terms
            row_of = stats.table.row_of
            known = [i for i in ids if i in row_of]
            if not known or not arrays:
                return set()
            rows = np.fromiter((row_of[i] for i in known), dtype=np.int32, count=len(known))
            marked = np.zeros(len(stats.table.ids), dtype=bool)
            for array in arrays:
                marked[array] = True
            held = marked[rows]
        return {memory_id for memory_id, holds in zip(known, held.tolist()) if holds}

    def _sweep(self, reading: Scope) -> None:
        """Drop the cached scopes (other than ``reading``) from which another writer removed a record (a delete,
        a forgotten user), when a sweep is due; a scope another writer only added to or changed is left for its
        next lookup to catch up by those changes (cheaper than starting afresh)."""
        if self.sweep_every is None or self._generation is None:
            return
        now = self.clock()
        with self._lock:
            # a wall clock set back sweeps at once rather than a long while later
            if self._swept_at <= now < self._swept_at + self.sweep_every:
                return
            self._swept_at = now
            others = [s for s in self._scopes if s != reading]
            start = self._sweep_cursor % len(others) if others else 0
            batch = (others[start:] + others[:start])[:SWEEP_SCOPES]
            self._sweep_cursor = start + len(batch)
            cached = {s: (self._scopes[s].generation, self._scopes[s].synced) for s in batch}
        moved = [s for s, (generation, synced) in cached.items() if self._removed_since(s, generation, synced)]
        with self._lock:
            for scope in moved:
                stats = self._scopes.get(scope)
                if stats is not None and stats.generation == cached[scope][0]:  # no write of this process since
                    del self._scopes[scope]

    def _removed_since(self, scope: Scope, generation: int | None, synced: int | None) -> bool:
        """True when another writer moved the scope's generation and may have removed records from it."""
        if self._generation is None or self._generation(scope) == generation:
            return False
        if self._changes is None or synced is None:
            return True
        return self._changes(scope, synced) is None  # None: a batch removed a record (or the log is too short)

    def _catch_up(self, scope: Scope, stats: _ScopeStats) -> bool:
        """Bring ``stats`` to the store's generation by the records written since the last one read
        (:class:`~kioko_core.store.ScopeChanges`); False when the store cannot say (then rebuild).

        Dropped: every changed record, and every term entry a changed record may have entered or left (a
        term it holds now, one whose cached ids hold it, and one whose ids are cut at ``limit``, where its
        absence proves nothing). Kept: the rest, which no batch since touched. ``n`` is read again.
        """
        if self._changes is None or stats.synced is None:
            return False
        changes = self._changes(scope, stats.synced)
        if changes is None or len(changes.ids) > MAX_CHANGED_RECORDS:
            return False
        fresh = {r.id: r for r in self.store.get(scope, sorted(changes.ids)) if r is not None}
        if len(fresh) != len(changes.ids):
            return False  # deleted since: a removal, which the next generation reports; rebuild now
        entered = {term for record in fresh.values() for term in record.terms}
        for term, entry in list(stats.terms.items()):
            if term in entered or len(entry.ids) < entry.df or not changes.ids.isdisjoint(entry.ids):
                del stats.terms[term]
        for record_id in changes.ids:
            stats.records.pop(record_id, None)
        self._keep(scope, stats, fresh.values())
        stats.generation = stats.synced = changes.generation
        stats.fetched_at = 0.0  # n is read again with the next postings call, this lookup's
        self.refreshes["changes"] += 1
        return True

    def records(self, scope: Scope, ids: Sequence[str]) -> dict[str, Record]:
        """The records of ``scope`` among ``ids``, by id (missing ones left out), as of the last :meth:`lookup`.

        The linker reads the same recent memories write after write (a session's turns, a topic's newest
        holders); reading them from the store each time was the largest part of a linked write. Kept only
        on a store that counts its writes (:class:`~kioko_core.store.ScopeGenerations`), so a write this
        cache did not see empties the scope at the next lookup: nothing stale is ever scored. The records
        handed out are shared with the cache: callers must treat them as read-only (the linker only ever
        builds changed copies).
        """
        wanted = list(dict.fromkeys(ids))
        if self._generation is None or self.max_records <= 0:
            return {r.id: r for r in self.store.get(scope, wanted) if r is not None}
        found: dict[str, Record] = {}
        with self._lock:
            stats = self._scopes.get(scope)
            cached = stats.records if stats is not None else None
            if cached is not None:
                for record_id in wanted:
                    record = cached.get(record_id)
                    if record is not None:
                        cached.move_to_end(record_id)
                        found[record_id] = record
        missing = [i for i in wanted if i not in found]
        if missing:
            fresh = {r.id: r for r in self.store.get(scope, missing) if r is not None}
            found.update(fresh)
            with self._lock:
                if stats is not None and self._scopes.get(scope) is stats:
                    self._keep(scope, stats, fresh.values())
        return found

    def _keep(self, scope: Scope, stats: _ScopeStats, records: Iterable[Record]) -> None:
        """Cache ``records``; a version older than the one cached never replaces it (writers may finish out of order)."""
        for record in records:
            held = stats.records.get(record.id)
            if held is None or held.version < record.version:
                stats.records[record.id] = record
            stats.records.move_to_end(record.id)
        bound = self.import_records if scope in self._importing else self.max_records
        while len(stats.records) > bound:
            stats.records.popitem(last=False)

    @contextmanager
    def importing(self, scope: Scope) -> Iterator[None]:
        """While the block runs, ``scope`` keeps up to ``import_records`` records instead of ``max_records``: an
        import's memories stay cached for the later ones that link to them. Afterwards the scope is cut back to
        ``max_records`` (the least recently used go)."""
        with self._lock:
            self._importing[scope] = self._importing.get(scope, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                left = self._importing.pop(scope) - 1
                if left:
                    self._importing[scope] = left
                else:
                    stats = self._scopes.get(scope)
                    if stats is not None:
                        self._keep(scope, stats, ())

    def record_linked_write(
        self, scope: Scope, stored: Sequence[Record], old_terms: Sequence[str], new_terms: Sequence[str]
    ) -> None:
        """The linker's batch: ``stored[0]`` is the memory written (its terms moved from ``old_terms`` to
        ``new_terms``), the rest the neighbours whose links changed, as the store returned them.

        The neighbours are cached as written; the memory itself is not (the caller gets that very object
        and may change it), so its next use reads it from the store. (The linker's own write caches a copy of it
        as the store returned it: the next write in its session nominates it most of the time.)
        """
        self.record_written_with(scope, stored[0].id, old_terms, new_terms, stored[1:])

    def record_written_with(
        self,
        scope: Scope,
        record_id: str,
        old_terms: Sequence[str],
        new_terms: Sequence[str],
        neighbours: Sequence[Record],
    ) -> None:
        """:meth:`record_linked_write` of the memory ``record_id`` and the ``neighbours`` its batch wrote."""
        self.record_write(scope, record_id, old_terms, new_terms, others_changed=False)
        with self._lock:
            stats = self._scopes.get(scope)
            if stats is not None and stats.generation is not None:
                self._keep(scope, stats, [r for r in neighbours if r.scope == scope])

    def forget_records(self, scope: Scope) -> None:
        """Drop the cached records of ``scope`` (a write conflicted: some were older than the store's)."""
        with self._lock:
            stats = self._scopes.get(scope)
            if stats is not None:
                stats.records.clear()

    def record_write(
        self,
        scope: Scope,
        record_id: str,
        old_terms: Sequence[str],
        new_terms: Sequence[str],
        *,
        others_changed: bool = True,
    ) -> None:
        """Apply one record's change of terms (both empty-able) to the cached statistics.

        ``record_id`` and, unless ``others_changed`` is False, every other cached record of the scope are
        dropped: the batch may have changed them too (a delete drops its links from the neighbours).
        """
        old, new = set(old_terms), set(new_terms)
        with self._lock:
            if old and not new:
                # a delete: the words a lookup found nowhere (df 0) leave every cached scope, not only this
                # one: they may be the deleted memory's own words asked of another scope (a linked write asks
                # the shared knowledge base for its words), and a forgotten memory's words must not stay in
                # the process (the forget drill found them in the shared scope's cache, on PostgreSQL)
                for cached in self._scopes.values():
                    for term in [t for t, entry in cached.terms.items() if entry.df == 0]:
                        del cached.terms[term]
            stats = self._scopes.get(scope)
            if stats is None:
                return
            if others_changed:
                stats.records.clear()
            else:
                stats.records.pop(record_id, None)
            if stats.generation is not None:
                stats.generation += 1  # one committed batch advances the store's count by one
            if bool(old) != bool(new):
                stats.n += 1 if new else -1
            for term in old - new:
                entry = stats.terms.get(term)
                if entry is not None:
                    entry.df = max(0, entry.df - 1)
                    if record_id in entry.ids:
                        entry.ids.remove(record_id)
                        entry.rows = entry.head = None
            for term in new - old:
                entry = stats.terms.get(term)
                if entry is not None:
                    cut = len(entry.ids) < entry.df
                    entry.df += 1
                    entry.ids.insert(0, record_id)
                    if entry.head is not None:  # the new id first, the head as long as before (or the list)
                        kept = min(entry.head_limit, len(entry.ids)) - 1
                        entry.head = np.concatenate(((stats.table.row(record_id),), entry.head[:kept]), dtype=np.int32)
                    if cut and len(entry.ids) > entry.limit:
                        # a list cut at its limit stays cut there (lookups hand out no more), rather than growing
                        # with every write for as long as its entry lives
                        del entry.ids[entry.limit :]
                        entry.rows = None
                        if entry.head is not None:
                            entry.head = entry.head[: len(entry.ids)]
                    elif entry.rows is not None:
                        entry.rows = np.append(entry.rows, np.int32(stats.table.row(record_id)))
            if old and not new:
                # a delete: the words no memory of the scope holds any more leave the cache (a deleted memory's
                # words, and names a lookup found nowhere); asking for one again costs one postings call
                for term in [t for t, entry in stats.terms.items() if entry.df == 0]:
                    del stats.terms[term]
                # the row table keeps every id it ever gave a row, and a forgotten memory's id must not stay in
                # the process (the forget drill): the scope's rows start afresh, each list's rows made again
                # from its ids at its next exact ranking (a cost proportional to the postings asked, on a delete)
                if record_id in stats.table.row_of:
                    stats.table = RowTable()
                    for entry in stats.terms.values():
                        entry.rows = entry.head = None

    @contextmanager
    def staged(self, store: Any) -> Iterator[None]:
        """Read through ``store`` (a :class:`~kioko_core.linking.pending.PendingStore`: the store with a batch's
        writes held) until the block ends; other threads wait for the block (the cache then describes writes
        no one else may see yet). The batch's writes are recorded as usual (:meth:`record_linked_write`), so
        the cache evolves exactly as it would write by write; :meth:`committed_batch` reconciles it after."""
        with self._lock:
            saved = (self.store, self._generation, self._changes)
            self.store = store
            if self._generation is not None:
                self._generation = store.generation
            if self._changes is not None:
                self._changes = store.changes_since
            try:
                yield
            finally:
                self.store, self._generation, self._changes = saved

    def committed_batch(
        self, scope: Scope, before: int | None, writes: int, stored: Sequence[Record], keep: Collection[str]
    ) -> None:
        """``writes`` held writes of ``scope`` (recorded one by one while :meth:`staged`) were committed as one
        ``update_many``, which returned ``stored``; the store's generation was ``before`` when the batch began.

        The term statistics already describe the batch. The generation becomes ``before + 1`` (the store's count
        after one batch) if the cache followed the held writes all along, else the scope starts afresh; the
        cached records of the batch (held copies, versions counted write by write) give way to ``stored``
        (those with ids in ``keep``: a caller that hands the records on keeps the ones it hands out of it).
        """
        with self._lock:
            stats = self._scopes.get(scope)
            if stats is None:
                return
            if stats.generation is not None:
                if before is None or stats.generation != before + writes:
                    del self._scopes[scope]
                    return
                stats.generation = before + 1
                if stats.synced is not None:
                    stats.synced = min(stats.synced, before)
            for record in stored:
                stats.records.pop(record.id, None)
            if stats.generation is not None:
                self._keep(scope, stats, [r for r in stored if r.id in keep])

    def invalidate(self, scope: Scope | None = None) -> None:
        with self._lock:
            if scope is None:
                self._scopes.clear()
            else:
                self._scopes.pop(scope, None)
