"""What a MemoryLayer gains from the intelligence: manage, record_turn, learn, on / off, and the served note.

:class:`IntelligentMemory` is a mixin of :class:`~kioko_core.layer.MemoryLayer`; it keeps the layer
module small and the intelligence's public calls in one place.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..recall import DEFAULT_LINKS, pinned_memories
from ..store import InvalidRecordError, Scope
from .brain import Intelligence, build_intelligence
from .events import Callback, EventBus
from .executor import OpExecutor
from .maintenance import MaintenanceScheduler
from .ops import ManageReport, MemoryOp
from .pins import StablePrefix, set_pinned, stable_prefix
from .planner import RecallPlan, check_plan_options
from .turn import messages_of, redacted_messages

SERVED_KINDS = frozenset({"procedural", "skill", "strategy"})
MAX_SESSIONS_NOTED = 1024
"""Sessions whose last recall is remembered for feedback; the oldest give way."""


class IntelligentMemory:
    """The intelligence's surface on a layer. ``intelligence`` is None when the layer was built without it."""

    intelligence: Any = None
    auto_graph: bool = False
    _scope: Callable[[str | None, str | None], Scope]
    """The layer's scope resolution (a scoped view's user; reserved names refused)."""

    def _init_intelligence(self, intelligence: Any = None, auto_graph: bool = False) -> None:
        self.events = EventBus()
        self.auto_graph = bool(auto_graph)
        self.intelligence = build_intelligence(intelligence)
        self._on_demand: Intelligence | None = None
        self._served: OrderedDict[tuple[str, str | None, str], tuple[list[Any], Any]] = OrderedDict()
        """(user, agent, session) -> (procedures, skills, lessons served; the Context they came in)."""
        self._served_lock = threading.Lock()
        self._replies = _Recent(MAX_SESSIONS_NOTED)
        """(user, agent, session) -> the agent's last reply in a managed turn (feedback reads it)."""

    # -- events

    def on(self, event: str, callback: Callback) -> Callback:
        """Call ``callback(payload)`` after every ``event`` (``"memory.managed"``, ``"memory.linked"``, ``"*"``)."""
        return self.events.on(event, callback)

    def off(self, event: str, callback: Callback) -> bool:
        """Stop calling ``callback`` for ``event``."""
        return self.events.off(event, callback)

    # -- managed writes

    def manage(
        self,
        text: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> ManageReport:
        """Decide (and unless ``dry_run``, apply) the memory operations for ``text`` (a string or messages).

        Works on any layer: one built without intelligence uses the offline router on demand.
        """
        scope = self._scope(user_id, agent_id)  # a scoped view's user; reserved names refused
        user_id, agent_id = scope.user_id, scope.agent_id
        brain = self.intelligence
        if brain is None:
            if self._on_demand is None:
                self._on_demand = Intelligence()
            brain = self._on_demand
        report: ManageReport = brain.manage(
            self, text, user_id=user_id, agent_id=agent_id, session_id=session_id, dry_run=dry_run
        )
        return report

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
        """One exchange of the agent loop: the user's words and the agent's reply. Routed when intelligence is on."""
        if not isinstance(user, str):
            raise InvalidRecordError(f"user must be the user's words as a string, got {type(user).__name__}")
        if reply is not None and not isinstance(reply, str):
            raise InvalidRecordError(f"reply must be a string or None, got {type(reply).__name__}")
        messages = [{"role": "user", "content": user}]
        if reply:
            messages.append({"role": "assistant", "content": reply})
        return self.learn(messages, user_id=user_id, agent_id=agent_id, session_id=session_id, dry_run=dry_run)

    def learn(
        self,
        messages: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> ManageReport:
        """Learn from a conversation. With intelligence: routed like :meth:`manage`.

        Without it (the plain behaviour), each non-empty user message is kept as it is, as an episode
        of the session.
        """
        scope = self._scope(user_id, agent_id)  # a scoped view's user; reserved names refused
        if self.intelligence is not None:
            managed: ManageReport = self.intelligence.manage(
                self, messages, user_id=scope.user_id, agent_id=scope.agent_id, session_id=session_id, dry_run=dry_run
            )
            return managed
        ops = [
            MemoryOp(
                "episode.add",
                fields={"text": " ".join(m["content"].split())},
                reason="learn() without intelligence keeps what the user said",
            )
            for m in redacted_messages(messages_of(messages))
            if m["role"] == "user" and m["content"].strip()
        ]
        OpExecutor(self).apply(  # type: ignore[arg-type]
            ops,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            session_id=session_id,
            dry_run=dry_run,
            router="plain",
        )
        return ManageReport(
            ops=ops,
            router="plain",
            dry_run=dry_run,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            session_id=session_id,
            skipped=None if ops else "no user message",
        )

    # -- the read path

    def _brain(self) -> Intelligence:
        """The layer's intelligence, or the offline one on demand (plan() works on any layer)."""
        brain: Intelligence | None = self.intelligence
        if brain is None or not callable(getattr(brain, "plan", None)):
            if self._on_demand is None:
                self._on_demand = Intelligence()
            brain = self._on_demand
        return brain

    def plan(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> RecallPlan:
        """The :class:`RecallPlan` recall would follow for ``query`` (intents, reason, caps, links)."""
        if not isinstance(query, str):
            raise InvalidRecordError("query must be a string")
        scope = self._scope(user_id, agent_id)
        followed: RecallPlan = self._brain().plan(
            self,  # type: ignore[arg-type]
            query,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            session_id=session_id,
        )
        return followed

    def _recall_plan(
        self,
        query: str,
        scope: Scope,
        session_id: str | None,
        plan: Any,
        links: int | None,
        limit: int | None,
        section_limits: dict[str, int] | None,
        fill_recent: list[str] | None,
    ) -> RecallPlan | None:
        """The plan recall follows, explicit options applied; None for a plain recall (no plan asked for)."""
        check_plan_options(
            section_limits if section_limits is not None else {}, fill_recent if fill_recent is not None else []
        )
        if plan is None:
            plan = "auto" if self.intelligence is not None else False
        if plan is False:
            if section_limits is None and fill_recent is None:
                return None
            plan = RecallPlan(
                reason="options passed to recall", links=DEFAULT_LINKS if links is None else links, limit=limit
            )
        elif plan is True or plan == "auto":
            plan = self._brain().plan(
                self,  # type: ignore[arg-type]
                query,
                user_id=scope.user_id,
                agent_id=scope.agent_id,
                session_id=session_id,
            )
        if not isinstance(plan, RecallPlan):
            raise InvalidRecordError(f"plan must be 'auto', False or a RecallPlan, got {plan!r}")
        return dataclasses.replace(
            plan,
            links=plan.links if links is None else links,
            limit=plan.limit if limit is None else limit,
            section_limits={**plan.section_limits, **(section_limits or {})},
            fill_recent=list(plan.fill_recent if fill_recent is None else fill_recent),
        )

    # -- pins and the stable prefix

    def pin(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Any:
        """Pin a memory: every context shows it under "Keep in mind (frequently needed)"; it joins :meth:`kv`."""
        return set_pinned(self, memory_id, True, user_id=user_id, agent_id=agent_id)  # type: ignore[arg-type]

    def unpin(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Any:
        """Unpin a memory (a memory that was not pinned is returned as it is)."""
        return set_pinned(self, memory_id, False, user_id=user_id, agent_id=agent_id)  # type: ignore[arg-type]

    def pinned(self, *, user_id: str | None = None, agent_id: str | None = None) -> list[Any]:
        """The scope's pinned memories, oldest pin first (at most the pinned section's 10)."""
        return pinned_memories(self, self._scope(user_id, agent_id))  # type: ignore[arg-type]

    def kv(self, *, user_id: str | None = None, agent_id: str | None = None) -> StablePrefix:
        """The stable prefix for provider prompt caches: profile, instructions and pins, byte-identical from
        turn to turn until one of them changes (``prefix.text``, ``prefix.digest``, ``prefix.memory_ids``)."""
        return stable_prefix(self, self._scope(user_id, agent_id))  # type: ignore[arg-type]

    # -- maintenance

    def _scheduler(self) -> MaintenanceScheduler:
        """The layer's scheduler, else the default one (maintain() and end_session() work on any layer)."""
        for brain in (self.intelligence, self._brain()):
            scheduler = getattr(brain, "scheduler", None)
            if isinstance(scheduler, MaintenanceScheduler):
                return scheduler
        return MaintenanceScheduler()

    def end_session(self, session_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Any:
        """Wrap a session up now: its task and lasting scratchpad slots become the session's episode (updated
        if it was wrapped up before), and the scratchpad is cleared. Returns the episode, or None."""
        scope = self._scope(user_id, agent_id)
        return self._scheduler().end_session(
            self,  # type: ignore[arg-type]
            session_id,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            clear=True,
        )

    def reflect(self, *, user_id: str | None = None, agent_id: str | None = None) -> dict[str, Any]:
        """Reflect on the user's recent episodes now (``maintain(tasks=["reflect"])`` for one user): recurring
        themes offline, insights with evidence with a model. ``{"insights": [ids], "themes": [ids], "error": ...}``."""
        scope = self._scope(user_id, agent_id)
        return self._scheduler().reflect(self, user_id=scope.user_id, agent_id=scope.agent_id)  # type: ignore[arg-type]

    def maintain(
        self, *, user_id: str | None = None, agent_id: str | None = None, tasks: list[str] | None = None
    ) -> dict[str, Any]:
        """Run maintenance now (``tasks``: ``"end_sessions"``, ``"summarize"``, ``"reflect"``, ``"tend"``, ``"pin"``,
        ``"consolidate"``; default all) for one user, or for every user the scheduler has counted turns for when no
        user is given (a layer bound to a user: that user)."""
        if user_id is None and agent_id is None and getattr(self, "_bound", None) is None:
            return self._scheduler().run(self, tasks=tasks)  # type: ignore[arg-type]
        scope = self._scope(user_id, agent_id)
        return self._scheduler().run(
            self,  # type: ignore[arg-type]
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            tasks=tasks,
        )

    def _write_uses(self) -> None:
        """Write the uses recall noted and the scheduler still holds for this layer's store (on close)."""
        scheduler = getattr(self.intelligence, "scheduler", None)
        if isinstance(scheduler, MaintenanceScheduler):
            scheduler.write_uses(self)  # type: ignore[arg-type]

    # -- forgetting what this process holds

    def _forget_held(self, scope: Scope, memory_ids: set[str] | None = None) -> None:
        """Drop what this process keeps in memory about a deleted memory (``memory_ids``) or, without ids, about
        the whole scope (``forget_user``; the user's own scope takes their agents' too): served notes, replies,
        uses not yet written."""

        def about(key: tuple[Any, ...]) -> bool:
            return key[0] == scope.user_id and (scope.agent_id is None or key[1] == scope.agent_id)

        with self._served_lock:
            for key in [k for k in self._served if about(k)]:
                served, context = self._served[key]
                shown = {r.id for r in served} | {m.record.id for m in getattr(context, "memories", [])}
                if memory_ids is None or shown & memory_ids:
                    del self._served[key]
        if memory_ids is None:
            self._replies.forget(about)
        scheduler = getattr(self.intelligence, "scheduler", None)
        if isinstance(scheduler, MaintenanceScheduler):
            scheduler.forget_held(self, scope, memory_ids)  # type: ignore[arg-type]

    # -- what recall gave the agent

    def _note_recall(self, context: Any, user_id: str, agent_id: str | None, session_id: str | None) -> None:
        """Remember the procedures, skills and lessons a session's recall gave the agent (for "that worked"),
        and count a use of every memory the query retrieved on its own (heat; a pinned memory shown only in
        the pinned section, an open goal or a memory only a link brought are not used)."""
        scheduler = getattr(self.intelligence, "scheduler", None)
        if isinstance(scheduler, MaintenanceScheduler) and scheduler.pins:
            used = [
                m.record.id
                for m in getattr(context, "memories", [])
                if "rrf" in m.signals and m.record.user_id == user_id  # the shared knowledge base heats no one
            ]
            scheduler.note_recalled(self, used, user_id=user_id, agent_id=agent_id)  # type: ignore[arg-type]
        if not session_id:
            return
        served = [m.record for m in getattr(context, "memories", []) if m.record.kind in SERVED_KINDS]
        key = (user_id, agent_id, session_id)
        with self._served_lock:  # recall may run on several threads of one agent
            self._served.pop(key, None)
            if served:
                self._served[key] = (served, context)
                while len(self._served) > MAX_SESSIONS_NOTED:
                    self._served.popitem(last=False)


class _Recent:
    """A small bounded map, newest last: the oldest sessions give way."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Any, str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any, default: str = "") -> str:
        with self._lock:
            return self._items.get(key, default)

    def forget(self, which: Callable[[Any], bool]) -> None:
        """Drop the entries whose key ``which`` picks."""
        with self._lock:
            for key in [k for k in self._items if which(k)]:
                del self._items[key]

    def note(self, key: Any, value: str) -> None:
        with self._lock:
            self._items.pop(key, None)
            self._items[key] = value[:4000]  # the start of a reply names what it suggests
            while len(self._items) > self.size:
                self._items.popitem(last=False)
