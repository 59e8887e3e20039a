"""``GenerationContract`` and ``ChangesContract``: the optional per-scope write counter
(:class:`~kioko_core.store.ScopeGenerations`) and change log (:class:`~kioko_core.store.ScopeChanges`).

A store that several processes share may count committed batches per scope; the core's index cache
then drops what it holds for a scope at the first lookup after another process wrote there, instead
of serving it until its ttl. A wrong count is worse than none: a count that misses a batch leaves a
cache stale for good, so these tests pin the rule exactly. A store without the method skips them.
"""

from __future__ import annotations

import threading

import pytest

from contract_tests.base import StoreContractBase
from contract_tests.support import as_stored, make_record, new_scope, unique
from kioko_core.store import (
    ConflictError,
    Delete,
    ManyGenerations,
    Scope,
    ScopeChanges,
    ScopeChangeSet,
    ScopeGenerations,
    Store,
    Upsert,
)


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

    def test_only_a_batch_that_changes_a_record_of_the_scope_counts(self, store: Store, scope: Scope) -> None:
        """What touching a scope means: the batch, as a whole, leaves a record of the scope written (inserted or
        replaced, even unchanged: its version moves) or takes one away. A delete of a missing id, a delete of
        another scope's id (which looks missing and leaves that record be), a record inserted and deleted again
        in one batch and an empty batch touch nothing; a batch touching a scope counts once, whatever its size."""
        counter = self.counting(store)
        other = new_scope()
        mine, theirs = make_record(scope, terms=["alpha"]), make_record(other, terms=["alpha"])
        store.update_many([Upsert(record=mine)])
        store.update_many([Upsert(record=theirs)])
        start = {s: counter.generation(s) for s in (scope, other)}

        def moved() -> dict[Scope, int]:
            return {s: counter.generation(s) - start[s] for s in (scope, other)}

        store.update_many([Delete(id=unique("missing"), scope=scope)])
        assert moved() == {scope: 0, other: 0}, "a delete of a missing id changes nothing"
        store.update_many([Delete(id=theirs.id, scope=scope)])
        assert moved() == {scope: 0, other: 0}, "a delete of another scope's id changes nothing, in either scope"
        assert store.get(other, [theirs.id]) == [as_stored(theirs, 1)]
        passing = make_record(scope, terms=["alpha"])
        store.update_many([Upsert(record=passing), Delete(id=passing.id, scope=scope)])
        assert moved() == {scope: 0, other: 0}, "a record inserted and deleted in one batch leaves the scope as it was"
        store.update_many([])
        assert moved() == {scope: 0, other: 0}, "an empty batch commits nothing"
        store.update_many([Upsert(record=mine, expected_version=1)])
        assert moved() == {scope: 1, other: 0}, "rewriting a record unchanged still moves its version"
        store.update_many(
            [Delete(id=mine.id, scope=scope), Delete(id=theirs.id, scope=scope), Delete(id=mine.id, scope=scope)]
        )
        assert moved() == {scope: 2, other: 0}, "a batch that takes a record away counts once, and only there"

    def test_generations_reads_each_scope_as_generation_does(self, store: Store, scope: Scope) -> None:
        """The optional ``generations(scopes)`` (ManyGenerations): each scope's count, in the order asked, a scope
        asked twice answered twice, a scope never written as ``generation`` reads it, no scope no answer."""
        counter = self.counting(store)
        if not isinstance(store, ManyGenerations):
            pytest.skip("the store has no generations(scopes) (ManyGenerations is optional): nothing to check")
        other, untouched = new_scope(), new_scope()
        store.update_many([Upsert(record=make_record(scope, terms=["alpha"]))])
        store.update_many([Upsert(record=make_record(scope)), Upsert(record=make_record(other, terms=["beta"]))])
        asked = [other, scope, untouched, scope]
        assert store.generations(asked) == [counter.generation(s) for s in asked]
        assert store.generations([]) == []

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


