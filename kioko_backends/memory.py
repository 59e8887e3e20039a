"""``memory://``: dicts and numpy in this process. The reference every other driver is compared with."""

from __future__ import annotations

import bisect
import threading
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from kioko_backends._ann import DEFAULT_EXACT_BELOW, AnnSettings, ann_choice, settings_for
from kioko_backends._vectors import VectorMatrix
from kioko_core.store import (
    DEFAULT_DIM,
    Capabilities,
    ConflictError,
    Delete,
    Filter,
    Neighbor,
    Op,
    Postings,
    Record,
    Scope,
    check_scope,
    plan_batch,
    validate_ops,
)
from kioko_core.store.driver import DIM, Option, StoreBase, positive_int
from kioko_core.store.link_store import LinkChange, apply_change, validate_changes
from kioko_core.store.url import StoreURL


def _scope_of(record: Record) -> Scope:
    """``record.scope``, built here: the store's write path asks it of each record several times."""
    return Scope(record.user_id, record.agent_id)


class MemoryStore(StoreBase):
    """Everything in dictionaries; gone when the process ends. ``memory://`` opens a new, empty one."""

    capabilities = Capabilities(
        transactions=True,
        native_knn=False,
        persistent=False,
        multi_process=False,
        notes=("each memory:// URL opened is a new, empty store",),
    )
    _approximate_capabilities = replace(
        capabilities,
        approximate_knn=True,
        notes=capabilities.notes
        + (
            "knn of a scope with at least exact_below vectors (default 10,000) goes through an HNSW graph "
            "(usearch) whose candidates are re-scored exactly; ?ann=false keeps every knn exact",
        ),
    )
    options = {
        "dim": DIM,
        "ann": Option(ann_choice),  # None: auto, a graph when usearch is installed
        "exact_below": Option(positive_int, DEFAULT_EXACT_BELOW),
    }

    def __init__(self, dim: int = DEFAULT_DIM, ann: AnnSettings | None = None) -> None:
        """An empty store; ``ann`` None keeps knn exact at every size."""
        self.dim = int(dim)
        self._ann = ann
        if ann is not None:
            self.capabilities = self._approximate_capabilities
        self._records: dict[str, Record] = {}
        self._by_scope: dict[Scope, set[str]] = defaultdict(set)
        # per term, (-created_at, id) kept sorted: the newest holders are the first ``limit`` entries
        self._postings: dict[Scope, dict[str, list[tuple[float, str]]]] = defaultdict(lambda: defaultdict(list))
        self._with_terms: dict[Scope, set[str]] = defaultdict(set)
        self._vectors: dict[Scope, VectorMatrix] = {}
        # per scope, how many committed batches touched it (ScopeGenerations): the core's caches then see
        # a write made through another layer over this store at once, not after their ttl
        self._generations: dict[Scope, int] = defaultdict(int)
        self._forgotten_generation = 0
        """Above every generation a purged scope had: what a scope without a count reads, and counts on from,
        so a cache of a forgotten scope's state can never match the count of the scope written anew."""
        self._links: dict[str, dict[str, dict[str, Any]]] = {}
        """Per record id (unique across the store), its link entries by the other memory's id, in the order
        last put (:class:`~kioko_core.store.link_store.LinkStore`)."""
        self._lock = threading.RLock()

    @classmethod
    def open_url(cls, url: StoreURL, options: dict[str, Any]) -> MemoryStore:
        return cls(dim=options["dim"], ann=settings_for(options["ann"], options["exact_below"]))

    def __repr__(self) -> str:
        return f"MemoryStore(dim={self.dim}, records={len(self._records)})"

    # -- reads

    def do_get(self, scope: Scope, ids: list[str]) -> dict[str, Record]:
        with self._lock:
            found = [self._records.get(i) for i in ids]
        return {r.id: _copy(r) for r in found if r is not None and r.scope == scope}

    def scopes(self) -> list[tuple[str, str | None]]:
        """Every (user_id, agent_id) holding a record (an optional listing ``kioko reembed`` walks)."""
        with self._lock:
            return list({(r.user_id, r.agent_id) for r in self._records.values()})

    def generation(self, scope: Scope) -> int:
        """The number of committed batches that touched ``scope``: :class:`~kioko_core.store.ScopeGenerations`."""
        with self._lock:
            return self._generations.get(check_scope(scope), self._forgotten_generation)

    def do_postings(self, scope: Scope, terms: list[str], limit: int) -> Postings:
        with self._lock:
            index = self._postings.get(scope, {})
            df: dict[str, int] = {}
            ids: dict[str, list[str]] = {}
            for term in terms:
                holders = index.get(term, [])
                df[term] = len(holders)
                ids[term] = [memory_id for _, memory_id in holders[:limit]]
            return Postings(n=len(self._with_terms.get(scope, ())), df=df, ids=ids)

    def do_knn(self, scope: Scope, query: np.ndarray, k: int, filter: Filter | None) -> list[Neighbor]:
        with self._lock:
            vectors = self._matrix(scope)
            if filter is None:
                return vectors.search(query, k)
            records = self._records
            return vectors.search(
                query,
                k,
                keep=lambda ids: [i for i in ids if filter.matches(records[i])],
                matching=lambda: [i for i in vectors.ids if filter.matches(records[i])],
            )

    def _matrix(self, scope: Scope) -> VectorMatrix:
        """The scope's vectors; built on first use, then kept current by every write."""
        vectors = self._vectors.get(scope)
        if vectors is None:
            vectors = self._vectors[scope] = VectorMatrix(self.dim, ann=self._ann)
            for memory_id in sorted(self._by_scope.get(scope, ())):
                embedding = self._records[memory_id].embedding
                if embedding is not None:
                    vectors.put(memory_id, embedding)
        return vectors

    def do_scan(self, scope: Scope, filter: Filter | None, batch: int) -> Iterator[Record]:
        with self._lock:
            # the ids present when the scan starts, in order; each page re-reads what still exists, so a
            # record deleted meanwhile is skipped and one written meanwhile may or may not appear
            order = sorted(self._by_scope.get(scope, ()))
        for start in range(0, len(order), batch):
            with self._lock:
                records = [self._records.get(i) for i in order[start : start + batch]]
            for record in records:
                if record is not None and _scope_of(record) == scope and (filter is None or filter.matches(record)):
                    yield _copy(record)

    # -- writes

    def do_update_many(self, ops: list[Op]) -> list[Record | None]:
        with self._lock:
            planned = self._plan(ops)
            self._count(self._apply(planned))
            return [_copy(s) if s is not None else None for _, s, _ in planned]

    def _count(self, touched: set[Scope]) -> None:
        """One committed batch touched these scopes (ScopeGenerations)."""
        for scope in touched:
            self._generations[scope] = self._generations.get(scope, self._forgotten_generation) + 1

    def _apply(self, planned: list[tuple[Op, Record | None, bool]]) -> set[Scope]:
        """Apply a planned batch; the scopes it touched: those of the records it left written or took away.

        Counted from the batch's net effect, as the SQL stores count it (docs/drivers.md, "touching a scope"):
        a record inserted and deleted again by one batch leaves its scope as it was, and a delete of a missing
        id or of another scope's touches nothing."""
        before: dict[str, Scope | None] = {}
        for op, stored, exists in planned:
            if stored is None and not exists:
                continue  # a delete that finds nothing (or another scope's record) changes nothing
            record_id = op.id if isinstance(op, Delete) else op.record.id
            if record_id not in before:
                old = self._records.get(record_id)
                before[record_id] = _scope_of(old) if old is not None else None
            if stored is not None:
                old = self._records.get(stored.id)
                if old is not None and (_scope_of(old), old.created_at, old.terms) == (
                    _scope_of(stored),
                    stored.created_at,
                    stored.terms,
                ):
                    # a neighbour whose links changed keeps its place in every postings list
                    self._replace(stored)
                    continue
                self._remove(stored.id, replacing=True)
                self._insert(stored)
            else:
                self._remove(record_id)
        touched: set[Scope] = set()
        for record_id, scope in before.items():
            now = self._records.get(record_id)
            touched.update(s for s in (scope, _scope_of(now) if now is not None else None) if s is not None)
        return touched

    # -- links, entry by entry (LinkStore)

    def links(self, scope: Scope, ids: Sequence[str]) -> list[list[dict[str, Any]]]:
        """Each id's link entries in the order last put (:class:`~kioko_core.store.link_store.LinkStore`)."""
        scope = check_scope(scope)
        with self._lock:
            answer: list[list[dict[str, Any]]] = []
            for memory_id in ids:
                record = self._records.get(memory_id) if isinstance(memory_id, str) else None
                held = self._links.get(memory_id) if record is not None and _scope_of(record) == scope else None
                answer.append([_plain_copy(entry) for entry in held.values()] if held else [])
            return answer

    def update_with_links(
        self, ops: Sequence[Op], changes: Sequence[LinkChange]
    ) -> tuple[list[Record | None], list[int | None]]:
        """``ops`` and then ``changes``, as one unit (:class:`~kioko_core.store.link_store.LinkStore`)."""
        checked, edits = validate_ops(ops, self.dim), validate_changes(changes)
        with self._lock:
            planned = self._plan(checked)
            after: dict[str, Record | None] = {}
            for op, stored, exists in planned:
                if stored is not None or exists:  # a delete of another scope's id leaves it as it is
                    after[op.id if isinstance(op, Delete) else op.record.id] = stored
            written = set(after)

            def owner(change: LinkChange) -> Record | None:
                found = after[change.owner] if change.owner in after else self._records.get(change.owner)
                return found if found is not None and _scope_of(found) == change.scope else None

            for change in edits:
                found = owner(change)
                if change.expected_version is not None and (found is None or found.version != change.expected_version):
                    held = "missing" if found is None else f"at version {found.version}"
                    raise ConflictError(f"record {change.owner!r} is {held}, expected {change.expected_version}")
            touched = self._apply(planned)
            versions: list[int | None] = []
            bumped: dict[str, int] = {}
            for change in edits:
                found = owner(change)
                if found is None:
                    versions.append(None)
                    continue
                apply_change(self._links.setdefault(change.owner, {}), change)
                if change.owner not in written and change.owner not in bumped:
                    current = self._records[change.owner]
                    self._records[change.owner] = current.model_copy(update={"version": current.version + 1})
                    bumped[change.owner] = current.version + 1
                touched.add(change.scope)
                versions.append(self._records[change.owner].version)
            self._count(touched)
            return [_copy(s) if s is not None else None for _, s, _ in planned], versions

    def _plan(self, ops: Sequence[Op]) -> list[tuple[Op, Record | None, bool]]:
        """Check every op against the state the batch would see, before anything changes."""
        touched = {op.id if isinstance(op, Delete) else op.record.id for op in ops}
        current = {i: (_scope_of(self._records[i]), self._records[i].version) for i in touched if i in self._records}
        return plan_batch(ops, current)

    def _replace(self, record: Record) -> Record:
        """Store ``record`` over the record of its id, with its vector; postings and scope sets are the caller's."""
        record = _copy(record)
        vectors = self._vectors.get(_scope_of(record))
        if vectors is not None:
            if record.embedding is not None:
                vectors.put(record.id, record.embedding)  # a replaced record's row is overwritten in place
            else:
                vectors.remove(record.id)
        self._records[record.id] = record
        return record

    def _insert(self, record: Record) -> None:
        record = self._replace(record)
        scope = _scope_of(record)
        self._by_scope[scope].add(record.id)
        key = (-record.created_at, record.id)
        postings = self._postings[scope]
        for term in record.terms:
            bisect.insort(postings[term], key)
        if record.terms:
            self._with_terms[scope].add(record.id)

    def _remove(self, record_id: str, replacing: bool = False) -> list[Scope]:
        """Take the record out of every index; the scope it was in (none if there was no such record)."""
        record = self._records.pop(record_id, None)
        if record is None:
            return []
        if not replacing:
            self._links.pop(record_id, None)  # a deleted record's links go with it
        scope = _scope_of(record)
        vectors = self._vectors.get(scope)
        if vectors is not None and not replacing:
            vectors.remove(record_id)  # an upsert keeps the row: the insert that follows sets it
        self._by_scope[scope].discard(record_id)
        key = (-record.created_at, record.id)
        postings = self._postings[scope]
        for term in record.terms:
            holders = postings[term]
            at = bisect.bisect_left(holders, key)
            if at < len(holders) and holders[at] == key:
                del holders[at]
            if not holders:
                del postings[term]
        self._with_terms[scope].discard(record_id)
        return [scope]

    def purge(self, scopes: Any = ()) -> bool:
        """Drop what the store still keys by an emptied scope of ``scopes`` (a forgotten user's): its name
        must not outlive its records. A scope still holding records is left as it is."""
        with self._lock:
            for scope in map(check_scope, scopes):
                if self._by_scope.get(scope):
                    continue
                for index in (self._by_scope, self._postings, self._with_terms, self._vectors):
                    index.pop(scope, None)
                gone = self._generations.pop(scope, None)
                if gone is not None:  # reads above it from now on, so no cache of the old scope ever matches
                    self._forgotten_generation = max(self._forgotten_generation, gone + 1)
        return True

    def close(self) -> None:
        """Nothing to release; the records stay readable until the object is dropped."""


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain_copy(value: Any) -> Any:
    """Deep copy of JSON-like data; much cheaper than copy.deepcopy for the dicts and lists metadata holds."""
    if isinstance(value, dict):
        # scalars (most of a link entry) are taken as they are, without a call each
        return {k: v if type(v) in _SCALARS else _plain_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [v if type(v) in _SCALARS else _plain_copy(v) for v in value]
    if isinstance(value, tuple):
        return [_plain_copy(v) for v in value]  # a JSON array, read back as a list like every store's
    return value  # validate_ops let only JSON through: the rest are immutable scalars


def _copy(record: Record) -> Record:
    """An independent copy: callers may change what they get without touching the store."""
    embedding = record.embedding
    if embedding is not None:
        embedding = embedding.copy()
    return record.model_copy(
        update={"metadata": _plain_copy(record.metadata), "terms": list(record.terms), "embedding": embedding}
    )
