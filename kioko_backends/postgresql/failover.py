"""What a call does when its connection dies: wait for a server that accepts it, and which writes to repeat.

A read is always safe to repeat. A write whose connection died after its statements were sent may or may
not have committed (the server can die after COMMIT and before its answer), so it is repeated only when
the state it finds on the new primary says which: every op of the batch carries ``expected_version``
(Kioko's own writes all do) and names a distinct id, and then

- every record is exactly what the batch would have written (each upsert's record at ``expected_version
  + 1``, each deleted id gone): the batch committed before the server died; it is not repeated, and its
  results are returned;
- every record is still at its ``expected_version`` (missing when it is 0): nothing was applied; the batch
  is sent again, and its version checks still hold against any writer that came in between;
- anything else (another writer moved a record meanwhile, or a batch without versions): the call raises
  :class:`~kioko_core.store.ConnectionLostError`, saying the outcome is unknown.

A call with link changes (LinkStore) is one transaction, so its ops tell for the whole call; it qualifies when
every change whose owner no op writes carries ``expected_version`` (the layer's do). Without ops only the
owners' versions can tell, and only one way: all still at ``expected_version`` means nothing was applied (a
commit would have moved each by one); anything else is unknown.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from kioko_backends.postgresql.pool import _Pool
from kioko_core.store import Delete, Op, Record, Scope, stamped
from kioko_core.store.link_store import LinkChange

APPLIED, UNTOUCHED, UNKNOWN = "applied", "untouched", "unknown"


class _Recovery:
    """One call's budget for dead connections: ``?failover_wait=`` seconds from the call's start, or, when the
    wait is 0 (one host), one immediate retry as before."""

    def __init__(self, pool: _Pool) -> None:
        self.pool = pool
        self.deadline = time.monotonic() + pool.failover_wait
        self.losses = 0
        self.seen_generation = pool.generation

    def again(self) -> bool:
        """True when the call may try once more (a server accepts connections again)."""
        self.losses += 1
        if self.pool.failover_wait <= 0:
            self.pool.discard_idle()  # the server went away: its other sessions are gone too
            return self.losses == 1
        recovered = self.pool.recovered(self.seen_generation, self.deadline)
        self.seen_generation = self.pool.generation
        return recovered


def repeatable(ops: Sequence[Op], changes: Sequence[LinkChange] = ()) -> bool:
    """True when a lost batch's outcome can be read back from the store: every op versioned, ids distinct, and
    every link change of an owner no op writes versioned."""
    ids = [_id(op) for op in ops]
    return (
        all(op.expected_version is not None for op in ops)
        and len(set(ids)) == len(ids)
        and all(change.expected_version is not None for change in changes if change.owner not in ids)
    )


def outcome(
    ops: Sequence[Op],
    read: Callable[[Scope, list[str]], dict[str, Record]],
    changes: Sequence[LinkChange] = (),
) -> str:
    """APPLIED, UNTOUCHED or UNKNOWN for a ``repeatable`` batch, from the records ``read(scope, ids)`` finds."""
    if not ops:
        owners: dict[Scope, list[str]] = defaultdict(list)
        for change in changes:
            owners[change.scope].append(change.owner)
        found = {key: record for scope, ids in owners.items() for key, record in read(scope, ids).items()}
        still = all((found[c.owner].version if c.owner in found else 0) == c.expected_version for c in changes)
        return UNTOUCHED if still else UNKNOWN
    ids_by_scope: dict[Scope, list[str]] = defaultdict(list)
    for op in ops:
        ids_by_scope[op.scope if isinstance(op, Delete) else op.record.scope].append(_id(op))
    current: dict[str, Record] = {}
    for scope, ids in ids_by_scope.items():
        current.update(read(scope, ids))
    applied = untouched = True
    for op in ops:
        expected = op.expected_version or 0
        held = current.get(_id(op))
        untouched &= (held.version if held is not None else 0) == expected
        if isinstance(op, Delete):
            applied &= held is None
        else:
            applied &= held is not None and _same(held, stamped(op.record, expected))
    return APPLIED if applied else UNTOUCHED if untouched else UNKNOWN


def results(ops: Sequence[Op]) -> list[Record | None]:
    """What update_many returns for a batch found applied: each upsert's stored record, None per delete."""
    return [None if isinstance(op, Delete) else stamped(op.record, op.expected_version or 0) for op in ops]


def link_versions(ops: Sequence[Op], changes: Sequence[LinkChange]) -> list[int | None]:
    """Per change of a call found applied, its owner's version after it (what update_with_links returns)."""
    final = {_id(op): record for op, record in zip(ops, results(ops))}
    versions: list[int | None] = []
    for change in changes:
        if change.owner in final:
            record = final[change.owner]
            versions.append(record.version if record is not None and record.scope == change.scope else None)
        else:
            versions.append((change.expected_version or 0) + 1)
    return versions


def _id(op: Op) -> str:
    return op.id if isinstance(op, Delete) else op.record.id


def _same(stored: Record, written: Record) -> bool:
    if stored.embedding is None or written.embedding is None:
        if stored.embedding is not written.embedding:
            return False
    elif not np.array_equal(stored.embedding, written.embedding):
        return False
    return stored.model_dump(exclude={"embedding"}) == written.model_dump(exclude={"embedding"})
