"""MemoryLayer: what a developer holds. Bound to one Store; writes memories and links them."""

from __future__ import annotations

import time
import uuid
from typing import Any, Callable, Iterator

from . import links as L
from .embedding import Embedder, OfflineEmbedder
from .entities import EntityGraph
from .index import IndexCache
from .linker import SESSION_TERM, LinkerConfig, LinkScore, MemoryLinker
from .store import Delete, Filter, InvalidRecordError, Record, Scope, Store, StoreError, Upsert, check_scope

NOT_LINKED_KINDS = frozenset({"instruction", "working", "profile"})
MEMORY_TYPES = L.LINKABLE_KINDS | NOT_LINKED_KINDS


class MemoryNotFound(StoreError, KeyError):
    """No memory with that id in this user's (and agent's) scope."""


class MemoryLayer:
    """A memory layer over one store. Use :func:`kioko.connect` to build one from a URL.

    ``auto_link`` links every new memory at write time (spec section 3); ``linker`` overrides the
    linker's constants (``{"threshold": 0.35, "max_new": 5, "max_degree": 12, ...}``).
    """

    def __init__(self, store: Store, *, auto_link: bool = False, linker: dict[str, Any] | None = None,
                 embedder: Embedder | None = None) -> None:
        self.store = store
        self.auto_link = auto_link
        self.embedder = embedder or OfflineEmbedder(getattr(store, "dim", 256))
        self.entities = EntityGraph(store)
        self.index = IndexCache(store)
        self.linker = MemoryLinker(store, embedder=self.embedder, graph=self.entities, index=self.index,
                                   config=LinkerConfig.build(linker))
        self.graph = Graph(self)

    # -- writing

    def add(self, content: str, *, user_id: str, agent_id: str | None = None, session_id: str | None = None,
            memory_type: str = "factual", metadata: dict[str, Any] | None = None,
            created_at: float | None = None, id: str | None = None) -> Record:
        """Store a memory and (with ``auto_link``) link it; returns the stored record."""
        if not isinstance(content, str) or not content.strip():
            raise InvalidRecordError("content must be a non-empty string")
        if memory_type not in MEMORY_TYPES:
            raise InvalidRecordError(f"unknown memory_type {memory_type!r}; use one of {sorted(MEMORY_TYPES)}")
        if metadata is not None and not isinstance(metadata, dict):
            raise InvalidRecordError("metadata must be a dict")
        scope = check_scope((user_id, agent_id))
        now = time.time()
        record = Record(
            id=id or uuid.uuid4().hex, user_id=scope.user_id, agent_id=scope.agent_id, kind=memory_type,
            content=content, metadata=dict(metadata or {}), session_id=session_id,
            created_at=float(created_at) if created_at is not None else now, updated_at=now,
            embedding=self.embedder.embed(content),
        )
        return self._write(record, previous=None)

    def _write(self, record: Record, previous: Record | None) -> Record:
        if record.kind not in L.LINKABLE_KINDS:
            stored = self.store.update_many([Upsert(record=record.model_copy(update={"terms": []}))])[0]
            return stored  # type: ignore[return-value]
        analysis = self.linker.analyze(record.content, record.user_id)
        terms = analysis.terms + ([SESSION_TERM + record.session_id] if record.session_id else [])
        metadata = dict(record.metadata)
        metadata["entities"] = list(analysis.entities)
        record = record.model_copy(update={"terms": terms, "metadata": metadata})
        if not self.auto_link:
            stored = self.store.update_many([Upsert(record=record, expected_version=(
                previous.version if previous is not None else 0))])[0]
            self.index.record_write(record.scope, record.id, previous.terms if previous else [], record.terms)
            return stored  # type: ignore[return-value]
        stored, _ = self.linker.write(record, analysis, previous)
        return stored  # type: ignore[return-value]

    def get(self, memory_id: str, *, user_id: str, agent_id: str | None = None) -> Record:
        """The memory, or :class:`MemoryNotFound` if it is not in this scope."""
        found = self.store.get(check_scope((user_id, agent_id)), [memory_id])[0]
        if found is None:
            raise MemoryNotFound(f"no memory {memory_id!r} for user {user_id!r}")
        return found

    def update(self, memory_id: str, *, user_id: str, agent_id: str | None = None, content: str | None = None,
               metadata: dict[str, Any] | None = None) -> Record:
        """Change content (links are re-derived) and/or merge metadata (structural links are checked)."""
        current = self.get(memory_id, user_id=user_id, agent_id=agent_id)
        changes: dict[str, Any] = {"updated_at": time.time()}
        if metadata is not None:
            changes["metadata"] = {**current.metadata, **metadata}
        if content is not None:
            if not content.strip():
                raise InvalidRecordError("content must be a non-empty string")
            changes["content"] = content
            changes["embedding"] = self.embedder.embed(content)
        return self._write(current.model_copy(update=changes), previous=current)

    def delete(self, memory_id: str, *, user_id: str, agent_id: str | None = None) -> bool:
        """Delete a memory; its neighbours forget their links to it. False if it did not exist."""
        scope = check_scope((user_id, agent_id))
        current = self.store.get(scope, [memory_id])[0]
        if current is None:
            return False
        neighbours = [e["id"] for e in L.link_entries(current)]
        ops: list[Any] = [Delete(id=memory_id, scope=scope, expected_version=current.version)]
        for other in self.store.get(scope, neighbours) if neighbours else []:
            if other is not None:
                ops.append(Upsert(record=L.drop_link(other, memory_id), expected_version=other.version))
        self.store.update_many(ops)
        self.index.record_write(scope, memory_id, current.terms, [])
        return True

    def memories(self, *, user_id: str, agent_id: str | None = None, kinds: set[str] | None = None) -> Iterator[Record]:
        """Every memory of a scope (a scan: for maintenance and exports, not for the hot path)."""
        kinds_filter = Filter(kinds=frozenset(kinds)) if kinds else None
        yield from self.store.scan(check_scope((user_id, agent_id)), kinds_filter)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> MemoryLayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"MemoryLayer(store={self.store!r}, auto_link={self.auto_link})"


