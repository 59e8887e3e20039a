"""A store wrapper for tests and benchmarks: passes every call to a real store, counts the calls, and can
fail (or let something happen) on cue.

Reusable by any test that needs to prove how the core talks to its store, and by the benchmarks, which
report store calls per operation::

    from contract_tests.counting import CountingStore

    counting = CountingStore(MemoryStore())
    layer = MemoryLayer(counting, auto_link=True)
    layer.add("Line 3 keeps faulting with error E-217.", user_id="kumar")
    assert counting.calls["scan"] == 0

``fail_when`` injects a real exception for chosen calls (say, every postings call of the entity graph's
scope) while every other call reaches the wrapped store unchanged, so a test can break one component
of a working system without replacing any of it. ``before_call`` runs code of the test's own before a
call is passed on, e.g. another writer getting in between a read and a write.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from kioko_core.store import (
    Capabilities,
    Filter,
    Neighbor,
    Op,
    Postings,
    Record,
    Scope,
    ScopeGenerations,
    Store,
    StoreError,
)
from kioko_core.store.link_store import LinkChange, LinkStore

FailWhen = Callable[[str, tuple[Any, ...]], bool]
"""``fail_when(method, args)``: True makes that call raise :class:`InjectedFailure` instead of running."""

BeforeCall = Callable[[str, tuple[Any, ...]], None]
"""``before_call(method, args)``: runs before each call reaches the wrapped store."""


class InjectedFailure(StoreError):
    """Raised by :class:`CountingStore` for the calls its ``fail_when`` picks."""


class CountingStore:
    """Counts the calls per method of a real store (``calls``) and keeps their order (``log``)."""

    def __init__(
        self,
        inner: Store,
        *,
        fail_when: FailWhen | None = None,
        before_call: BeforeCall | None = None,
        generations: bool = False,
    ) -> None:
        """``generations``: pass the inner store's ScopeGenerations on (counted as ``generation`` calls), so
        the core keeps its record cache as it would on the bare store; off by default, so tests that count or
        fail reads see every read reach the store."""
        self.inner = inner
        if generations and isinstance(inner, ScopeGenerations):
            self.generation = self._generation  # an attribute only when the inner store counts
        if isinstance(inner, LinkStore):  # links kept apart: passed on, a read counted as ``links``, a batch
            self.links = self._links  # as ``update_many`` (the one batch a write is)
            self.update_with_links = self._update_with_links
        self.capabilities: Capabilities = inner.capabilities
        self.dim: int = inner.dim
        self.calls: Counter[str] = Counter()
        self.log: list[str] = []
        self.fail_when = fail_when
        self.before_call = before_call

    def reset(self) -> None:
        """Forget the calls counted so far."""
        self.calls.clear()
        self.log.clear()

    def snapshot(self) -> Counter[str]:
        """A copy of the counts, to subtract from a later one."""
        return Counter(self.calls)

    def _note(self, method: str, *args: Any) -> None:
        self.calls[method] += 1
        self.log.append(method)
        if self.fail_when is not None and self.fail_when(method, args):
            raise InjectedFailure(f"{method} failed on purpose (a test's injected failure)")
        if self.before_call is not None:
            self.before_call(method, args)

    def _generation(self, scope: Scope) -> int:
        self._note("generation", scope)
        return self.inner.generation(scope)  # type: ignore[attr-defined]

    def _links(self, scope: Scope, ids: Sequence[str]) -> list[list[dict[str, Any]]]:
        self._note("links", scope, ids)
        return self.inner.links(scope, ids)  # type: ignore[attr-defined,no-any-return]

    def _update_with_links(self, ops: Sequence[Op], changes: Sequence[LinkChange]) -> Any:
        self._note("update_many", ops, changes)
        return self.inner.update_with_links(ops, changes)  # type: ignore[attr-defined]

    def get(self, scope: Scope, ids: Sequence[str]) -> list[Record | None]:
        self._note("get", scope, ids)
        return self.inner.get(scope, ids)

    def update_many(self, ops: Sequence[Op]) -> list[Record | None]:
        self._note("update_many", ops)
        return self.inner.update_many(ops)

    def postings(self, scope: Scope, terms: Sequence[str], limit: int) -> Postings:
        self._note("postings", scope, terms, limit)
        return self.inner.postings(scope, terms, limit)

    def knn(
        self, scope: Scope, vector: Sequence[float] | np.ndarray, k: int, filter: Filter | None = None
    ) -> list[Neighbor]:
        self._note("knn", scope, vector, k, filter)
        return self.inner.knn(scope, vector, k, filter)

    def scan(self, scope: Scope, filter: Filter | None = None, batch: int = 500) -> Iterator[Record]:
        self._note("scan", scope, filter, batch)
        return self.inner.scan(scope, filter, batch)

    def close(self) -> None:
        self.inner.close()

    def __repr__(self) -> str:
        return f"CountingStore({self.inner!r})"
