"""What a MemoryLayer gains from the intelligence: manage, record_turn, learn, on / off, and the served note.

Installed by composition: the core's :class:`~kioko_core.layer.memory_layer.MemoryLayer` knows nothing of this package.
Importing it registers :func:`install` with :func:`kioko_core.layer.hooks.register_extension`, so every layer built
afterwards gets the intelligence's state (``intelligence``, ``auto_graph``, ``events``), its
:class:`IntelligenceHooks` (plan a recall, note what recall served, erase a deleted memory's traces, forget a
user's counters, write the uses on close) and the public calls of :class:`IntelligentMemory` bound to it.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kioko_core.layer.hooks import LayerHooks, register_extension
from kioko_core.recall.hybrid import DEFAULT_LINKS, pinned_memories
from kioko_core.store import InvalidRecordError, Record, Scope
from kioko_core.telemetry import timed
from kioko_intelligence.events import Callback, EventBus
from kioko_intelligence.executor import OpExecutor
from kioko_intelligence.ops import ManageReport, MemoryOp
from kioko_intelligence.pins import StablePrefix, set_pinned, stable_prefix
from kioko_intelligence.turn import messages_of, redacted_messages

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer
    from kioko_core.recall.options import RecallOptions
    from kioko_intelligence.brain import Intelligence
    from kioko_intelligence.maintenance import MaintenanceScheduler
    from kioko_intelligence.planner import RecallPlan

# The router, the planner, the maintenance tasks and forgetting (brain, planner, maintenance, forgetting: a few
# hundred regular expressions compiled at import) load where they are first used, not with every layer: a plain
# add or recall, a CLI call, a serverless worker does not pay for them.

SERVED_KINDS = frozenset({"procedural", "skill", "strategy"})
MAX_SESSIONS_NOTED = 1024
"""Sessions whose last recall is remembered for feedback; the oldest give way."""

PUBLIC_CALLS = (
    "on",
    "off",
    "manage",
    "record_turn",
    "learn",
    "plan",
    "pin",
    "unpin",
    "pinned",
    "kv",
    "end_session",
    "reflect",
    "maintain",
)
"""The calls :func:`install` puts on a layer (each bound to that layer, or to the view it is on)."""


def install(layer: MemoryLayer, *, intelligence: Any = None, auto_graph: bool = False) -> None:
    """Give a new layer the intelligence's state, hooks and calls (run by the layer's constructor)."""
    layer.events = EventBus()
    layer.auto_graph = bool(auto_graph)
    layer.intelligence = None
    if intelligence is not None and intelligence is not False:
        from kioko_intelligence.brain import build_intelligence

        layer.intelligence = build_intelligence(intelligence)
    # what this process holds for the layer, shared with its views (the router reads _served and _replies)
    held = vars(layer)  # not the core's attributes: the layer's class does not declare them
    held["_on_demand"] = None
    held["_served"] = OrderedDict()  # (user, agent, session) -> (what recall served, its Context)
    held["_served_lock"] = threading.Lock()
    held["_replies"] = _Recent(MAX_SESSIONS_NOTED)  # (user, agent, session) -> the agent's last reply
    layer.hooks = HOOKS
    _bind_calls(layer)


def enable(layer: MemoryLayer, intelligence: Any) -> None:
    """Turn the intelligence on for ``layer`` (a fresh view, see :func:`kioko.intelligent`): it routes turns
    with ``intelligence`` and managed turns feed the entity graph."""
    from kioko_intelligence.brain import build_intelligence

    layer.auto_graph = True
    layer.intelligence = build_intelligence(intelligence)


def _bind_calls(layer: MemoryLayer) -> None:
    surface = IntelligentMemory(layer)
    for name in PUBLIC_CALLS:
        setattr(layer, name, getattr(surface, name))


class IntelligenceHooks(LayerHooks):
    """The intelligence at the layer's turning points (one instance serves every layer: it holds nothing)."""

    def plan_recall(
        self,
        layer: Any,
        query: str,
        scope: Scope,
        session_id: str | None,
        options: RecallOptions,
    ) -> RecallPlan | None:
        return _recall_plan(layer, query, scope, session_id, options)

    def after_recall(self, layer: Any, context: Any, scope: Scope, session_id: str | None) -> None:
        _note_recall(layer, context, scope.user_id, scope.agent_id, session_id)

    def on_delete(self, layer: Any, scope: Scope, deleted: Record, *, derived: bool) -> None:
        from kioko_intelligence.forgetting import erase_traces

        erase_traces(layer, scope, deleted, derived=derived)

    def forget_subject(
        self, layer: Any, scope: Scope, names: Callable[[str], bool], summaries: list[Record], *, dry_run: bool
    ) -> list[str]:
        from kioko_intelligence.forgetting import forget_subject

        return forget_subject(layer, scope, names, summaries, dry_run=dry_run)

    def on_forget(self, layer: Any, scope: Scope) -> None:
        from kioko_intelligence.forgetting import forget_held
        from kioko_intelligence.maintenance import forget_counters

        forget_counters(layer.bookkeeping, scope)
        forget_held(layer, scope)

    def on_view(self, view: Any) -> None:
        _bind_calls(view)  # the calls of the layer it came from act for that layer's scope, not the view's

    def on_close(self, layer: Any) -> None:
        _write_uses(layer)


