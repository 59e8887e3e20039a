"""Functions run in child processes by the multi-process contract (importable by the spawn start method)."""

from __future__ import annotations

import traceback
from typing import Any

from contract_tests.support import make_record
from kioko_core.store import ConflictError, Scope, Upsert
from kioko_core.store.registry import open_store

MAX_RETRIES = 10_000
"""Give up on one increment after this many conflicts: a store that never lets a write through is broken."""

BARRIER_TIMEOUT = 120.0
"""Seconds a worker waits for its sibling at a barrier; a dead sibling must not hang the suite."""


def increment_counter(
    url: str, dim: int, scope: tuple[str, str | None], record_id: str, times: int, barrier: Any, results: Any
) -> None:
    """Add 1 to the record's ``metadata['count']`` ``times`` times by versioned read-modify-write."""
    try:
        store = open_store(url, dim=dim)
        try:
            barrier.wait(BARRIER_TIMEOUT)
            conflicts = 0
            for _ in range(times):
                for _attempt in range(MAX_RETRIES):
                    [current] = store.get(Scope(*scope), [record_id])
                    assert current is not None, "the counter record vanished"
                    bumped = current.model_copy(update={"metadata": {"count": current.metadata["count"] + 1}})
                    try:
                        store.update_many([Upsert(record=bumped, expected_version=current.version)])
                        break
                    except ConflictError:
                        conflicts += 1
                else:
                    raise RuntimeError(f"an increment conflicted {MAX_RETRIES} times in a row")
            results.put(("ok", conflicts))
        finally:
            store.close()
    except BaseException:  # the parent reports the child's traceback instead of waiting for a result
        results.put(("error", traceback.format_exc()))


def race_inserts(
    url: str, dim: int, scope: tuple[str, str | None], record_ids: list[str], worker: str, barrier: Any, results: Any
) -> None:
    """Try to create each record with ``expected_version=0``; report ``(worker, ids this worker created)``."""
    try:
        store = open_store(url, dim=dim)
        try:
            won: list[str] = []
            for record_id in record_ids:
                barrier.wait(BARRIER_TIMEOUT)
                record = make_record(Scope(*scope), record_id, content=f"written by {worker}")
                try:
                    store.update_many([Upsert(record=record, expected_version=0)])
                    won.append(record_id)
                except ConflictError:
                    pass
            results.put(("ok", (worker, won)))
        finally:
            store.close()
    except BaseException:
        results.put(("error", traceback.format_exc()))


def write_batch_until_killed(
    url: str, dim: int, scope: tuple[str, str | None], record_ids: list[str], ready: Any, results: Any
) -> None:
    """Write one large batch; the parent kills this process at some point before, during or after it."""
    try:
        store = open_store(url, dim=dim)
        vector = [1.0] + [0.5] * (dim - 1)
        ops = [
            Upsert(
                record=make_record(
                    Scope(*scope),
                    record_id,
                    content="x" * 2000,
                    terms=["crash", record_id],
                    embedding=vector,
                    metadata={"n": n},
                )
            )
            for n, record_id in enumerate(record_ids)
        ]
        ready.set()
        store.update_many(ops)
        results.put(("ok", "finished before the kill"))
        store.close()
    except BaseException:
        results.put(("error", traceback.format_exc()))
