"""``GenerationContract``: the optional per-scope write counter (:class:`~kioko_core.store.ScopeGenerations`).

A store that several processes share may count committed batches per scope; the core's index cache
then drops what it holds for a scope at the first lookup after another process wrote there, instead
of serving it until its ttl. A wrong count is worse than none: a count that misses a batch leaves a
cache stale for good, so these tests pin the rule exactly. A store without the method skips them.
"""

from __future__ import annotations

import threading

import pytest

from kioko_core.store import ConflictError, Delete, Scope, ScopeGenerations, Store, Upsert

from .base import StoreContractBase
from .support import make_record, new_scope


class GenerationContract(StoreContractBase):
    """``generation(scope)`` advances by exactly one per committed ``update_many`` that touches the scope."""

    threads = 4
    batches_per_thread = 6

    @staticmethod
    def counting(store: Store) -> ScopeGenerations:
        if not isinstance(store, ScopeGenerations):
            pytest.skip("the store has no generation(scope) (ScopeGenerations is optional): nothing to check")
        return store

    def test_every_committed_batch_advances_its_scopes_by_one(self, store: Store, scope: Scope) -> None:
        """Inserts, an update of metadata alone, a delete, a batch over two scopes: +1 each, per scope touched."""
        counter = self.counting(store)
        other, untouched = new_scope(), new_scope()
        start = {s: counter.generation(s) for s in (scope, other, untouched)}
        assert all(isinstance(value, int) for value in start.values())
        first, second = make_record(scope, terms=["alpha"]), make_record(scope)  # one without terms or vector
        store.update_many([Upsert(record=first), Upsert(record=second)])
        assert counter.generation(scope) == start[scope] + 1
        store.update_many([Upsert(record=second.model_copy(update={"metadata": {"seen": 1}}), expected_version=1)])
        assert counter.generation(scope) == start[scope] + 2, "a batch changing metadata alone must count too"
        store.update_many([Delete(id=first.id, scope=scope), Upsert(record=make_record(other, terms=["alpha"]))])
        assert counter.generation(scope) == start[scope] + 3
        assert counter.generation(other) == start[other] + 1
        assert counter.generation(untouched) == start[untouched], "a scope no batch touched must not move"

    def test_a_refused_batch_advances_nothing(self, store: Store, scope: Scope) -> None:
        counter = self.counting(store)
        record = make_record(scope, terms=["alpha"])
        store.update_many([Upsert(record=record)])
        before = counter.generation(scope)
        with pytest.raises(ConflictError):
            store.update_many([Upsert(record=make_record(scope)), Upsert(record=record, expected_version=7)])
        assert counter.generation(scope) == before, "nothing was committed, so nothing may be counted"

    def test_another_handle_reads_the_same_count(self, store: Store, store_url: str, scope: Scope) -> None:
        """What one handle (or process) committed, another sees at its very next read."""
        counter = self.counting(store)
        if not self.capabilities(store).multi_process:
            pytest.skip("the store declares multi_process=False: no second handle shares its records")
        other = self.open(store_url)
        try:
            assert isinstance(other, ScopeGenerations)
            store.update_many([Upsert(record=make_record(scope, terms=["alpha"]))])
            assert other.generation(scope) == counter.generation(scope)
            other.update_many([Upsert(record=make_record(scope, terms=["beta"]))])
            assert counter.generation(scope) == other.generation(scope)
        finally:
            other.close()

    def test_concurrent_writers_are_each_counted(self, store: Store, scope: Scope) -> None:
        """Threads writing one scope at once: the count moves by the number of batches committed."""
        counter = self.counting(store)
        before = counter.generation(scope)
        errors: list[BaseException] = []

        def work() -> None:
            try:
                for _ in range(self.batches_per_thread):
                    store.update_many([Upsert(record=make_record(scope, terms=["alpha", "beta"]))])
            except BaseException as error:  # noqa: BLE001 - reported below
                errors.append(error)

        workers = [threading.Thread(target=work) for _ in range(self.threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert not errors, errors
        assert counter.generation(scope) == before + self.threads * self.batches_per_thread