HOOKS = IntelligenceHooks()


class IntelligentMemory:
    """The intelligence's calls on one layer (or view); :func:`install` binds them onto it as attributes."""

    def __init__(self, layer: MemoryLayer) -> None:
        self._layer = layer

    def _scope(self, user_id: str | None, agent_id: str | None) -> Scope:
        """The layer's scope resolution (a scoped view's user; reserved names refused)."""
        return self._layer._scope(user_id, agent_id)

    # -- events

    def on(self, event: str, callback: Callback) -> Callback:
        """Call ``callback(payload)`` after every ``event`` (``"memory.managed"``, ``"memory.linked"``, ``"*"``)."""
        events: EventBus = self._layer.events
        return events.on(event, callback)

    def off(self, event: str, callback: Callback) -> bool:
        """Stop calling ``callback`` for ``event``."""
        events: EventBus = self._layer.events
        return events.off(event, callback)

    # -- managed writes

    @timed("manage")
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
        brain = self._layer.intelligence or _on_demand(self._layer)
        report: ManageReport = brain.manage(
            self._layer, text, user_id=user_id, agent_id=agent_id, session_id=session_id, dry_run=dry_run
        )
        return report

    @timed("record_turn")
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

    @timed("learn")
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
        if self._layer.intelligence is not None:
            managed: ManageReport = self._layer.intelligence.manage(
                self._layer,
                messages,
                user_id=scope.user_id,
                agent_id=scope.agent_id,
                session_id=session_id,
                dry_run=dry_run,
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
        OpExecutor(self._layer).apply(
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

    def plan(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> RecallPlan:
        """The :class:`RecallPlan` recall would follow for ``query`` (intents, reason, caps, links)."""
        if not isinstance(query, str):
            raise InvalidRecordError("query must be a string")
        scope = self._scope(user_id, agent_id)
        followed: RecallPlan = _brain(self._layer).plan(
            self._layer,
            query,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            session_id=session_id,
        )
        return followed

    # -- pins and the stable prefix

    def pin(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        """Pin a memory: every context shows it under "Keep in mind (frequently needed)"; it joins :meth:`kv`."""
        return set_pinned(self._layer, memory_id, True, user_id=user_id, agent_id=agent_id)

    def unpin(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        """Unpin a memory (a memory that was not pinned is returned as it is)."""
        return set_pinned(self._layer, memory_id, False, user_id=user_id, agent_id=agent_id)

    def pinned(self, *, user_id: str | None = None, agent_id: str | None = None) -> list[Record]:
        """The scope's pinned memories, oldest pin first (at most the pinned section's 10)."""
        return pinned_memories(self._layer, self._scope(user_id, agent_id))

    def kv(self, *, user_id: str | None = None, agent_id: str | None = None) -> StablePrefix:
        """The stable prefix for provider prompt caches: profile, instructions and pins, byte-identical from
        turn to turn until one of them changes (``prefix.text``, ``prefix.digest``, ``prefix.memory_ids``)."""
        return stable_prefix(self._layer, self._scope(user_id, agent_id))

    # -- maintenance

    def end_session(self, session_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record | None:
        """Wrap a session up now: its task and lasting scratchpad slots become the session's episode (updated
        if it was wrapped up before), and the scratchpad is cleared. Returns the episode, or None."""
        scope = self._scope(user_id, agent_id)
        return _scheduler(self._layer).end_session(
            self._layer,
            session_id,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            clear=True,
        )

    def reflect(self, *, user_id: str | None = None, agent_id: str | None = None) -> dict[str, Any]:
        """Reflect on the user's recent episodes now (``maintain(tasks=["reflect"])`` for one user): recurring
        themes offline, insights with evidence with a model. ``{"insights": [ids], "themes": [ids], "error": ...}``."""
        scope = self._scope(user_id, agent_id)
        return _scheduler(self._layer).reflect(self._layer, user_id=scope.user_id, agent_id=scope.agent_id)

    def maintain(
        self, *, user_id: str | None = None, agent_id: str | None = None, tasks: list[str] | None = None
    ) -> dict[str, Any]:
        """Run maintenance now (``tasks``: ``"end_sessions"``, ``"summarize"``, ``"reflect"``, ``"tend"``, ``"pin"``,
        ``"consolidate"``; default all) for one user, or for every user the scheduler has counted turns for when no
        user is given (a layer bound to a user: that user)."""
        if user_id is None and agent_id is None and self._layer.scope is None:
            return _scheduler(self._layer).run(self._layer, tasks=tasks)
        scope = self._scope(user_id, agent_id)
        return _scheduler(self._layer).run(
            self._layer,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            tasks=tasks,
        )


# --------------------------------------------------------------------------- the hooks' work


def _on_demand(layer: MemoryLayer) -> Intelligence:
    """The offline intelligence a layer built without one uses when asked (manage, plan, maintain)."""
    brain: Intelligence | None = getattr(layer, "_on_demand", None)
    if brain is None:
        from kioko_intelligence.brain import Intelligence

        brain = Intelligence()
        vars(layer)["_on_demand"] = brain
    return brain


def _brain(layer: MemoryLayer) -> Intelligence:
    """The layer's intelligence, or the offline one on demand (plan() works on any layer)."""
    brain: Intelligence | None = layer.intelligence
    if brain is None or not callable(getattr(brain, "plan", None)):
        brain = _on_demand(layer)
    return brain


def _recall_plan(
    layer: MemoryLayer,
    query: str,
    scope: Scope,
    session_id: str | None,
    options: RecallOptions,
) -> RecallPlan | None:
    """The plan recall follows, the call's explicit options applied; None for a plain recall (no plan asked for)."""
    plan, links, limit = options.plan, options.links, options.limit
    knobs = options.keywords()
    section_limits, fill_recent = knobs["section_limits"], knobs["fill_recent"]
    if plan is None:
        plan = "auto" if layer.intelligence is not None else False
    if plan is False and section_limits is None and fill_recent is None:
        return None
    from kioko_intelligence.planner import RecallPlan, check_plan_options

    check_plan_options(
        section_limits if section_limits is not None else {}, fill_recent if fill_recent is not None else []
    )
    if plan is False:
        plan = RecallPlan(
            reason="options passed to recall", links=DEFAULT_LINKS if links is None else links, limit=limit
        )
    elif plan is True or plan == "auto":
        plan = _brain(layer).plan(layer, query, user_id=scope.user_id, agent_id=scope.agent_id, session_id=session_id)
    if not isinstance(plan, RecallPlan):
        raise InvalidRecordError(f"plan must be 'auto', False or a RecallPlan, got {plan!r}")
    return dataclasses.replace(
        plan,
        links=plan.links if links is None else links,
        limit=plan.limit if limit is None else limit,
        section_limits={**plan.section_limits, **(section_limits or {})},
        fill_recent=list(plan.fill_recent if fill_recent is None else fill_recent),
    )


def _scheduler(layer: MemoryLayer) -> MaintenanceScheduler:
    """The layer's scheduler, else the default one (maintain() and end_session() work on any layer)."""
    from kioko_intelligence.maintenance import MaintenanceScheduler

    for brain in (layer.intelligence, _brain(layer)):
        scheduler = kiokos_scheduler(brain)
        if scheduler is not None:
            return scheduler
    return MaintenanceScheduler()


def kiokos_scheduler(brain: Any) -> MaintenanceScheduler | None:
    """``brain.scheduler`` when it is a :class:`MaintenanceScheduler`, else None (maintenance is imported only
    when there is a scheduler to look at)."""
    scheduler = getattr(brain, "scheduler", None)
    if scheduler is None:
        return None
    from kioko_intelligence.maintenance import MaintenanceScheduler

    return scheduler if isinstance(scheduler, MaintenanceScheduler) else None


def _write_uses(layer: MemoryLayer) -> None:
    """Write the uses recall noted and the scheduler still holds for this layer's store (on close)."""
    scheduler = kiokos_scheduler(layer.intelligence)
    if scheduler is not None:
        scheduler.write_uses(layer)


def _note_recall(layer: MemoryLayer, context: Any, user_id: str, agent_id: str | None, session_id: str | None) -> None:
    """Remember the procedures, skills and lessons a session's recall gave the agent (for "that worked"),
    and count a use of every memory the query retrieved on its own (heat; a pinned memory shown only in
    the pinned section, an open goal or a memory only a link brought are not used)."""
    scheduler = kiokos_scheduler(layer.intelligence)
    if scheduler is not None and scheduler.pins:
        used = [
            m.record.id
            for m in getattr(context, "memories", [])
            if "rrf" in m.signals and m.record.user_id == user_id  # the shared knowledge base heats no one
        ]
        scheduler.note_recalled(layer, used, user_id=user_id, agent_id=agent_id)
    if not session_id:
        return
    served = [m.record for m in getattr(context, "memories", []) if m.record.kind in SERVED_KINDS]
    key = (user_id, agent_id, session_id)
    from kioko_intelligence.forgetting import served_note

    lock, note = served_note(layer)
    with lock:  # recall may run on several threads of one agent
        note.pop(key, None)
        if served:
            note[key] = (served, context)
            while len(note) > MAX_SESSIONS_NOTED:
                note.popitem(last=False)


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


register_extension(install)

__all__ = ["HOOKS", "IntelligenceHooks", "IntelligentMemory", "enable", "install"]
