"""``add_many`` in batches: each memory planned as ``add`` plans it, a batch of them stored in one write.

For each batch a :class:`~kioko_core.linking.pending.PendingStore` holds the writes and answers every read as the
store would once they are made; the layer's own ``add`` (duplicate check, reading, embedding, linking and the
index cache's bookkeeping) runs against it, so each memory sees the ones before it in the batch exactly as it
would have one by one, and links the same. Then the batch is one ``update_many`` (one transaction) and the
index cache is reconciled once.

A memory whose write the held batch cannot stand for is added on its own between two batches: one that names
other memories in its fields (a sub-goal, a replacing decision, evidence: its structural links change stored
records' fields) and a copy of a stored memory whose metadata it would merge (an update). If another writer
changed a record the batch read, the batch's memories are added again one by one, from the store.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from kioko_core.kinds.registry import canonical_kind
from kioko_core.layer.parts import KindsHost
from kioko_core.layer.values import timestamp
from kioko_core.linking.collector import after_batch, held_off
from kioko_core.linking.index import own_copy
from kioko_core.linking.linker import structural_targets_of
from kioko_core.linking.pending import PendingStore
from kioko_core.reading.analysis import entity_key
from kioko_core.store import ConflictError, Record, Scope, ScopeGenerations


class BulkHost(KindsHost, Protocol):
    """What a batched add goes through (the layer, which imports this module: so not the layer by name): the
    layer's writes, its flag that the batch was screened for secrets, and its lookup of a stored copy."""

    _screened: bool

    def _existing_copy(self, scope: Scope, content: str, memory_type: str, session_id: str | None) -> Record | None: ...


BATCH = 256
"""Memories planned before their batch is written. The index cache serves this process's other threads only
between batches (a batch describes writes no one may read yet), so a batch stays well under a second."""


class BatchAdd:
    """Adds prepared items (``add``'s keyword arguments, already checked) for one scope, a batch at a time."""

    def __init__(self, layer: BulkHost, user_id: str | None, agent_id: str | None, size: int = BATCH) -> None:
        self._layer = layer
        self._user_id, self._agent_id = user_id, agent_id
        self._scope = layer._scope(user_id, agent_id)
        self._size = max(1, size)

    def run(self, items: Iterable[tuple[dict[str, Any], Any]]) -> list[Record]:
        """Store ``(fields, embedding)`` items in order; each one's stored record (as its batch left it).

        Items are taken from ``items`` as they are planned (an embedder may still be working on the next ones)."""
        out: list[Record] = []
        source = iter(items)
        # the collector's automatic passes held off (kioko_core.linking.collector); the scope's records all cached
        # while the import runs, so its earlier memories are not read from the store again as candidates
        with held_off(), self._layer.index.importing(self._scope):
            first = next(source, None)
            for number in itertools.count(1):
                if first is None:
                    break
                first = self._batch(itertools.chain([first], source), out)
                after_batch(number)
        return out

    def _add(self, layer: BulkHost, fields: dict[str, Any], vector: Any) -> Record:
        return layer.add(user_id=self._user_id, agent_id=self._agent_id, embedding=vector, **fields)

    def _batch(
        self, items: Iterator[tuple[dict[str, Any], Any]], out: list[Record]
    ) -> tuple[dict[str, Any], Any] | None:
        """Plan up to a batch of ``items`` (until one must be written alone, which is written after them), store
        them in one write; the item to start the next batch with (None when ``items`` are done)."""
        layer, scope = self._layer, self._scope
        held = PendingStore(layer.store, scope)
        view = _held_view(layer, held)
        taken: list[tuple[dict[str, Any], Any]] = []
        added: list[Record] = []
        error: Exception | None = None
        alone = None
        with layer.index.staged(held):
            driver = getattr(layer.store, "driver", layer.store)
            before = int(driver.generation(scope)) if isinstance(driver, ScopeGenerations) else None
            try:
                for item in itertools.islice(items, self._size):
                    if _alone(view, scope, item[0]):
                        alone = item
                        break
                    taken.append(item)
                    added.append(self._add(view, *item))
            except Exception as failed:  # what was planned before it is stored, as one by one would have
                error = failed
            except BaseException:
                layer.index.invalidate(scope)
                raise
            stored = self._commit(held, before)
        if stored is None:  # another writer got between: these memories again, one by one from the store
            out += [self._add(layer, *item) for item in taken[: len(added)]]
        else:
            out += [own_copy(stored[record.id] if record.id in stored else record) for record in added]
        if error is not None:
            raise error
        if alone is not None:
            out.append(self._add(layer, *alone))
        return next(items, None)

    def _commit(self, held: PendingStore, before: int | None) -> dict[str, Record] | None:
        """The held writes in one ``update_many``: the stored records by id; None if another writer got between."""
        layer = self._layer
        ops = held.ops()
        if not ops:
            return {}
        try:
            written = layer.store.update_many(ops)
        except ConflictError:
            layer.index.invalidate(self._scope)
            return None
        except BaseException:
            layer.index.invalidate(self._scope)
            raise
        stored = {r.id: r for r in written if r is not None}
        # every record of the batch stays cached, its new memories too (a later memory's candidates): the caller is
        # handed copies of those (see own_copy)
        layer.index.committed_batch(self._scope, before, held.writes, list(stored.values()), stored.keys())
        return stored


