"""What a store promises about its life: capabilities, close, persistence, and several processes."""

from __future__ import annotations

import multiprocessing
import queue
import time
from typing import Any, Callable

import pytest

from contract_tests import _workers
from contract_tests.base import StoreContractBase
from contract_tests.support import as_stored, check_knn, make_record, unique, vectors
from kioko_core.store import ConflictError, Delete, Filter, Scope, Store, Upsert
from kioko_core.store.url import StoreURL

WORKER_PATIENCE = 300.0
"""Seconds to wait for a child process's result before calling it hung (a guard, not a timing check)."""


class LifecycleContract(StoreContractBase):
    """Every store: declared capabilities, the protocol's shape, a harmless double close, a quiet repr."""

    def test_declares_capabilities_and_dim(self, store: Store) -> None:
        """``capabilities`` is a Capabilities and ``dim`` is the dimension the store was opened with."""
        declared = self.capabilities(store)
        assert all(
            isinstance(getattr(declared, flag), bool)
            for flag in ("transactions", "native_knn", "persistent", "multi_process", "approximate_knn")
        )
        assert isinstance(declared.notes, tuple) and all(isinstance(note, str) for note in declared.notes)
        assert store.dim == self.dim

    def test_satisfies_the_store_protocol(self, store: Store) -> None:
        """The five methods and close are there (runtime check of the Protocol)."""
        assert isinstance(store, Store)

    def test_closing_twice_is_harmless(self, store_url: str) -> None:
        """close() may be called again without an error."""
        opened = self.open(store_url)
        opened.close()
        opened.close()

    def test_repr_hides_the_password(self, store: Store, store_url: str) -> None:
        """A URL's password never shows in the store's repr or str."""
        password = StoreURL.parse(store_url).password
        if not password:
            pytest.skip("the store URL has no password, so there is none to hide")
        assert password not in repr(store) and password not in str(store)


class PersistenceContract(StoreContractBase):
    """A store that declares ``persistent`` keeps everything across close and reopen."""

    def test_records_survive_reopening(self, store: Store, store_url: str, scope: Scope) -> None:
        """After close and reopen, get, postings, knn and scan answer as before."""
        if not self.capabilities(store).persistent:
            pytest.skip("the store declares persistent=False, so reopening promises nothing")
        records = [
            make_record(scope, terms=["durable", f"t{i}"], embedding=v, metadata={"i": i})
            for i, v in enumerate(vectors(20, seed=401))
        ]
        store.update_many([Upsert(record=r) for r in records])
        store.update_many([Upsert(record=records[0])])
        store.close()
        reopened = self.open(store_url)
        try:
            expected = [as_stored(records[0], 2)] + [as_stored(r, 1) for r in records[1:]]
            assert reopened.get(scope, [r.id for r in records]) == expected
            assert reopened.postings(scope, ["durable"], limit=0).df == {"durable": 20}
            assert [r.id for r in reopened.scan(scope, batch=3)] == sorted(r.id for r in records)
            query = vectors(1, seed=402)[0]
            check_knn(
                reopened.knn(scope, query, 5),
                records,
                query,
                5,
                approximate=self.capabilities(reopened).approximate_knn,
            )
            [again] = reopened.update_many([Upsert(record=records[0], expected_version=2)])
            assert again is not None and again.version == 3
        finally:
            reopened.close()

    def test_deletes_survive_reopening(self, store: Store, store_url: str, scope: Scope) -> None:
        """A delete is as durable as a write: the record stays gone after reopen."""
        if not self.capabilities(store).persistent:
            pytest.skip("the store declares persistent=False, so reopening promises nothing")
        gone, kept = make_record(scope, terms=["x"]), make_record(scope, terms=["x"])
        store.update_many([Upsert(record=gone), Upsert(record=kept)])
        store.update_many([Upsert(record=gone.model_copy(update={"content": "will vanish"}))])
        store.update_many([Delete(id=gone.id, scope=scope)])
        store.close()
        reopened = self.open(store_url)
        try:
            assert reopened.get(scope, [gone.id, kept.id]) == [None, as_stored(kept, 1)]
            assert reopened.postings(scope, ["x"], limit=5).ids == {"x": [kept.id]}
            assert list(r.id for r in reopened.scan(scope, Filter(ids=frozenset({gone.id})))) == []
        finally:
            reopened.close()


