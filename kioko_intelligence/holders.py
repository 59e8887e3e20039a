"""The memories a turn's slot rules read, read once per turn (:func:`read_once`), from the layer's cached records.

Finding what a turn's new memories replace (:func:`kioko_intelligence.slots.resolve`) asks the store for "the
user's current memories holding these words" many times: one ask per rule (a named old value, a category, a
stance reversed, an instruction's aspect, the frame, a plan's item), often with the same words, and each ask
read its records anew, each decoded with its links, and the user's instructions and profile slots (kinds the
term index does not keep) in full. In the agent loop's slowest turns that was 300 records read for 165
distinct ones, the largest part of a storing turn's CPU (issue 34).

Within :func:`read_once` (one turn's resolve: nothing is written until its ops apply after it), a scope's postings
(per term: each term's newest ids do not depend on the other terms asked with it), its records (by id), its
scanned kinds and their terms are read at most once. The records come through the layer's index cache
(:meth:`~kioko_core.linking.index.IndexCache.records`, which recall and the linker read through too), brought to
the store's generation of the scope when the block starts, so the next turn finds most of what this one read
without reading it again, and a write of any process is seen as it is by recall. Outside a block, and for any
other layer or scope than the block's, every read goes to the store as before: nothing is kept across users.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kioko_core.store import Filter, Record, Scope

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer


@dataclass
class _Reads:
    memory: MemoryLayer
    scope: Scope
    ids: dict[tuple[str, int], list[str]] = field(default_factory=dict)
    """(term, limit) -> the term's newest ids, as the store's postings gave them."""
    records: dict[str, Record | None] = field(default_factory=dict)
    scans: dict[frozenset[str], list[Record]] = field(default_factory=dict)
    terms: dict[str, list[str]] = field(default_factory=dict)
    """A scanned record's id -> the terms of its content."""


_READING: ContextVar[_Reads | None] = ContextVar("kioko_slot_holders", default=None)


@contextmanager
def read_once(memory: MemoryLayer, scope: Scope) -> Iterator[None]:
    """Within the block, :func:`held_ids`, :func:`held_records`, :func:`held_kinds` and :func:`held_terms` of ``memory`` and
    ``scope`` read each thing once. The caller writes nothing to the scope inside the block."""
    # the index cache's records are those of the scope's generation as of its last lookup: this one reads the
    # generation (no postings call unless another writer moved it), so nothing another process wrote is missed
    memory.index.lookup(scope, [], 0)
    token = _READING.set(_Reads(memory, scope))
    try:
        yield
    finally:
        _READING.reset(token)


def _reads(memory: MemoryLayer, scope: Scope) -> _Reads | None:
    reads = _READING.get()
    return reads if reads is not None and reads.memory is memory and reads.scope == scope else None


def held_ids(memory: MemoryLayer, scope: Scope, terms: Sequence[str], limit: int) -> dict[str, list[str]]:
    """Per term, up to ``limit`` newest ids of the scope holding it (``store.postings(...).ids``)."""
    reads = _reads(memory, scope)
    if reads is None:
        return memory.store.postings(scope, terms, limit).ids
    missing = [t for t in dict.fromkeys(terms) if (t, limit) not in reads.ids]
    if missing:
        found = memory.store.postings(scope, missing, limit).ids
        reads.ids.update(((t, limit), list(found.get(t, []))) for t in missing)
    return {t: reads.ids[(t, limit)] for t in terms}


def held_records(memory: MemoryLayer, scope: Scope, ids: Sequence[str]) -> list[Record | None]:
    """The records of ``ids``, in order (None: not in the scope), as ``store.get`` gives them. Within a block they
    are the index cache's shared records: read them, never change them."""
    reads = _reads(memory, scope)
    if reads is None:
        return memory.store.get(scope, ids)
    missing = [i for i in dict.fromkeys(ids) if i not in reads.records]
    if missing:
        found = memory.index.records(scope, missing)
        reads.records.update((i, found.get(i)) for i in missing)
    return [reads.records[i] for i in ids]


def held_kinds(memory: MemoryLayer, scope: Scope, kinds: frozenset[str]) -> list[Record]:
    """Every record of ``kinds`` in the scope (``store.scan`` with a kinds filter), in the store's order."""
    reads = _reads(memory, scope)
    if reads is None:
        return list(memory.store.scan(scope, Filter(kinds=kinds)))
    found = reads.scans.get(kinds)
    if found is None:
        found = reads.scans[kinds] = list(memory.store.scan(scope, Filter(kinds=kinds)))
    return found


def held_terms(memory: MemoryLayer, scope: Scope, record: Record, read: Callable[[str], list[str]]) -> list[str]:
    """``read(record.content)``, once per record within a block (``read`` is the same function at every call)."""
    reads = _reads(memory, scope)
    if reads is None:
        return read(record.content)
    found = reads.terms.get(record.id)
    if found is None:
        found = reads.terms[record.id] = read(record.content)
    return found