class _BatchGraph:
    """The entity graph as a batch reads it: a user whose graph holds nothing has no names to match, asked once
    per batch (a held batch writes no triple: :class:`PendingStore` holds the memories' scope alone), instead of
    matching every memory's word n-grams against the empty graph."""

    def __init__(self, graph: Any) -> None:
        self._graph = graph
        self._empty: dict[str, bool] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._graph, name)

    def _is_empty(self, user_id: str) -> bool:
        empty = self._empty.get(user_id)
        if empty is None:
            empty = self._empty[user_id] = self._graph.known(user_id=user_id) == 0
        return empty

    def match_entities(self, text: str, *, user_id: str) -> list[str]:
        """The graph's names in ``text`` (none while the user's graph is empty)."""
        return [] if self._is_empty(user_id) else self._graph.match_entities(text, user_id=user_id)

    def related_entities(
        self, keys: Iterable[str], *, user_id: str, as_of: float | None = None
    ) -> dict[str, list[tuple[str, Any]]]:
        """The graph's answer: every asked key (normalised) relates to nothing while the user's graph is empty (the
        graph's own lookup read the graph scope's generation from the store: one read a memory that names one)."""
        if as_of is not None or not self._is_empty(user_id):
            return self._graph.related_entities(keys, user_id=user_id, as_of=as_of)  # type: ignore[no-any-return]
        return {key: [] for key in dict.fromkeys(k for k in (entity_key(key) for key in keys) if k)}


def _held_view(layer: BulkHost, held: PendingStore) -> BulkHost:
    """The layer writing into ``held``: its own index cache (staged on ``held``), a linker reading ``held``."""
    view = copy.copy(layer)
    linker = copy.copy(layer.linker)
    linker.store = held
    linker.hands_out_written = False  # the batch hands its caller copies of what it stored (own_copy)
    graph = _BatchGraph(linker.graph)  # stands in for the EntityGraph (its other calls pass through)
    vars(linker)["graph"] = graph
    # the copy's own store and linker (BulkHost, like the layer's users, reads them as properties); the layer's
    # reading of a new memory asks ``entities`` for the user's names, the linker its ``graph``: both the batch's
    vars(view).update(store=held, linker=linker, entities=graph, _screened=True)  # _screened: add_many screened
    # every item first
    # an item's own id is looked for among the batch's held writes alone, not in the store (a read a memory): a stored
    # memory of that id fails the batch's write (a new memory's write expects no record there), and the batch's
    # memories are then added again one by one, from the store, where that item's add refuses the id (IdTaken)
    # after the ones before it are stored, as one by one
    vars(view)["_id_stored"] = held.holds
    return view


def _alone(view: BulkHost, scope: Scope, fields: dict[str, Any]) -> bool:
    """Whether this item's add writes more than a held batch stands for (see the module)."""
    kind = canonical_kind(fields["memory_type"])
    metadata = fields.get("metadata")
    if metadata and structural_targets_of(kind, metadata, fields.get("id")):
        return True
    if not metadata or fields.get("id") is not None:
        return False
    existing = view._existing_copy(scope, fields["content"], kind, fields.get("session_id"))
    if existing is None:
        return False
    created_at = fields.get("created_at")
    if created_at is not None and timestamp(created_at) != existing.created_at:
        return False
    return not all(k in existing.metadata and existing.metadata[k] == v for k, v in metadata.items())
