"""``connect()``'s backfill in batches: memories planned one after another, their changes stored in one write.

Each memory's links are planned as a lone relink would plan them, against the records as the memories
before it in the batch left them (held here until the batch is written), so the links made are the same.
What changes is the writing: a record that several memories of a batch change (a session's turns, a
topic's busiest memories) is checked, encoded and stored once per batch, in one transaction, instead of
once per memory. A memory whose terms change is written on its own: its postings move, and the memories
planned after it must find them in the store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING

from kioko_core.linking import links
from kioko_core.linking.collector import after_batch, held_off
from kioko_core.linking.linker import index_terms
from kioko_core.store import ConflictError, Record, Scope, Upsert
from kioko_core.store.retry import retry_conflicts

if TYPE_CHECKING:
    from kioko_core.layer.parts import LayerParts

BATCH = 32
"""Memories planned before their changes are written: large enough that a session's turns share a write,
small enough that a batch lost to another writer costs little to redo one memory at a time."""

Outcome = tuple[str, tuple[list[links.MemoryLink], int] | None]
"""(memory id, (links made, links dropped)), or None for a memory that was gone."""


class RelinkBatch:
    """Re-derives memories' automatic links (``connect``), storing the changes of up to ``size`` at a time."""

    def __init__(self, layer: LayerParts, scope: Scope, size: int = BATCH) -> None:
        self._layer = layer
        self._scope = scope
        self._size = size
        self._unwritten: dict[str, Record] = {}
        """id -> the record as the batch will store it (its version counts the batch's changes to it)."""
        self._expected: dict[str, int] = {}
        """id -> the version it was read at: the one write of the batch expects it there."""
        self._planned: list[tuple[str, list[links.MemoryLink], int]] = []
        self._writes = 0

    def relink_all(self, memory_ids: Iterable[str], outcomes: Callable[[list[Outcome]], None]) -> None:
        """Relink ``memory_ids`` in order, each write's outcomes handed to ``outcomes``, with the cycle collector's
        automatic passes held off (:mod:`kioko_core.linking.collector`: a rebuild's records, like an import's, live
        long enough to start full passes that walk every object of the process); each batch collects after itself."""
        with held_off():
            for memory_id in memory_ids:
                outcomes(self.relink(memory_id))
            outcomes(self.flush())

    def relink(self, memory_id: str) -> list[Outcome]:
        """Plan ``memory_id``'s links; returns the outcomes of the memories written by now (oldest first)."""
        layer = self._layer
        current = self._unwritten.get(memory_id) or layer.index.records(self._scope, [memory_id]).get(memory_id)
        if current is None:
            return self.flush() + [(memory_id, None)]
        analysis = layer.linker.analyze(current.content, self._scope.user_id)
        record = current.model_copy(update={"terms": index_terms(analysis.terms, current)})
        if record.terms != current.terms:
            return self.flush() + [(memory_id, self._alone(memory_id))]
        try:
            plan = layer.linker.plan(record, analysis, previous=current, unwritten=self._unwritten)
        except Exception:  # a lone write knows how to store a memory its linking fails on
            return self.flush() + [(memory_id, self._alone(memory_id))]
        for op in plan.ops:
            planned: Record = op.record  # type: ignore[union-attr]
            expected = op.expected_version or 0
            self._expected.setdefault(planned.id, expected)
            self._unwritten[planned.id] = planned.model_copy(update={"version": expected + 1})
        self._planned.append((memory_id, plan.links, plan.dropped))
        return self.flush() if len(self._planned) >= self._size else []

    def flush(self) -> list[Outcome]:
        """Store what the batch planned, in one write; redone one memory at a time if another writer got between."""
        planned, unwritten, expected = self._planned, self._unwritten, self._expected
        self._planned, self._unwritten, self._expected = [], {}, {}
        if not planned:
            return []
        layer = self._layer
        ops = [Upsert(record=record, expected_version=expected[i]) for i, record in unwritten.items()]
        try:
            stored = layer.store.update_many(ops)
        except ConflictError:
            # a record changed since it was read: every memory again from the store, each in its own write
            layer.index.forget_records(self._scope)
            return [(memory_id, self._alone(memory_id)) for memory_id, _, _ in planned]
        self._writes += 1
        after_batch(self._writes)
        written = [r for r in stored if r is not None]
        terms = written[0].terms if written else []
        if len(written) == len(ops):  # relinking moved no terms: the statistics stay, the records are cached
            layer.index.record_linked_write(self._scope, written, terms, terms)
        else:
            layer.index.invalidate(self._scope)
        return [(memory_id, (made, dropped)) for memory_id, made, dropped in planned]

    def _alone(self, memory_id: str) -> tuple[list[links.MemoryLink], int] | None:
        return retry_conflicts(
            f"linking memory {memory_id!r}", partial(relink_one, self._layer, self._scope, memory_id)
        )


def relink_one(layer: LayerParts, scope: Scope, memory_id: str) -> tuple[list[links.MemoryLink], int] | None:
    """Re-derive one memory's automatic links from its stored version, in a write of its own; None if it is gone."""
    current = layer.store.get(scope, [memory_id])[0]
    if current is None:
        return None
    analysis = layer.linker.analyze(current.content, scope.user_id)
    record = current.model_copy(update={"terms": index_terms(analysis.terms, current)})
    _, new_links, lost = layer.linker.write(record, analysis, previous=current, report=True)
    return new_links, lost
