"""``kioko.Memory``: the one declared type of Kioko's public surface.

A local :class:`kioko.MemoryLayer` and a :class:`kioko.remote.client.RemoteMemory` (a Kioko service over HTTP)
both satisfy it, and mypy checks that they do (``kioko/_conformance.py``), so code written against
``kioko.Memory`` runs on either: ``kioko.connect(url)`` is typed ``-> Memory``.

It covers the memories (add, get, update, delete, list), the typed managers (``memory.goals`` ...),
recall / context / plan, the memory-link and entity graphs, the intelligence (manage, record_turn, learn,
end_session, maintain, pins, kv), events (``on`` / ``off``), and export / import (``export_lines``,
``import_lines``: JSON lines, the format of ``kioko export``).

``user_id`` may be omitted wherever the library lets it be: a view bound by :meth:`Memory.scoped` fills it
in; over HTTP, an omitted ``user_id`` is not sent and the server decides (an API key bound to one user
acts for that user).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from kioko_core.layer.declared_managers import KindManagers

if TYPE_CHECKING:
    from kioko_core.graph.entities import Triple
    from kioko_core.graph.facade import ConnectReport, GraphDrawing, RelatedMemory
    from kioko_core.linking.linker import LinkScore
    from kioko_core.linking.links import MemoryLink
    from kioko_core.recall.hybrid import Context
    from kioko_core.recall.options import RecallOptions
    from kioko_core.store import Record, Scope
    from kioko_intelligence.ops import ManageReport
    from kioko_intelligence.pins import StablePrefix
    from kioko_intelligence.planner import RecallPlan

Callback = Callable[[dict[str, Any]], Any]
"""An event handler: called with the event's payload (``payload["event"]`` names it)."""


