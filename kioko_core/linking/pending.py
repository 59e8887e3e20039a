"""A batch of writes held back: the store as it will be once they are written, read before they are.

``add_many`` plans its memories one by one, as ``add`` would, but stores them a batch at a time.
:class:`PendingStore` stands in for the store while a batch is planned: every read (``get``, ``postings``,
``knn``, the scope's generation and changes) answers as the store would if the batch's writes so far had
been committed one after another, and every write is held here instead. The linker and the index cache run
their ordinary code against it, so each memory sees the ones before it exactly as ``add`` would have
(same candidates, statistics and records, versions included); :meth:`PendingStore.ops` is then one
``update_many`` for the whole batch.

Held writes are new records and changes of stored records' links (what ``add`` writes: a stored record's
terms are taken to be unchanged). A write this module cannot answer reads for (a delete, a held new record
whose terms change) is refused with :class:`Unsupported`; the caller writes such a memory on its own, after
the batch.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from kioko_core.store import (
    Filter,
    Neighbor,
    Op,
    Postings,
    Record,
    Scope,
    ScopeChangeSet,
    Store,
    Upsert,
    plan_batch,
    reference_cosines,
    validate_ops,
)


class Unsupported(RuntimeError):
    """A write a held batch cannot answer reads for (a delete, a stored record whose terms change)."""


class PendingStore:
    """The store ``base`` with the held writes of one scope applied (see the module)."""

    def __init__(self, base: Store, scope: Scope) -> None:
        self.base = base
        self._counted: Any = base
        """The same store, for its optional methods (ScopeGenerations, ScopeChanges): called only where it has them."""
        self.scope = scope
        self.capabilities = base.capabilities
        self.dim = base.dim
        self.records: dict[str, Record] = {}
        """id -> the record as the batch will store it (its version counts the batch's writes to it)."""
        self.expected: dict[str, int] = {}
        """id -> the version it had before the batch (0: new): the batch's one write expects it there."""
        self._holders: dict[str, list[tuple[float, str]]] = {}
        """term -> (-created_at, id) of the new records holding it, sorted as the store orders postings."""
        self._with_terms = 0
        self._log: list[frozenset[str]] = []
        """The ids each held write touched, in order (for ``changes_since``)."""
        self._generations: dict[Scope, int] = {}
        """The base's generation of each scope asked, read once for the batch (see :meth:`generation`)."""

    def __getattr__(self, name: str) -> Any:
        if name == "base":  # not set yet (a copy being built): never recurse
            raise AttributeError(name)
        return getattr(self.base, name)

    @property
    def writes(self) -> int:
        """How many writes are held."""
        return len(self._log)

    # -- reads

    def holds(self, scope: Scope, record_id: str) -> bool:
        """Whether the batch holds a record ``record_id`` of ``scope`` (written by an earlier memory of the batch)."""
        return scope == self.scope and record_id in self.records

    def get(self, scope: Scope, ids: Sequence[str]) -> list[Record | None]:
        held = self.records if scope == self.scope else {}
        rest = [i for i in ids if i not in held]
        found = dict(zip(rest, self.base.get(scope, rest))) if rest else {}
        return [held[i] if i in held else found.get(i) for i in ids]

    def postings(self, scope: Scope, terms: Sequence[str], limit: int) -> Postings:
        result = self.base.postings(scope, terms, limit)
        if scope != self.scope or not self._holders:
            return result
        df, ids = dict(result.df), {t: list(v) for t, v in result.ids.items()}
        merged = [t for t in dict.fromkeys(terms) if t in self._holders]
        for term in merged:
            df[term] = df.get(term, 0) + len(self._holders[term])
        if limit > 0 and merged:
            # newest created_at first, ties by id, as the store orders them (a term the cache has not seen since an
            # earlier memory of the batch took it, or one whose entry expired). The held records go first where
            # they are newer than the newest stored holder (an import in time order): only that one's time is
            # read; otherwise every stored holder's.
            when = self._times(scope, [ids[t][0] for t in merged if ids.get(t)])
            later = {
                t
                for t in merged
                if ids.get(t) and (ids[t][0] not in when or not self._holders[t][-1] < (-when[ids[t][0]], ids[t][0]))
            }
            when.update(self._times(scope, sorted({i for t in later for i in ids[t][1:]})))
            for term in merged:
                if term not in later:  # every held record is newer than every stored one
                    ids[term] = ([i for _, i in self._holders[term]] + ids.get(term, []))[:limit]
                    continue
                keyed = [(-when[i], i) for i in ids[term] if i in when] + self._holders[term]
                ids[term] = [i for _, i in sorted(keyed)[:limit]]
        return Postings(n=result.n + self._with_terms, df=df, ids=ids)

    def _times(self, scope: Scope, ids: list[str]) -> dict[str, float]:
        """``created_at`` of the stored records among ``ids`` (one read; missing ones left out)."""
        return {r.id: r.created_at for r in self.get(scope, ids) if r is not None} if ids else {}

    def knn(self, scope: Scope, vector: Any, k: int, filter: Filter | None = None) -> list[Neighbor]:
        hits = self.base.knn(scope, vector, k, filter)
        if scope != self.scope:
            return hits
        new = [
            r
            for i, r in self.records.items()
            if self.expected[i] == 0 and r.embedding is not None and (filter is None or filter.matches(r))
        ]
        if not new:
            return hits
        query = np.asarray(vector, dtype=np.float32)
        scored = [(h.score, h.id) for h in hits]
        scored += zip(
            reference_cosines(query, [r.embedding for r in new if r.embedding is not None]), (r.id for r in new)
        )
        scored.sort(key=lambda pair: (-pair[0], pair[1]))  # ties by id, as the protocol orders them
        return [Neighbor(i, s) for s, i in scored[:k]]

    def scan(self, scope: Scope, filter: Filter | None = None, batch: int = 500) -> Iterator[Record]:
        if scope == self.scope and self.records:
            raise Unsupported("a scan while a batch is held")
        return iter(self.base.scan(scope, filter, batch))

    def generation(self, scope: Scope) -> int:
        """The base's generation, plus one per held write for the batch's scope (one write, one batch).

        The base's is read once per scope for the batch (every memory's plan asked it: one read a memory). Only the
        batch's write changes it in this process, after this store's use; another process's write in between is
        seen after the batch (the index cache's catch-up reads the changes since the generation the batch began at:
        :meth:`~kioko_core.linking.index.IndexCache.committed_batch`), and a record it changed that the batch read
        fails the batch's write (its version), whose memories are then added one by one."""
        return self._base_generation(scope) + (self.writes if scope == self.scope else 0)

    def _base_generation(self, scope: Scope) -> int:
        known = self._generations.get(scope)
        if known is None:
            known = self._generations[scope] = int(self._counted.generation(scope))
        return known

    def generations(self, scopes: Sequence[Scope]) -> list[int]:
        """Each scope's :meth:`generation`, held writes included: one read where the base reads several together.

        Defined here, not passed through to the base: the base's answer would leave out the writes held for the
        batch's scope, and a cache that read it would take the scope for changed behind it."""
        asked = list(scopes)
        unread = [scope for scope in dict.fromkeys(asked) if scope not in self._generations]
        if unread:
            many = getattr(self.base, "generations", None)
            stored = many(unread) if many is not None else [self._counted.generation(scope) for scope in unread]
            self._generations.update((scope, int(n)) for scope, n in zip(unread, stored))
        return [self._generations[scope] + (self.writes if scope == self.scope else 0) for scope in asked]

    def changes_since(self, scope: Scope, generation: int) -> ScopeChangeSet | None:
        changes = self._counted.changes_since
        if scope != self.scope:
            return changes(scope, generation)  # type: ignore[no-any-return]
        now = self._base_generation(scope)
        held = self._log[max(0, generation - now) :]
        ids: set[str] = set().union(*held) if held else set()
        if generation < now:
            before = changes(scope, generation)
            if before is None:
                return None
            ids |= before.ids
        return ScopeChangeSet(generation=now + self.writes, ids=frozenset(ids))

    # -- writes

    def update_many(self, ops: Sequence[Op]) -> list[Record | None]:
        """Hold ``ops`` (upserts of this scope): checked and versioned as the store would, nothing written.

        A new record is checked as the store checks it; a record read from the store or held already, whose links
        alone the linker changed, was checked then (the batch's write checks every op once more)."""
        fresh = [
            op for op in ops if isinstance(op, Upsert) and op.record.id not in self.records and not op.expected_version
        ]
        valid = {id(op): checked for op, checked in zip(fresh, validate_ops(fresh, self.dim))}
        checked = [valid.get(id(op), op) for op in ops]
        current: dict[str, tuple[Scope, int]] = {}
        for op in checked:
            if not isinstance(op, Upsert) or op.record.scope != self.scope:
                raise Unsupported("only upserts of the batch's scope are held")
            key = op.record.id
            if key in self.records:
                current[key] = (self.scope, self.records[key].version)
            elif op.expected_version:
                current[key] = (self.scope, op.expected_version)  # as read; the batch's write checks it
            elif op.expected_version is None:
                raise Unsupported("an unconditional write of a record the batch has not read")
        planned = plan_batch(checked, current)
        for _, stored, _ in planned:
            assert stored is not None
            held = self.records.get(stored.id)
            if stored.id not in self.expected:
                self.expected[stored.id] = current.get(stored.id, (self.scope, 0))[1]
                if self.expected[stored.id] == 0:
                    self._hold_terms(stored)
            elif self.expected[stored.id] == 0 and held is not None and set(held.terms) != set(stored.terms):
                raise Unsupported("a held record's terms changed")
            self.records[stored.id] = stored
        self._log.append(frozenset(stored.id for _, stored, _ in planned if stored is not None))
        return [stored for _, stored, _ in planned]

    def _hold_terms(self, record: Record) -> None:
        key = (-record.created_at, record.id)
        for term in dict.fromkeys(record.terms):
            bisect.insort(self._holders.setdefault(term, []), key)
        if record.terms:
            self._with_terms += 1

    def ops(self) -> list[Op]:
        """The batch as one write: each record once, as it will be stored, at the version it was read."""
        return [Upsert(record=r, expected_version=self.expected[i]) for i, r in self.records.items()]
