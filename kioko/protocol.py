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

    def links(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> list[MemoryLink]:
        """Every link of a memory, strongest (faded weight) first; links to vanished memories are skipped."""

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

    def unlink(self, a: str, b: str, *, user_id: str | None = None, agent_id: str | None = None) -> bool:
        """Remove the link between ``a`` and ``b`` from both memories; True if there was one."""

    def explain(self, a: str, b: str, *, user_id: str | None = None, agent_id: str | None = None) -> LinkScore:
        """Why two memories are (or are not) linked: every signal, scored from scratch."""

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

    def trace(
        self, a: str, b: str, max_depth: int = 4, *, user_id: str | None = None, agent_id: str | None = None
    ) -> list[MemoryLink]:
        """The shortest chain of links from ``a`` to ``b`` (breadth first; superseded decisions included)."""

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

    def connect(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        rebuild: bool = False,
        limit: int | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> ConnectReport:
        """Link memories never linked (or, with ``rebuild``, re-derive every memory's automatic links)."""

    def prune(self, *, user_id: str | None = None, agent_id: str | None = None, now: float | None = None) -> int:
        """Remove the links that faded below the linker's minimum weight and those to memories that no longer
        exist; how many."""

    def merge(
        self, duplicate: str, survivor: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> Record:
        """Move ``duplicate``'s links to ``survivor`` (the stronger author wins a clash), then delete it."""

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
    ) -> Triple:
        """Add a triple ``(subject) -relation-> (object)`` to the user's entity graph."""

    def delete_triple(self, triple_id: str, *, user_id: str | None = None) -> Triple | None:
        """Delete one triple, no history kept (:meth:`EntityGraph.delete`); None when there is none."""

    def forget_entity(self, entity: str, *, user_id: str | None = None) -> int:
        """Delete every triple naming ``entity``, history included; how many (:meth:`EntityGraph.forget_entity`)."""

    def relations(
        self, entity: str, *, user_id: str | None = None, as_of: float | None = None, include_invalid: bool = False
    ) -> list[Triple]:
        """The triples about ``entity`` valid now (or ``as_of``)."""

    def neighbors(self, entity: str, *, user_id: str | None = None, as_of: float | None = None) -> list[str]:
        """Entities one relation away from ``entity``."""

    def path(
        self, a: str, b: str, *, user_id: str | None = None, max_depth: int = 3, as_of: float | None = None
    ) -> list[Triple]:
        """The shortest chain of triples from entity ``a`` to entity ``b``."""


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
    ) -> Triple:
        """Record that ``subject relation object`` holds from ``valid_from`` (default: now) and return it."""

    def invalidate(self, triple_id: str, *, user_id: str, at: float | None = None) -> Triple | None:
        """Close triple ``triple_id`` at ``at`` (default: now) and return it; the record is kept as history."""

    def delete(self, triple_id: str, *, user_id: str) -> Triple | None:
        """Delete triple ``triple_id`` from the user's graph and return it; None when there is no such triple."""

    def forget_entity(self, entity: str, *, user_id: str) -> int:
        """Delete every triple naming ``entity`` (subject or object, history included); how many."""

    def relations(
        self, entity: str, *, user_id: str, as_of: float | None = None, include_invalid: bool = False
    ) -> list[Triple]:
        """Triples with ``entity`` as subject or object that held at ``as_of`` (default: now), oldest first."""

    def neighbors(self, entity: str, *, user_id: str, as_of: float | None = None) -> list[str]:
        """Names of the entities one valid relation away from ``entity`` (as first written), each once."""

    def path(self, a: str, b: str, *, user_id: str, max_depth: int = 3, as_of: float | None = None) -> list[Triple]:
        """The shortest chain of valid triples from ``a`` to ``b`` (breadth first, either direction)."""


class IntelligenceInfo(Protocol):
    """``memory.intelligence`` (None when the layer or the service has none)."""

    def stats(self) -> dict[str, int]:
        """Counts since the layer was built: turns, gated turns, model calls, fallbacks, operations applied, plans."""


class IntelligenceCalls(Protocol):
    """The intelligence's part of :class:`Memory`: the calls of :data:`kioko_core.layer.hooks.INTELLIGENCE_CALLS`, the
    methods of :class:`kioko_intelligence.surface.IntelligentMemory` (``kioko.MemoryLayer``) and of both clients."""

    # -- the intelligence

    def plan(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> RecallPlan:
        """The :class:`RecallPlan` recall would follow for ``query`` (intents, reason, caps, links)."""

    def manage(
        self,
        text: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> ManageReport:
        """Decide (and unless ``dry_run``, apply) the memory operations for ``text`` (a string or messages)."""

    def record_turn(
        self,
        user: str,
        reply: str | None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> ManageReport:
        """One exchange of the agent loop: the user's words and the agent's reply. Routed when intelligence is
        on."""

    def learn(
        self,
        messages: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> ManageReport:
        """Learn from a conversation. With intelligence: routed like :meth:`manage`."""

    def end_session(self, session_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record | None:
        """Wrap a session up now: its task and lasting scratchpad slots become the session's episode (updated if it
        was wrapped up before), and the scratchpad is cleared. Returns the episode, or None."""

    def reflect(self, *, user_id: str | None = None, agent_id: str | None = None) -> dict[str, Any]:
        """Reflect on the user's recent episodes now (``maintain(tasks=["reflect"])`` for one user): recurring
        themes offline, insights with evidence with a model. ``{"insights": [ids], "themes": [ids], "error":
        ...}``."""

    def maintain(
        self, *, user_id: str | None = None, agent_id: str | None = None, tasks: list[str] | None = None
    ) -> dict[str, Any]:
        """Run maintenance now (``tasks``: ``"end_sessions"``, ``"summarize"``, ``"reflect"``, ``"tend"``,
        ``"pin"``, ``"consolidate"``; default all) for one user, or for every user the scheduler has counted turns
        for when no user is given (a layer bound to a user: that user)."""

    def pin(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        """Pin a memory: every context shows it under "Keep in mind (frequently needed)"; it joins :meth:`kv`."""

    def unpin(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        """Unpin a memory (a memory that was not pinned is returned as it is)."""

    def pinned(self, *, user_id: str | None = None, agent_id: str | None = None) -> list[Record]:
        """The scope's pinned memories, oldest pin first (at most the pinned section's 10)."""

    def kv(self, *, user_id: str | None = None, agent_id: str | None = None) -> StablePrefix:
        """The stable prefix for provider prompt caches: profile, instructions and pins, byte-identical from turn to
        turn until one of them changes (``prefix.text``, ``prefix.digest``, ``prefix.memory_ids``)."""

    # -- events

    def on(self, event: str, callback: Callback) -> Callback:
        """Call ``callback(payload)`` after every ``event`` (``"memory.managed"``, ``"memory.linked"``, ``"*"``)."""

    def off(self, event: str, callback: Callback) -> bool:
        """Stop calling ``callback`` for ``event``."""


@runtime_checkable
class Memory(KindManagers, IntelligenceCalls, Protocol):
    """Kioko's public surface: what a local layer and a remote service both answer, with the same types.

    The typed managers (``memory.goals`` ...) are :class:`~kioko_core.layer.declared_managers.KindManagers`'.
    """

    # -- the graphs and the intelligence

    @property
    def graph(self) -> MemoryGraph:
        """The memory-link graph and the entity triples of this memory (see :class:`MemoryGraph`)."""

    @property
    def entities(self) -> Entities:
        """The entity graph itself, every call naming its user (see :class:`Entities`)."""

    @property
    def intelligence(self) -> IntelligenceInfo | None:
        """The intelligence routing this memory's turns, or None when it has none."""

    @property
    def scope(self) -> Scope | None:
        """The scope this view is bound to (:meth:`scoped`); None for a layer that serves every user."""

    def scoped(self, *, user_id: str | None = None, agent_id: str | None = None) -> Memory:
        """This layer with ``user_id`` (and ``agent_id``) bound: a full view, managers and graph included."""

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
    ) -> Record:
        """Store a memory and (with ``auto_link``) link it; returns the stored record."""

    def add_many(
        self,
        items: Iterable[str | Mapping[str, Any]],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        memory_type: str = "factual",
    ) -> list[Record]:
        """Store many memories in order, as ``add`` would one by one; for imports."""

    def get(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        """The memory, or :class:`MemoryNotFound` if it is not in this scope."""

    def update(
        self,
        memory_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        content: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Record:
        """Change content (links are re-derived) and/or merge metadata (structural links are checked)."""

    def delete(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> bool:
        """Delete a memory and every trace of it; False if it did not exist."""

    def forget_user(self, *, user_id: str | None = None, agent_id: str | None = None) -> int:
        """Delete every memory of a scope (and, for the user's own scope, their entity graph and what else of
        Kioko's belongs to them, such as webhook registrations). Returns the count."""

    def forget_about(
        self, subject: str, *, user_id: str | None = None, agent_id: str | None = None, dry_run: bool = False
    ) -> dict[str, Any]:
        """Forget everything about ``subject`` ("Krutika", "the Lisbon project"): every memory of the scope that
        names it, deleted as :meth:`delete` deletes (links, triples, what was derived, caches), the profile,
        instruction and scratchpad slots that name it, the entity graph's triples of what it names (history
        included), the points of session summaries and the turns waiting in session logs that name it. ``dry_run``
        only lists what would go. Returns ``{"subject", "dry_run", "memories": [{"id", "kind", "content"}],
        "relations": [lines], "traces": [lines], "deleted"}`` (see :mod:`kioko_core.privacy.subject_forget` for what
        "names" means)."""

    def memories(
        self, *, user_id: str | None = None, agent_id: str | None = None, kinds: set[str] | None = None
    ) -> Iterator[Record]:
        """Every memory of a scope (a scan: for maintenance and exports, not for the hot path)."""

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
    ) -> Context:
        """The context for ``query``: the ``limit`` best memories (default 8), how they connect."""

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
    ) -> Context:
        """Like :meth:`recall`, but follows links only when asked (``links`` defaults to 0, here or in
        ``options``)."""

    def search(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, limit: int = 10
    ) -> list[Record]:
        """The memories that best match ``query`` (hybrid retrieval, no link expansion)."""

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
    ) -> list[MemoryLink]:
        """Credit what worked (``worked=False``: what did not): link the credited fix to its session's problems and
        strengthen the links used together; the links made or changed."""

    def export_lines(self, user_id: str, agent_ids: Iterable[str] = ()) -> Iterator[str]:
        """Every memory of ``user_id`` (and of ``agent_ids``) as JSON lines, the format ``kioko export`` writes."""
        ...

    def import_lines(self, lines: Iterable[str | bytes]) -> dict[str, int]:
        """Restore an export: ``{"records", "written", "unchanged"}`` (checked whole before anything is written)."""
        ...

    def close(self) -> None:
        """Close the store (a :meth:`scoped` view leaves it open: it belongs to the layer the view came from)."""


def export_lines(memory: Memory, user_id: str, agent_ids: Iterable[str] = ()) -> Iterator[str]:
    """``memory.export_lines(user_id, agent_ids)`` (kept for callers written before it was a method)."""
    return memory.export_lines(user_id, agent_ids)


def import_lines(memory: Memory, lines: Iterable[str | bytes]) -> dict[str, int]:
    """``memory.import_lines(lines)`` (kept for callers written before it was a method)."""
    return memory.import_lines(lines)
