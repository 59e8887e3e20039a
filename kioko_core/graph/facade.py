"""``memory.graph``: the entity graph's calls and the memory links' calls, on one facade."""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Callable

from kioko_core.errors import InvalidRecordError, MemoryNotFound
from kioko_core.linking import links
from kioko_core.linking.activation import Neighbourhood, gather, spread
from kioko_core.linking.linker import LinkScore
from kioko_core.linking.links import MemoryLink
from kioko_core.linking.relink import Outcome, RelinkBatch
from kioko_core.store import Filter, Record, Scope, Upsert
from kioko_core.store.retry import retry_conflicts, retrying

if TYPE_CHECKING:
    from kioko_core.graph.entities import Triple
    from kioko_core.layer.parts import ScopedParts


@dataclass
class RelatedMemory:
    """A memory connected to the one asked about: its record, activation, and the chain of links to it."""

    record: Record
    score: float
    path: list[MemoryLink]


@dataclass(frozen=True)
class GraphNode:
    """A memory in a drawing: its id, stored kind, noun, short label, link count, and whether superseded."""

    id: str
    kind: str
    type: str
    label: str
    degree: int
    superseded: bool


@dataclass(frozen=True)
class GraphEdge:
    """A link between two memories in a drawing, once per ordered pair."""

    source: str
    target: str
    type: str
    weight: float
    by: str
    why: str
    line: str


@dataclass(frozen=True)
class GraphStats:
    """Counts over a drawing: nodes, edges, nodes with any link, mean and largest link count."""

    nodes: int
    edges: int
    linked: int
    mean_degree: float
    max_degree: int


@dataclass(frozen=True)
class GraphDrawing:
    """What :meth:`Graph.memories` returns: nodes, edges and stats, ready to draw."""

    nodes: list[GraphNode]
    edges: list[GraphEdge]
    stats: GraphStats

    def to_dict(self) -> dict[str, Any]:
        """Plain lists and dicts, for JSON."""
        return asdict(self)


@dataclass(frozen=True)
class ConnectReport:
    """What :meth:`Graph.connect` did: memories visited, links made (each pair once), links dropped, time."""

    memories: int
    links: int
    dropped: int
    duration_ms: float
    remaining: int = 0
    """Memories a ``limit`` left for a later call (so a caller can show progress over several calls)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain dict, for JSON."""
        return asdict(self)