class MemoryGraph(Protocol):
    """``memory.graph``: links between memories, and the user's entity graph (triples)."""

    def links(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> list[MemoryLink]: ...

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
    ) -> MemoryLink: ...

    def unlink(self, a: str, b: str, *, user_id: str | None = None, agent_id: str | None = None) -> bool: ...

    def explain(self, a: str, b: str, *, user_id: str | None = None, agent_id: str | None = None) -> LinkScore: ...

    def related(
        self,
        memory_id: str,
        depth: int = 2,
        limit: int = 10,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
    ) -> list[RelatedMemory]: ...

    def trace(
        self, a: str, b: str, max_depth: int = 4, *, user_id: str | None = None, agent_id: str | None = None
    ) -> list[MemoryLink]: ...

    def memories(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        center: str | None = None,
        depth: int = 2,
        limit: int = 120,
    ) -> GraphDrawing: ...

    def connect(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        rebuild: bool = False,
        limit: int | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> ConnectReport: ...

    def prune(self, *, user_id: str | None = None, agent_id: str | None = None, now: float | None = None) -> int: ...

    def merge(
        self, duplicate: str, survivor: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> Record: ...

    def add(
        self,
        subject: str,
        relation: str,
        object: str,
        *,
        user_id: str | None = None,
        single_valued: bool | None = None,
        valid_from: float | None = None,
        source: str | None = None,
    ) -> Triple: ...

    def delete_triple(self, triple_id: str, *, user_id: str | None = None) -> Triple | None: ...

    def forget_entity(self, entity: str, *, user_id: str | None = None) -> int: ...

    def relations(
        self, entity: str, *, user_id: str | None = None, as_of: float | None = None, include_invalid: bool = False
    ) -> list[Triple]: ...

    def neighbors(self, entity: str, *, user_id: str | None = None, as_of: float | None = None) -> list[str]: ...

    def path(
        self, a: str, b: str, *, user_id: str | None = None, max_depth: int = 3, as_of: float | None = None
    ) -> list[Triple]: ...


class Entities(Protocol):
    """``memory.entities``: the user's entity graph itself (every call names its user)."""

    def add(
        self,
        subject: str,
        relation: str,
        object: str,
        *,
        user_id: str,
        single_valued: bool | None = None,
        valid_from: float | None = None,
        source: str | None = None,
    ) -> Triple: ...

    def invalidate(self, triple_id: str, *, user_id: str, at: float | None = None) -> Triple | None: ...

    def delete(self, triple_id: str, *, user_id: str) -> Triple | None: ...

    def forget_entity(self, entity: str, *, user_id: str) -> int: ...

    def relations(
        self, entity: str, *, user_id: str, as_of: float | None = None, include_invalid: bool = False
    ) -> list[Triple]: ...

    def neighbors(self, entity: str, *, user_id: str, as_of: float | None = None) -> list[str]: ...

    def path(self, a: str, b: str, *, user_id: str, max_depth: int = 3, as_of: float | None = None) -> list[Triple]: ...


class IntelligenceInfo(Protocol):
    """``memory.intelligence`` (None when the layer or the service has none)."""

    def stats(self) -> dict[str, int]: ...


class IntelligenceCalls(Protocol):
    """The intelligence's part of :class:`Memory` (what ``kioko_intelligence`` installs on a layer)."""

    # -- the intelligence

    def plan(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> RecallPlan: ...

    def manage(
        self,
        text: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> ManageReport: ...

    def record_turn(
        self,
        user: str,
        reply: str | None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> ManageReport: ...

    def learn(
        self,
        messages: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> ManageReport: ...

    def end_session(
        self, session_id: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> Record | None: ...

    def reflect(self, *, user_id: str | None = None, agent_id: str | None = None) -> dict[str, Any]: ...

    def maintain(
        self, *, user_id: str | None = None, agent_id: str | None = None, tasks: list[str] | None = None
    ) -> dict[str, Any]: ...

    def pin(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record: ...

    def unpin(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record: ...

    def pinned(self, *, user_id: str | None = None, agent_id: str | None = None) -> list[Record]: ...

    def kv(self, *, user_id: str | None = None, agent_id: str | None = None) -> StablePrefix: ...

    # -- events

    def on(self, event: str, callback: Callback) -> Callback: ...

    def off(self, event: str, callback: Callback) -> bool: ...


@runtime_checkable
class Memory(KindManagers, IntelligenceCalls, Protocol):
    """Kioko's public surface: what a local layer and a remote service both answer, with the same types.

    The typed managers (``memory.goals`` ...) are :class:`~kioko_core.layer.declared_managers.KindManagers`'.
    """

    # -- the graphs and the intelligence

    @property
    def graph(self) -> MemoryGraph: ...
    @property
    def entities(self) -> Entities: ...
    @property
    def intelligence(self) -> IntelligenceInfo | None: ...
    @property
    def scope(self) -> Scope | None: ...

    def scoped(self, *, user_id: str | None = None, agent_id: str | None = None) -> Memory: ...

    # -- memories

    def add(
        self,
        content: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        memory_type: str = "factual",
        metadata: dict[str, Any] | None = None,
        created_at: float | datetime | None = None,
        id: str | None = None,
        embedding: Any = None,
    ) -> Record: ...

    def add_many(
        self,
        items: Iterable[str | Mapping[str, Any]],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        memory_type: str = "factual",
    ) -> list[Record]: ...

    def get(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record: ...

    def update(
        self,
        memory_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        content: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Record: ...

    def delete(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> bool: ...

    def forget_user(self, *, user_id: str | None = None, agent_id: str | None = None) -> int: ...

    def forget_about(
        self, subject: str, *, user_id: str | None = None, agent_id: str | None = None, dry_run: bool = False
    ) -> dict[str, Any]: ...

    def memories(
        self, *, user_id: str | None = None, agent_id: str | None = None, kinds: set[str] | None = None
    ) -> Iterator[Record]: ...

    # -- recall

    def recall(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        options: RecallOptions | None = None,
        links: int | None = None,
        limit: int | None = None,
        include_shared: bool = False,
        config: Any = None,
        plan: Any = None,
        section_limits: dict[str, int] | None = None,
        fill_recent: list[str] | None = None,
        budget: int | None = None,
    ) -> Context: ...

    def context(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        options: RecallOptions | None = None,
        links: int | None = None,
        limit: int | None = None,
        plan: Any = None,
        section_limits: dict[str, int] | None = None,
        fill_recent: list[str] | None = None,
        budget: int | None = None,
    ) -> Context: ...

    def search(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, limit: int = 10
    ) -> list[Record]: ...

    def feedback(
        self,
        worked: bool = True,
        *,
        user_id: str | None = None,
        credited: str | None = None,
        session_id: str | None = None,
        context: Context | None = None,
        agent_id: str | None = None,
        now: float | None = None,
    ) -> list[MemoryLink]: ...

    def export_lines(self, user_id: str, agent_ids: Iterable[str] = ()) -> Iterator[str]:
        """Every memory of ``user_id`` (and of ``agent_ids``) as JSON lines, the format ``kioko export`` writes."""
        ...

    def import_lines(self, lines: Iterable[str | bytes]) -> dict[str, int]:
        """Restore an export: ``{"records", "written", "unchanged"}`` (checked whole before anything is written)."""
        ...

    def close(self) -> None: ...


def export_lines(memory: Memory, user_id: str, agent_ids: Iterable[str] = ()) -> Iterator[str]:
    """``memory.export_lines(user_id, agent_ids)`` (kept for callers written before it was a method)."""
    return memory.export_lines(user_id, agent_ids)


def import_lines(memory: Memory, lines: Iterable[str | bytes]) -> dict[str, int]:
    """``memory.import_lines(lines)`` (kept for callers written before it was a method)."""
    return memory.import_lines(lines)
