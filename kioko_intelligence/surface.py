"""Kioko's full layer: :class:`IntelligentMemory`, the core's MemoryLayer with the intelligence's calls as methods.

``kioko.MemoryLayer`` is this class, and ``kioko.connect()`` and ``kioko.intelligent()`` build it: ``manage``,
``record_turn``, ``learn``, ``plan``, pins, ``kv``, ``end_session``, ``reflect``, ``maintain``, ``on`` / ``off``
(the names of :data:`kioko_core.layer.hooks.INTELLIGENCE_CALLS`) are declared here with their signatures, and
its :class:`IntelligenceHooks` act at the layer's turning points (plan a recall, note what recall served,
erase a deleted memory's traces, forget a user's counters, write the uses on close). The core's
:class:`~kioko_core.layer.memory_layer.MemoryLayer` knows nothing of this package.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from kioko_core.layer.hooks import LayerHooks
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.recall.hybrid import DEFAULT_LINKS, pinned_memories
from kioko_core.store import InvalidRecordError, Record, Scope, Store
from kioko_core.telemetry import timed
from kioko_intelligence.events import Callback, EventBus
from kioko_intelligence.executor import OpExecutor
from kioko_intelligence.ops import ManageReport, MemoryOp
from kioko_intelligence.pins import StablePrefix, set_pinned, stable_prefix
from kioko_intelligence.turn import messages_of, redacted_messages

if TYPE_CHECKING:
    from kioko_core.embedding.embedders import Embedder
    from kioko_core.privacy.limits import Limits
    from kioko_core.recall.hybrid import RecallConfig
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


def with_calls(layer: MemoryLayer) -> IntelligentMemory:
    """``layer`` itself when it has the intelligence's calls (a :class:`IntelligentMemory`), else a view of the core's
    layer that has them, without an intelligence (``manage`` and ``plan`` use the offline router on demand): the same
    store, index and linker, the same scope and linking, closing the store as ``layer`` would."""
    if isinstance(layer, IntelligentMemory):
        return layer
    view = layer._view(bound=layer.scope, auto_link=layer.auto_link, owns_store=layer._owns_store)
    # the view is a fresh shallow copy nobody else holds, and the subclass adds no part of its own but the state
    # _hold makes: its managers and graph stay bound to it
    view.__class__ = IntelligentMemory
    smart = cast("IntelligentMemory", view)
    smart._hold()
    return smart


def enable(view: IntelligentMemory, intelligence: Any) -> IntelligentMemory:
    """Turn the intelligence on for ``view`` (a fresh view of a layer, see :func:`kioko.intelligent`) and return it:
    it routes turns with ``intelligence`` and managed turns feed the entity graph."""
    from kioko_intelligence.brain import build_intelligence

    view.auto_graph = True
    view.intelligence = build_intelligence(intelligence)
    return view


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

    def shown_changes(self, layer: Any, query: str, memories: Any) -> dict[str, str]:
        from kioko_intelligence.change_pairs import changed_pairs, cosine_of

        return changed_pairs(query, memories, cosine_of(layer))

    def turn_mates(self, layer: Any, scope: Scope, records: Sequence[Record]) -> dict[str, list[Record]]:
        from kioko_intelligence.turn_mates import turn_mates

        return turn_mates(layer, scope, records)

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

    def on_close(self, layer: Any) -> None:
        _write_uses(layer)


HOOKS = IntelligenceHooks()


class IntelligentMemory(MemoryLayer):
    """A memory layer with Kioko's intelligence (``kioko.MemoryLayer``): the core's layer and the calls of
    :data:`~kioko_core.layer.hooks.INTELLIGENCE_CALLS`.

    ``intelligence`` (True, ``"heuristic"``, an Intelligence or a config dict) routes ``learn`` and
    ``record_turn``; ``auto_graph`` lets managed turns add relations to the entity graph. Without
    ``intelligence``, ``manage`` and ``plan`` use the offline router on demand and ``learn`` keeps what the
    user said. The other options are :class:`~kioko_core.layer.memory_layer.MemoryLayer`'s.
    """

    hooks: LayerHooks = HOOKS

    def __init__(
        self,
        store: Store,
        *,
        auto_link: bool = False,
        linker: dict[str, Any] | None = None,
        embedder: Embedder | str | None = None,
        limits: Limits | dict[str, Any] | None = None,
        recall_config: RecallConfig | dict[str, Any] | None = None,
        intelligence: Any = None,
        auto_graph: bool = False,
        mark_store: bool = True,
    ) -> None:
        super().__init__(
            store,
            auto_link=auto_link,
            linker=linker,
            embedder=embedder,
            limits=limits,
            recall_config=recall_config,
            mark_store=mark_store,
        )
        self.auto_graph = bool(auto_graph)
        self.intelligence = None
        if intelligence is not None and intelligence is not False:
            from kioko_intelligence.brain import build_intelligence

            self.intelligence = build_intelligence(intelligence)
        self._hold()

    def _hold(self) -> None:
        """What this process holds for the layer, shared with its views (the router reads _served and _replies)."""
        self.events = EventBus()
        """The layer's :class:`~kioko_intelligence.events.EventBus` (``on`` / ``off`` register with it)."""
        self._on_demand: Intelligence | None = None
        self._served: OrderedDict[Any, Any] = OrderedDict()  # (user, agent, session) -> (recall's served, Context)
        self._served_lock = threading.Lock()
        self._replies = _Recent(MAX_SESSIONS_NOTED)  # (user, agent, session) -> the agent's last reply

    # -- events

    def on(self, event: str, callback: Callback) -> Callback:
        """Call ``callback(payload)`` after every ``event`` (``"memory.managed"``, ``"memory.linked"``, ``"*"``)."""
        events: EventBus = self.events
        return events.on(event, callback)

    def off(self, event: str, callback: Callback) -> bool:
        """Stop calling ``callback`` for ``event``."""
        events: EventBus = self.events
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
        brain = self.intelligence or _on_demand(self)
        report: ManageReport = brain.manage(
            self, text, user_id=user_id, agent_id=agent_id, session_id=session_id, dry_run=dry_run
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
        if self.intelligence is not None:
            managed: ManageReport = self.intelligence.manage(
                self,
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
        OpExecutor(self).apply(
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
        followed: RecallPlan = _brain(self).plan(
            self,
            query,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            session_id=session_id,
        )
        return followed

    # -- pins and the stable prefix

    def pin(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        """Pin a memory: every context shows it under "Keep in mind (frequently needed)"; it joins :meth:`kv`."""
        return set_pinned(self, memory_id, True, user_id=user_id, agent_id=agent_id)

    def unpin(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        """Unpin a memory (a memory that was not pinned is returned as it is)."""
        return set_pinned(self, memory_id, False, user_id=user_id, agent_id=agent_id)

    def pinned(self, *, user_id: str | None = None, agent_id: str | None = None) -> list[Record]:
        """The scope's pinned memories, oldest pin first (at most the pinned section's 10)."""
        return pinned_memories(self, self._scope(user_id, agent_id))

    def kv(self, *, user_id: str | None = None, agent_id: str | None = None) -> StablePrefix:
        """The stable prefix for provider prompt caches: profile, instructions and pins, byte-identical from
        turn to turn until one of them changes (``prefix.text``, ``prefix.digest``, ``prefix.memory_ids``)."""
        return stable_prefix(self, self._scope(user_id, agent_id))

    # -- maintenance

    def end_session(self, session_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record | None:
        """Wrap a session up now: its task and lasting scratchpad slots become the session's episode (updated
        if it was wrapped up before), and the scratchpad is cleared. Returns the episode, or None."""
        scope = self._scope(user_id, agent_id)
        return _scheduler(self).end_session(
            self,
            session_id,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            clear=True,
        )

    def reflect(self, *, user_id: str | None = None, agent_id: str | None = None) -> dict[str, Any]:
        """Reflect on the user's recent episodes now (``maintain(tasks=["reflect"])`` for one user): recurring
        themes offline, insights with evidence with a model. ``{"insights": [ids], "themes": [ids], "error": ...}``."""
        scope = self._scope(user_id, agent_id)
        return _scheduler(self).reflect(self, user_id=scope.user_id, agent_id=scope.agent_id)

    def maintain(
        self, *, user_id: str | None = None, agent_id: str | None = None, tasks: list[str] | None = None
    ) -> dict[str, Any]:
        """Run maintenance now (``tasks``: ``"end_sessions"``, ``"summarize"``, ``"reflect"``, ``"tend"``, ``"pin"``,
        ``"consolidate"``; default all) for one user, or for every user the scheduler has counted turns for when no
        user is given (a layer bound to a user: that user)."""
        if user_id is None and agent_id is None and self.scope is None:
            return _scheduler(self).run(self, tasks=tasks)
        scope = self._scope(user_id, agent_id)
        return _scheduler(self).run(
            self,
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


__all__ = ["HOOKS", "IntelligenceHooks", "IntelligentMemory", "enable", "with_calls"]