class ChangesContract(StoreContractBase):
    """``changes_since(scope, g)``: every id written into the scope after generation g, or None; never less.

    Optional (:class:`~kioko_core.store.ScopeChanges`), for a store that also counts its generations. A
    cache trusts the answer to keep everything else it holds, so an answer that misses a batch leaves it
    stale: None (the cache rebuilds) is always allowed, an incomplete set never.
    """

    batches = 24

    @staticmethod
    def changing(store: Store) -> ScopeChanges:
        if not isinstance(store, ScopeChanges) or not isinstance(store, ScopeGenerations):
            pytest.skip("the store has no changes_since(scope, generation) (ScopeChanges is optional)")
        return store

    def test_the_ids_written_since_a_generation(self, store: Store, scope: Scope) -> None:
        changes = self.changing(store)
        counter: ScopeGenerations = store  # type: ignore[assignment]
        start = counter.generation(scope)
        assert changes.changes_since(scope, start) in (None, ScopeChangeSet(start, frozenset()))
        first, second = make_record(scope, terms=["alpha"]), make_record(scope)
        store.update_many([Upsert(record=first), Upsert(record=second)])
        middle = counter.generation(scope)
        store.update_many([Upsert(record=first.model_copy(update={"terms": ["beta"]}), expected_version=1)])
        store.update_many([Upsert(record=make_record(new_scope(), terms=["alpha"]))])  # another scope's
        answer = changes.changes_since(scope, start)
        assert answer is not None, "a scope only written to must be able to say what was written"
        assert answer == ScopeChangeSet(counter.generation(scope), frozenset({first.id, second.id}))
        assert changes.changes_since(scope, middle) == ScopeChangeSet(middle + 1, frozenset({first.id}))

    def test_a_removal_since_the_generation_is_never_answered_with_ids(self, store: Store, scope: Scope) -> None:
        """A deleted record must leave every cache: the answer after a delete is None (rebuild)."""
        changes = self.changing(store)
        counter: ScopeGenerations = store  # type: ignore[assignment]
        kept, gone = make_record(scope, terms=["alpha"]), make_record(scope, terms=["alpha"])
        store.update_many([Upsert(record=kept), Upsert(record=gone)])
        before = counter.generation(scope)
        store.update_many([Delete(id=gone.id, scope=scope)])
        store.update_many([Upsert(record=make_record(scope, terms=["beta"]))])
        assert changes.changes_since(scope, before) is None
        after = counter.generation(scope)
        assert changes.changes_since(scope, after) in (None, ScopeChangeSet(after, frozenset()))

    def test_every_answer_is_complete_or_none(self, store: Store, scope: Scope) -> None:
        """After a run of batches, the answer from each earlier generation holds every id written since."""
        changes = self.changing(store)
        counter: ScopeGenerations = store  # type: ignore[assignment]
        written: list[tuple[int, set[str]]] = []
        for n in range(self.batches):
            batch = [make_record(scope, terms=["alpha"]) for _ in range(1 + n % 3)]
            store.update_many([Upsert(record=r) for r in batch])
            written.append((counter.generation(scope), {r.id for r in batch}))
        now = counter.generation(scope)
        answered = 0
        for position, (generation, _) in enumerate(written):
            answer = changes.changes_since(scope, generation)
            if answer is None:
                continue
            answered += 1
            expected = set().union(*(ids for _, ids in written[position + 1 :]))
            assert answer == ScopeChangeSet(now, frozenset(expected)), f"from generation {generation}"
        assert answered, "a store with ScopeChanges answered None for every recent generation"

    def test_another_handle_gets_the_same_changes(self, store: Store, store_url: str, scope: Scope) -> None:
        changes = self.changing(store)
        if not self.capabilities(store).multi_process:
            pytest.skip("the store declares multi_process=False: no second handle shares its records")
        counter: ScopeGenerations = store  # type: ignore[assignment]
        start = counter.generation(scope)
        other = self.open(store_url)
        try:
            record = make_record(scope, terms=["alpha"])
            other.update_many([Upsert(record=record)])
            assert changes.changes_since(scope, start) == ScopeChangeSet(start + 1, frozenset({record.id}))
        finally:
            other.close()