class MultiProcessContract(StoreContractBase):
    """A store that declares ``multi_process`` keeps version checks right across processes."""

    processes = 2
    increments_per_process = 25
    raced_ids = 15

    def run_workers(self, target: Callable[..., None], arguments: list[tuple]) -> list[Any]:
        """Start one spawned process per argument tuple, sharing a barrier; return their results."""
        context = multiprocessing.get_context("spawn")
        barrier, results = context.Barrier(len(arguments)), context.Queue()
        children = [context.Process(target=target, args=(*args, barrier, results), daemon=True) for args in arguments]
        for child in children:
            child.start()
        answers = []
        try:
            for _ in children:
                try:
                    status, payload = results.get(timeout=WORKER_PATIENCE)
                except queue.Empty:
                    pytest.fail(f"a worker process gave no result within {WORKER_PATIENCE:.0f} s (deadlock?)")
                assert status == "ok", f"a worker process failed:\n{payload}"
                answers.append(payload)
        finally:
            for child in children:
                child.join(timeout=30)
                if child.is_alive():
                    child.terminate()
        return answers

    def require_multi_process(self, store: Store) -> None:
        if not self.capabilities(store).multi_process:
            pytest.skip("the store declares multi_process=False, so it is never opened by two processes at once")

    def test_concurrent_increments_lose_no_update(self, store: Store, store_url: str, scope: Scope) -> None:
        """Processes doing versioned read-modify-write on one counter, retrying on conflict, count everything."""
        self.require_multi_process(store)
        counter = make_record(scope, unique("counter"), metadata={"count": 0})
        store.update_many([Upsert(record=counter)])
        arguments = [
            (store_url, self.dim, tuple(scope), counter.id, self.increments_per_process) for _ in range(self.processes)
        ]
        self.run_workers(_workers.increment_counter, arguments)
        [final] = store.get(scope, [counter.id])
        total = self.processes * self.increments_per_process
        assert final is not None
        assert final.metadata["count"] == total, f"lost updates: counted {final.metadata['count']} of {total}"
        assert final.version == total + 1

    def test_concurrent_inserts_of_one_id_have_one_winner(self, store: Store, store_url: str, scope: Scope) -> None:
        """Processes inserting the same ids with expected_version=0 at once: exactly one wins each id."""
        self.require_multi_process(store)
        ids = [unique("raced") for _ in range(self.raced_ids)]
        workers = [f"worker-{n}" for n in range(self.processes)]
        # results arrive in finishing order, so each names its worker
        answers = dict(
            self.run_workers(
                _workers.race_inserts, [(store_url, self.dim, tuple(scope), ids, worker) for worker in workers]
            )
        )
        assert sorted(answers) == workers
        stored = store.get(scope, ids)
        for record_id, record in zip(ids, stored):
            winners = [worker for worker, won in answers.items() if record_id in won]
            assert len(winners) == 1, f"{record_id}: {len(winners)} processes were told they created it"
            assert record is not None and record.version == 1
            assert record.content == f"written by {winners[0]}", "the stored record is not the winner's"

    def test_two_handles_share_records_and_version_checks(self, store: Store, store_url: str, scope: Scope) -> None:
        """A second handle sees what the first wrote, and version checks span both handles."""
        self.require_multi_process(store)
        other = self.open(store_url)
        try:
            record = make_record(scope, terms=["seen"])
            store.update_many([Upsert(record=record)])
            assert other.get(scope, [record.id]) == [as_stored(record, 1)]
            other.update_many([Upsert(record=record, expected_version=1)])
            with pytest.raises(ConflictError):
                store.update_many([Upsert(record=record, expected_version=1)])
            assert store.postings(scope, ["seen"], limit=1).df == {"seen": 1}
        finally:
            other.close()


class CrashContract(StoreContractBase):
    """A store that declares ``transactions`` keeps a batch all or nothing even if its writer is killed."""

    batch_size = 1500
    kill_after = (0.0, 0.05, 0.2, 0.6)
    """Seconds between the writer starting its batch and the kill: varied, so some kills land mid-batch."""

    def test_a_batch_whose_writer_is_killed_is_all_or_nothing(self, store: Store, store_url: str, scope: Scope) -> None:
        """After SIGKILL of a writer at various moments, its batch is entirely there or entirely absent.

        Needs ``transactions``, ``persistent`` and ``multi_process``: the batch is written by another
        process and read here. The store stays writable afterwards (no lock or journal left behind).
        """
        declared = self.capabilities(store)
        missing = [flag for flag in ("transactions", "persistent", "multi_process") if not getattr(declared, flag)]
        if missing:
            pytest.skip(
                f"the store declares {', '.join(f'{flag}=False' for flag in missing)}; "
                "the crash test needs a transactional store that another process can write"
            )
        context = multiprocessing.get_context("spawn")
        for delay in self.kill_after:
            ids = [unique("crash") for _ in range(self.batch_size)]
            ready, results = context.Event(), context.Queue()
            writer = context.Process(
                target=_workers.write_batch_until_killed,
                args=(store_url, self.dim, tuple(scope), ids, ready, results),
                daemon=True,
            )
            writer.start()
            try:
                assert ready.wait(WORKER_PATIENCE), "the writer process never got ready"
                time.sleep(delay)  # not a timing assertion: only varies where the kill lands
            finally:
                writer.kill()
                writer.join(timeout=30)
            if not results.empty():
                status, payload = results.get()
                assert status == "ok", f"the writer failed before it was killed:\n{payload}"
            present = sum(record is not None for record in store.get(scope, ids))
            assert present in (0, len(ids)), f"killed after {delay} s, the batch is half written: {present}/{len(ids)}"
            probe = make_record(scope, terms=["after-crash"])
            store.update_many([Upsert(record=probe)])
            assert store.get(scope, [probe.id]) == [as_stored(probe, 1)]