class Graph:
    """``memory.graph``: the entity graph and the memory links of one MemoryLayer."""

    def __init__(self, layer: ScopedParts) -> None:
        self._layer = layer

    def _user(self, user_id: str | None) -> str:
        """The user whose entity graph a call reads or writes (a scoped view's, or the one named)."""
        return self._layer._scope(user_id, None).user_id

    # -- the entity graph

    def add(self, subject: str, relation: str, object: str, *, user_id: str | None = None, **options: Any) -> Triple:
        """Add a triple ``(subject) -relation-> (object)`` to the user's entity graph."""
        return self._layer.entities.add(subject, relation, object, user_id=self._user(user_id), **options)

    def relations(self, entity: str, *, user_id: str | None = None, **options: Any) -> list[Triple]:
        """The triples about ``entity`` valid now (or ``as_of``)."""
        return self._layer.entities.relations(entity, user_id=self._user(user_id), **options)

    def neighbors(self, entity: str, *, user_id: str | None = None, **options: Any) -> list[str]:
        """Entities one relation away from ``entity``."""
        return self._layer.entities.neighbors(entity, user_id=self._user(user_id), **options)

    def path(self, a: str, b: str, *, user_id: str | None = None, **options: Any) -> list[Triple]:
        """The shortest chain of triples from entity ``a`` to entity ``b``."""
        return self._layer.entities.path(a, b, user_id=self._user(user_id), **options)

    def delete_triple(self, triple_id: str, *, user_id: str | None = None) -> Triple | None:
        """Delete one triple, no history kept (:meth:`EntityGraph.delete`); None when there is none."""
        return self._layer.entities.delete(triple_id, user_id=self._user(user_id))

    def forget_entity(self, entity: str, *, user_id: str | None = None) -> int:
        """Delete every triple naming ``entity``, history included; how many (:meth:`EntityGraph.forget_entity`)."""
        return self._layer.entities.forget_entity(entity, user_id=self._user(user_id))

    # -- memory links: reading

    def links(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> list[MemoryLink]:
        """Every link of a memory, strongest (faded weight) first; links to vanished memories are skipped."""
        layer = self._layer
        record = layer.get(memory_id, user_id=user_id, agent_id=agent_id)
        entries = links.link_entries(record)
        others = links.fetch_others(layer.store, record, entries) if entries else []
        now = time.time()
        found = [MemoryLink.from_entry(record, e, o) for e, o in zip(entries, others) if o is not None]
        return sorted(found, key=lambda k: (-k.faded(now, layer.linker.config.half_life_days), k.source, k.target))

    def explain(self, a: str, b: str, *, user_id: str | None = None, agent_id: str | None = None) -> LinkScore:
        """Why two memories are (or are not) linked: every signal, scored from scratch.

        A pair that is linked is reported ``linked``. A link someone made (by hand, by feedback, a model,
        the structure) is reported as it is stored: its type, direction and why, ``score`` its weight; the
        evidence found now stays in ``signals`` (``evidence_score`` beside ``link_weight``), so a manual
        link between two memories that share no words reads "linked as resolves", not "not linked".
        """
        first = self._layer.get(a, user_id=user_id, agent_id=agent_id)
        second = self._layer.get(b, user_id=user_id, agent_id=agent_id)
        scored = self._layer.linker.explain(first, second)
        entry = links.entry_for(first, second.id)
        if entry is None:
            return scored
        stored = MemoryLink.from_entry(first, entry, second)
        if stored.by == "auto":
            # the linker's own link: the evidence found now is its account (it may have faded since)
            return replace(scored, linked=True)
        why = stored.why or ("linked by hand" if stored.by == "manual" else f"linked by {stored.by}")
        return LinkScore(
            score=round(stored.weight, 3),
            linked=True,
            type=stored.type,
            why=why,
            signals={**scored.signals, "evidence_score": scored.score, "link_weight": round(stored.weight, 4)},
            source=stored.source,
            target=stored.target,
        )

    def related(
        self,
        memory_id: str,
        depth: int = 2,
        limit: int = 10,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
    ) -> list[RelatedMemory]:
        """What is connected to a memory, best first: spreading activation from it, with the chain of links."""
        layer = self._layer
        config = layer.linker.config
        start = layer.get(memory_id, user_id=user_id, agent_id=agent_id)
        hood = gather(
            layer.store,
            start.scope,
            [start],
            hops=max(1, int(depth)),
            fanout=config.fanout,
            max_nodes=config.max_nodes,
            min_weight=config.min_weight,
            half_life_days=config.half_life_days,
        )
        activation = spread(hood, {start.id: 1.0}, config.restart, config.iterations)
        ranked = sorted(
            (i for i in activation if i != start.id and activation[i] > 0), key=lambda i: (-activation[i], i)
        )[:limit]
        return [RelatedMemory(hood.records[i], round(activation[i], 6), self._chain(hood, start.id, i)) for i in ranked]

    def _chain(self, hood: Neighbourhood, start: str, end: str) -> list[MemoryLink]:
        path: list[MemoryLink] = []
        node = end
        while node != start and node in hood.parents:
            parent = hood.parents[node]
            key = (min(parent, node), max(parent, node))
            owner, entry = hood.entries[key]
            other = node if owner == parent else parent
            path.append(MemoryLink.from_entry(hood.records[owner], entry, hood.records.get(other)))
            node = parent
        return list(reversed(path))

    def trace(
        self, a: str, b: str, max_depth: int = 4, *, user_id: str | None = None, agent_id: str | None = None
    ) -> list[MemoryLink]:
        """The shortest chain of links from ``a`` to ``b`` (breadth first; superseded decisions included)."""
        layer = self._layer
        start = layer.get(a, user_id=user_id, agent_id=agent_id)
        layer.get(b, user_id=user_id, agent_id=agent_id)
        seen = {start.id: start}
        parents: dict[str, tuple[str, dict[str, Any]]] = {}
        frontier = [start]
        for _ in range(max_depth):
            wanted: list[str] = []
            for record in frontier:
                for entry in links.link_entries(record):
                    if entry["id"] not in seen and entry["id"] not in parents:
                        parents[entry["id"]] = (record.id, entry)
                        wanted.append(entry["id"])
            if not wanted:
                return []
            found = [r for r in layer.store.get(start.scope, wanted) if r is not None]
            for record in found:
                seen[record.id] = record
            if b in seen:
                chain: list[MemoryLink] = []
                node = b
                while node != start.id:
                    owner, entry = parents[node]
                    chain.append(MemoryLink.from_entry(seen[owner], entry, seen[node]))
                    node = owner
                return list(reversed(chain))
            frontier = found
        return []

    def memories(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        center: str | None = None,
        depth: int = 2,
        limit: int = 120,
    ) -> GraphDrawing:
        """Nodes, edges and stats for drawing: around ``center`` (breadth first), or the whole scope."""
        layer = self._layer
        scope = self._layer._scope(user_id, agent_id)
        if center is not None:
            start = layer.get(center, user_id=user_id, agent_id=agent_id)
            hood = gather(
                layer.store, scope, [start], hops=max(1, depth), fanout=limit, max_nodes=limit, min_weight=0.0
            )
            records = list(hood.records.values())
        else:
            records = []
            for record in layer.store.scan(scope, Filter(kinds=frozenset(links.LINKABLE_KINDS))):
                records.append(record)
                if len(records) >= limit:
                    break
        present = {r.id: r for r in records}
        edges: dict[tuple[str, str], GraphEdge] = {}
        for record in records:
            for entry in links.link_entries(record):
                if entry["id"] in present:
                    link = MemoryLink.from_entry(record, entry, present[entry["id"]])
                    if (link.source, link.target) not in edges:
                        edges[link.source, link.target] = GraphEdge(
                            link.source, link.target, link.type, link.weight, link.by, link.why, link.line()
                        )
        nodes = [
            GraphNode(
                r.id,
                r.kind,
                links.noun(r.kind),
                links.record_label(r),
                len(links.link_entries(r)),
                bool(r.metadata.get("superseded_by")),
            )
            for r in records
        ]
        degrees = [n.degree for n in nodes]
        stats = GraphStats(
            nodes=len(nodes),
            edges=len(edges),
            linked=sum(1 for d in degrees if d),
            mean_degree=round(sum(degrees) / len(degrees), 3) if degrees else 0.0,
            max_degree=max(degrees, default=0),
        )
        return GraphDrawing(nodes, list(edges.values()), stats)

    # -- memory links: by hand

    @retrying("manual link")
    def link(
        self,
        a: str,
        b: str,
        type: str = "related_to",
        weight: float = 1.0,
        why: str = "",
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
    ) -> MemoryLink:
        """Link ``a`` to ``b`` by hand (never fades). Raises LinkConflict where a stronger link exists."""
        if type not in links.LINK_TYPES:
            raise InvalidRecordError(f"unknown link type {type!r}; use one of {sorted(links.LINK_TYPES)}")
        if a == b:
            raise InvalidRecordError("a memory cannot be linked to itself")
        if not 0.0 < float(weight) <= 1.0:
            raise InvalidRecordError("weight must be in (0, 1]")
        layer = self._layer
        layer.secrets.enforce("", None, why)  # the why is stored on both memories
        scope = self._layer._scope(user_id, agent_id)
        first, second = _both(layer, scope, a, b)
        existing = links.entry_for(first, b)
        if existing is not None:
            rank = links.author_rank(existing.get("by", "auto"))
            if rank < links.author_rank("manual"):
                raise links.LinkConflict(
                    f"{a} and {b} are already joined by a {existing.get('by')} link ({existing.get('type')}); "
                    "a manual link cannot replace it"
                )
            same = (
                existing.get("dir") == "out"
                and existing.get("type") == type
                and float(existing.get("w", 0)) == round(float(weight), 4)
                and existing.get("why", "") == why
            )
            if rank == links.author_rank("manual") and same:
                return MemoryLink.from_entry(first, existing, second)  # already there: nothing to store
            # otherwise the same author's newer link replaces the older one
        now = time.time()
        link = MemoryLink(source=a, target=b, type=type, weight=float(weight), why=why, by="manual", at=now, seen=now)
        first_stored = links.forget_unlinked(links.put_link(first, link), b)
        second_stored = links.forget_unlinked(links.put_link(second, link), a)
        layer.store.update_many(
            [
                Upsert(record=first_stored, expected_version=first.version),
                Upsert(record=second_stored, expected_version=second.version),
            ]
        )
        return MemoryLink.from_entry(links.put_link(first, link), link.entry(a), second)

    @retrying("unlink")
    def unlink(self, a: str, b: str, *, user_id: str | None = None, agent_id: str | None = None) -> bool:
        """Remove the link between ``a`` and ``b`` from both memories; True if there was one.

        The pair is remembered (in the layer's bookkeeping, ``metadata["_kioko"]["unlinked"]``), so the algorithm does not link it again on a later
        write, backfill or rebuild; a manual :meth:`link` forgets that.
        """
        layer = self._layer
        scope = self._layer._scope(user_id, agent_id)
        found = layer.store.get(scope, [a, b])
        linked = any(r is not None and links.entry_for(r, other) is not None for r, other in zip(found, (b, a)))
        if linked:
            layer.store.update_many(
                [
                    Upsert(record=links.remember_unlinked(links.drop_link(r, other), other), expected_version=r.version)
                    for r, other in zip(found, (b, a))
                    if r is not None
                ]
            )
        return linked

    # -- maintenance

    def connect(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        rebuild: bool = False,
        limit: int | None = None,
        progress: Callable[[int, int], None] | None = None,
        ids: Collection[str] | None = None,
    ) -> ConnectReport:
        """Link memories never linked (or, with ``rebuild``, re-derive every memory's automatic links).

        ``ids`` narrows it to those memories (maintenance passes the ones written since its last run).
        Returns a :class:`ConnectReport`; ``progress(done, total)`` is called after each memory.
        """
        layer = self._layer
        started = time.perf_counter()
        scope = self._layer._scope(user_id, agent_id)
        wanted = Filter(kinds=frozenset(links.LINKABLE_KINDS), ids=None if ids is None else frozenset(ids))
        todo = [
            (r.created_at, r.id)
            for r in (layer.store.scan(scope, wanted) if ids is None or ids else ())
            if rebuild or links.linked_at(r) is None
        ]
        todo.sort()  # oldest first, so a backfill sees memories in the order they were written
        remaining = 0
        if limit is not None:
            remaining = max(0, len(todo) - limit)
            todo = todo[:limit]
        # a pair is counted once: the later memory of a pair re-derives the link the earlier one just made
        made: set[frozenset[str]] = set()
        dropped = 0
        done = 0

        def count(outcomes: list[Outcome]) -> None:
            nonlocal dropped, done
            for _, relinked in outcomes:
                if relinked is not None:
                    new_links, lost = relinked
                    made.update(frozenset((k.source, k.target)) for k in new_links)
                    dropped += lost
                done += 1
                if progress is not None:
                    progress(done, len(todo))

        # memories are planned one by one and stored a batch at a time; progress counts stored ones
        RelinkBatch(layer, scope).relink_all([memory_id for _, memory_id in todo], count)
        return ConnectReport(
            memories=len(todo),
            links=len(made),
            dropped=dropped,
            duration_ms=round((time.perf_counter() - started) * 1000, 1),
            remaining=remaining,
        )

    def prune(self, *, user_id: str | None = None, agent_id: str | None = None, now: float | None = None) -> int:
        """Remove links whose faded weight is below ``min_weight`` and links to memories that no longer exist."""
        layer = self._layer
        scope = self._layer._scope(user_id, agent_id)
        records = list(layer.store.scan(scope))
        return self._prune(scope, records, {record.id for record in records}, now)

    def prune_records(
        self,
        records: Sequence[Record],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        now: float | None = None,
        dangling: bool = True,
    ) -> int:
        """:meth:`prune` for these records of the scope only (a page of a scan that maintenance moves on a page
        per run): the same links go as a whole-scope prune would remove from them.

        ``dangling=False`` checks fading alone, not whether the other ends still exist (one read of every
        neighbour of the page): for a caller that knows nothing left the scope since the links were checked.
        """
        layer = self._layer
        scope = self._layer._scope(user_id, agent_id)
        mentioned = {entry["id"] for record in records for entry in links.link_entries(record)}
        present = {record.id for record in records}
        if not dangling:
            present |= mentioned
        elif mentioned - present:
            # the other ends of their links, as the whole-scope scan would have seen them: from the index
            # cache's records where it holds them (the linker reads a topic's memories write after write),
            # the rest in one read
            present |= set(layer.index.records(scope, sorted(mentioned - present)))
        return self._prune(scope, records, present, now)

    def _prune(self, scope: Scope, records: Sequence[Record], present: set[str], now: float | None) -> int:
        layer = self._layer
        now = time.time() if now is None else now
        removed = 0
        for record in records:
            # the scan already shows which memories have a link to prune; only those are read again and
            # rewritten (a target the scan missed may be newer than it: _prune_one reads it to be sure)
            if any(_prunable(entry, present, now, layer.linker.config) for entry in links.link_entries(record)):
                removed += retry_conflicts(
                    f"pruning memory {record.id!r}", partial(_prune_one, layer, scope, record.id, now)
                )
        return removed

    @retrying("merge")
    def merge(
        self, duplicate: str, survivor: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> Record:
        """Move ``duplicate``'s links to ``survivor`` (the stronger author wins a clash), then delete it."""
        layer = self._layer
        scope = self._layer._scope(user_id, agent_id)
        if duplicate == survivor:
            raise InvalidRecordError("a memory cannot be merged into itself")
        dup, keep = _both(layer, scope, duplicate, survivor)
        entries = [e for e in links.link_entries(dup) if e["id"] != survivor]
        others = {r.id: r for r in layer.store.get(scope, [e["id"] for e in entries]) if r is not None}
        keep = links.drop_link(keep, duplicate)
        changed: dict[str, Record] = {}
        for entry in entries:
            other = changed.get(entry["id"]) or others.get(entry["id"])
            if other is None:
                continue
            other = links.drop_link(other, duplicate)
            mine = links.entry_for(keep, other.id)
            if mine is None or links.author_rank(entry.get("by", "auto")) < links.author_rank(mine.get("by", "auto")):
                moved = MemoryLink.from_entry(dup, entry, other)
                moved.source = survivor if moved.source == duplicate else moved.source
                moved.target = survivor if moved.target == duplicate else moved.target
                keep, other = links.put_link(keep, moved), links.put_link(other, moved)
            changed[other.id] = other
        # the moved links count towards the survivor's degree cap: the weakest go, on both sides
        config = layer.linker.config
        for loser in links.weakest_capped(keep, config.max_degree, time.time(), config.half_life_days):
            keep = links.drop_link(keep, loser)
            far = changed.get(loser) or others.get(loser) or layer.store.get(scope, [loser])[0]
            if far is not None:
                changed[loser] = links.drop_link(far, survivor)
        from kioko_core.store import Delete

        # the duplicate is deleted at the version read: a link another writer gave it meanwhile would
        # otherwise be left dangling on the other memory
        ops: list[Any] = [
            Upsert(record=keep, expected_version=keep.version),
            Delete(id=duplicate, scope=scope, expected_version=dup.version),
        ]
        ops += [Upsert(record=r, expected_version=r.version) for r in changed.values()]
        stored = layer.store.update_many(ops)
        layer.index.record_write(scope, duplicate, dup.terms, [])
        return stored[0]  # type: ignore[return-value]


def _prunable(entry: dict[str, Any], present: set[str], now: float, config: Any) -> bool:
    """Whether a link entry looks due for pruning: its other end was not in the scan, or it has faded."""
    if entry["id"] not in present:
        return True
    faded = links.faded_weight(
        float(entry.get("w", 0)), entry.get("by", "auto"), float(entry.get("seen", 0)), now, config.half_life_days
    )
    return bool(faded < config.min_weight)


def _prune_one(layer: ScopedParts, scope: Scope, memory_id: str, now: float) -> int:
    """Drop one memory's faded links and links to memories that are gone (both halves); how many went."""
    config = layer.linker.config
    current = layer.store.get(scope, [memory_id])[0]
    if current is None:
        return 0
    entries = links.link_entries(current)
    others = layer.store.get(scope, [e["id"] for e in entries])
    ops: list[Upsert] = []
    keep = current
    removed = 0
    for entry, other in zip(entries, others):
        faded = links.faded_weight(
            float(entry.get("w", 0)), entry.get("by", "auto"), float(entry.get("seen", 0)), now, config.half_life_days
        )
        if other is None or faded < config.min_weight:
            keep = links.drop_link(keep, entry["id"])
            if other is not None and links.entry_for(other, current.id) is not None:
                ops.append(Upsert(record=links.drop_link(other, current.id), expected_version=other.version))
            removed += 1
    if keep is not current:
        layer.store.update_many([Upsert(record=keep, expected_version=current.version)] + ops)
    return removed


def _both(layer: ScopedParts, scope: Scope, a: str, b: str) -> tuple[Record, Record]:
    first, second = layer.store.get(scope, [a, b])
    for memory_id, found in ((a, first), (b, second)):
        if found is None:
            raise MemoryNotFound(memory_id, scope.user_id)
    return first, second  # type: ignore[return-value]