class Graph:
    """``memory.graph``: the entity graph and the memory links."""

    def __init__(self, layer: MemoryLayer) -> None:
        self._layer = layer

    # entity graph
    def add(self, subject: str, relation: str, object: str, *, user_id: str, **options: Any):
        return self._layer.entities.add(subject, relation, object, user_id=user_id, **options)

    def relations(self, entity: str, *, user_id: str, **options: Any):
        return self._layer.entities.relations(entity, user_id=user_id, **options)

    def neighbors(self, entity: str, *, user_id: str, **options: Any):
        return self._layer.entities.neighbors(entity, user_id=user_id, **options)

    def path(self, a: str, b: str, *, user_id: str, **options: Any):
        return self._layer.entities.path(a, b, user_id=user_id, **options)

    # memory links
    def links(self, memory_id: str, *, user_id: str, agent_id: str | None = None) -> list[L.MemoryLink]:
        """Every link of a memory, strongest (faded weight) first; links to vanished memories are skipped."""
        layer = self._layer
        record = layer.get(memory_id, user_id=user_id, agent_id=agent_id)
        entries = L.link_entries(record)
        others = layer.store.get(record.scope, [e["id"] for e in entries]) if entries else []
        now = time.time()
        found = [L.MemoryLink.from_entry(record, e, o) for e, o in zip(entries, others) if o is not None]
        return sorted(found, key=lambda k: (-k.faded(now, layer.linker.config.half_life_days), k.source, k.target))

    def explain(self, a: str, b: str, *, user_id: str, agent_id: str | None = None) -> LinkScore:
        """Why two memories are (or are not) linked: every signal, scored from scratch."""
        first = self._layer.get(a, user_id=user_id, agent_id=agent_id)
        second = self._layer.get(b, user_id=user_id, agent_id=agent_id)
        return self._layer.linker.explain(first, second)

    def connect(self, *, user_id: str, agent_id: str | None = None, rebuild: bool = False,
                limit: int | None = None, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        """Link memories never linked (or, with ``rebuild``, re-derive every memory's automatic links)."""
        layer = self._layer
        started = time.perf_counter()
        scope = check_scope((user_id, agent_id))
        todo = [r.id for r in layer.store.scan(scope, Filter(kinds=frozenset(L.LINKABLE_KINDS)))
                if rebuild or not r.metadata.get("linked_at")]
        todo.sort()
        if limit is not None:
            todo = todo[:limit]
        made = dropped = 0
        for done, memory_id in enumerate(todo, 1):
            current = layer.store.get(scope, [memory_id])[0]
            if current is not None:
                analysis = layer.linker.analyze(current.content, user_id)
                terms = analysis.terms + ([SESSION_TERM + current.session_id] if current.session_id else [])
                record = current.model_copy(update={"terms": terms})
                plan_links = layer.linker.write(record, analysis, previous=current)[1]
                made += len(plan_links)
            if progress is not None:
                progress(done, len(todo))
        return {"memories": len(todo), "links": made, "dropped": dropped,
                "duration_ms": round((time.perf_counter() - started) * 1000, 1)}


def scope_of(user_id: str, agent_id: str | None = None) -> Scope:
    return check_scope((user_id, agent_id))
