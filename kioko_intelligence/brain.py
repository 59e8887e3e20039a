"""Intelligence: a router, the executor and the counters, for one layer's managed turns.

``Intelligence()`` is offline (the HeuristicRouter); ``Intelligence(llm=ask)`` puts an LLMRouter in
front of it. Any object with ``manage(memory, messages, *, user_id, agent_id, session_id, dry_run)``
can stand in for the whole thing (``MemoryLayer(intelligence=my_brain)``).
"""

from __future__ import annotations

import importlib
import threading
from typing import TYPE_CHECKING, Any, Mapping

from kioko_core.privacy.secrets import DropSecrets, get_logger
from kioko_core.store import KiokoError, Scope, check_scope
from kioko_intelligence import slots
from kioko_intelligence.events import LINKED, MANAGED
from kioko_intelligence.executor import OpExecutor
from kioko_intelligence.heuristic import HeuristicRouter
from kioko_intelligence.holders import read_once
from kioko_intelligence.llm import DEFAULT_MANAGE_PROMPT, LLMRouter
from kioko_intelligence.maintenance import MaintenanceScheduler
from kioko_intelligence.normalise import normalise_messages
from kioko_intelligence.ops import APPLIED, FAILED, PLANNED, ROUTER_FALLBACK, SKIPPED, ManageReport, RouteResult
from kioko_intelligence.planner import LLMPlanner, QueryPlanner
from kioko_intelligence.providers import chat_model, is_provider_string
from kioko_intelligence.turn import Turn, messages_of, redacted_messages
from kioko_intelligence.turn_reading import known_names

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

log = get_logger("kioko.intelligence")
_ids = DropSecrets()


class IntelligenceConfigError(KiokoError, ValueError):
    """The ``intelligence`` setting names no usable intelligence (a bad type, an ``$import`` that fails)."""


OFFLINE_ROUTERS = ("heuristic", "semantic")
"""``Intelligence(router=...)`` by name: the rules alone, or the rules with a nearest-prototype reading."""


def offline_router(name: str, **options: Any) -> HeuristicRouter:
    """The offline router ``name`` names (:data:`OFFLINE_ROUTERS`); IntelligenceConfigError for another."""
    if name == "heuristic":
        return HeuristicRouter(**options)
    if name == "semantic":
        from kioko_intelligence.semantic_router import SemanticRouter  # late: numpy and the model only when asked for

        return SemanticRouter(**options)
    raise IntelligenceConfigError(f"router={name!r} is not known; use one of {OFFLINE_ROUTERS} or a router object")


class Intelligence:
    """The write path of a layer: ``manage(memory, messages, ...)`` routes a turn and applies its ops.

    ``llm`` is a prompt -> text callable (or an object with ``.invoke`` / ``.run``) or a provider string
    (``"openai:gpt-4o-mini"``, ``"azure:<deployment>"``, ``"ollama:llama3.1"``,
    ``"openai-compatible:<url>#<model>"``: :func:`~kioko_intelligence.providers.chat_model`, with
    ``timeout`` as its read timeout). ``router`` is any object with ``route(memory, turn) -> RouteResult``, or ``"heuristic"`` / ``"semantic"``
    (:class:`~kioko_intelligence.semantic_router.SemanticRouter`, the offline fallback too with ``llm``);
    without one, ``llm`` picks
    LLMRouter(llm, fallback=HeuristicRouter(...)) and no ``llm`` the HeuristicRouter alone, built from
    ``capture``, ``min_importance``, ``working``, ``feedback`` and ``graph``. ``timeout`` and
    ``prompt_template`` go to the LLMRouter. ``planner`` (any object with ``plan(memory, query, *, user_id,
    agent_id, session_id, limit) -> RecallPlan``; default :class:`QueryPlanner`) plans recall; ``scheduler``
    (default :class:`MaintenanceScheduler`, False for none) runs the maintenance due after each turn.
    ``background`` runs the default scheduler's due tasks on one worker thread; ``pin_threshold`` (heat that
    earns an automatic pin, 0 / None: none) and ``max_pinned`` (automatic pins per user) go to it, and so do
    ``summarize_every``, ``reflect_after`` and ``consolidate_every`` (0 or None: that task off) and ``llm`` (it
    reviews recent automatic links when the graph is tended, summarises sessions and reflects, each call
    bounded by ``timeout`` too). ``plan_with_llm`` (with
    ``llm``) lets the model name the query's intents (:class:`LLMPlanner`).
    """

    def __init__(
        self,
        router: Any = None,
        *,
        llm: Any = None,
        capture: str = "selective",
        min_importance: float = 0.4,
        working: bool = True,
        feedback: bool = True,
        graph: bool | None = None,
        timeout: float | None = None,
        prompt_template: str = DEFAULT_MANAGE_PROMPT,
        planner: Any = None,
        scheduler: Any = None,
        plan_with_llm: bool = False,
        background: bool = False,
        pin_threshold: float | None = 5,
        max_pinned: int = 5,
        summarize_every: int | None = 10,
        reflect_after: float | None = 2.5,
        consolidate_every: int | None = 200,
    ) -> None:
        if isinstance(llm, str):
            llm = chat_model(llm, **({"timeout": timeout} if timeout is not None else {}))
        if router is None or isinstance(router, str):
            offline = offline_router(
                router or "heuristic",
                capture=capture,
                min_importance=min_importance,
                working=working,
                feedback=feedback,
                graph=graph,
            )
            router = (
                LLMRouter(llm, fallback=offline, prompt_template=prompt_template, timeout=timeout)
                if llm is not None
                else offline
            )
        elif not callable(getattr(router, "route", None)):
            raise IntelligenceConfigError("router must have route(memory, turn) -> RouteResult")
        self.router = router
        if planner is None:
            planner = LLMPlanner(llm, fallback=QueryPlanner()) if llm is not None and plan_with_llm else QueryPlanner()
        elif not callable(getattr(planner, "plan", None)):
            raise IntelligenceConfigError("planner must have plan(memory, query, *, user_id, ...) -> RecallPlan")
        self.planner = planner
        if scheduler is None:
            scheduler = MaintenanceScheduler(
                background=background,
                pin_threshold=pin_threshold,
                max_pinned=max_pinned,
                summarize_every=summarize_every,
                reflect_after=reflect_after,
                consolidate_every=consolidate_every,
                llm=llm,
                timeout=timeout,
            )
        elif scheduler is not False and not callable(getattr(scheduler, "after_turn", None)):
            raise IntelligenceConfigError("scheduler must have after_turn(memory, report, *, user_id, ...) -> list")
        self.scheduler: Any = scheduler or None
        """Runs the maintenance due after each applied turn (False: none)."""
        """The read path's planner: recall() follows its plan (:class:`QueryPlanner` by default)."""
        self._lock = threading.Lock()
        self._stats = {
            "turns": 0,
            "gated": 0,
            "model_calls": 0,
            "fallbacks": 0,
            "operations": 0,
            "planned": 0,
            "skipped": 0,
            "failed": 0,
            "router_errors": 0,
            "maintenance": 0,
            "maintenance_errors": 0,
        }
        self._plans = 0

    def __repr__(self) -> str:
        return f"Intelligence(router={self.router!r})"

    def manage(
        self,
        memory: MemoryLayer,
        messages: Any,
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        dry_run: bool = False,
    ) -> ManageReport:
        """Route one turn and apply (or, with ``dry_run``, only plan) its ops; emits ``memory.managed``."""
        scope = check_scope((user_id, agent_id))
        # ids are kept as they are (log keys, counters), so one holding a secret refuses the turn
        _ids.enforce("", None, user_id, agent_id, session_id)
        turn = Turn(
            # the user's words in their tidy form ("im", "dont", capitals, dictation without commas), and
            # "lands at 6:40, no sorry, 7:40" routed (and logged) as the one value the user meant
            # a turn without case gets back the capitals of the names the user wrote before ("max" -> "Max")
            messages=normalise_messages(
                redacted_messages(messages_of(messages)), names=lambda text: known_names(memory, scope, text)
            ),
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            session_id=session_id if isinstance(session_id, str) and session_id else None,
            served=_served(memory, scope.user_id, scope.agent_id, session_id)[0],
            index=None if dry_run else self._turn_index(memory, scope),
        )
        replies = getattr(memory, "_replies", None)
        key = (turn.user_id, turn.agent_id, turn.session_id)
        if replies is not None and turn.session_id:
            turn.previous_reply = replies.get(key, "")
        try:
            result = self.router.route(memory, turn)
        except KiokoError:
            raise
        except Exception as error:  # a custom router's bug becomes a report, never a half-written turn
            result = RouteResult(
                router=getattr(self.router, "name", type(self.router).__name__),
                error=f"{type(error).__name__}: {error}",
            )
            with self._lock:
                self._stats["router_errors"] += 1
        report = ManageReport.of(
            result, dry_run=bool(dry_run), user_id=turn.user_id, agent_id=turn.agent_id, session_id=turn.session_id
        )
        report.messages = turn.messages  # the rolling session summary folds them in
        events = getattr(memory, "events", None)

        def linked(link: Any, record: Any) -> None:
            if events is not None and events.wants(LINKED):
                events.emit(
                    LINKED,
                    {
                        "source": link.source,
                        "target": link.target,
                        "type": link.type,
                        "weight": link.weight,
                        "why": link.why,
                        "by": link.by,
                        "line": link.line(),
                        "user_id": record.user_id,
                        "agent_id": record.agent_id,
                    },
                )

        try:  # a newer value of a slot supersedes the older memory, whichever router proposed it
            with read_once(memory, scope):  # its rules ask for the same memories: each read once
                slots.resolve(memory, report.ops, scope, turn.text("user"), turn.session_id)
        except KiokoError:
            raise
        except Exception:  # never a half-written turn: the ops apply as the router proposed them
            log.exception("finding the slots a turn replaces failed")
        OpExecutor(memory, on_link=linked).apply(
            report.ops,
            user_id=turn.user_id,
            agent_id=turn.agent_id,
            session_id=turn.session_id,
            dry_run=bool(dry_run),
            router=report.router,
            context=_served(memory, turn.user_id, turn.agent_id, session_id)[1],
            turn=turn.index,
        )
        if not dry_run:
            slots.apply(memory, report.ops, scope, turn.index)
        if not dry_run and any(op.action == "outcome" and op.status == APPLIED for op in report.ops):
            _forget_served(memory, turn)  # one "thanks, that worked" counts once
        if not dry_run and replies is not None and turn.session_id and turn.text("assistant"):
            replies.note(key, turn.text("assistant"))
        self._count(report)
        if not dry_run and self.scheduler is not None:
            self._maintain(memory, report)
        if events is not None and events.wants(MANAGED):
            events.emit(MANAGED, report.to_dict())
        return report

    def _turn_index(self, memory: MemoryLayer, scope: Scope) -> int | None:
        """This turn's number in the scope's sequence: one more than the turns the maintenance counters hold
        (:data:`.turn.TURN_KEY`); None when no scheduler counts them. Two turns of one scope managed at the same
        moment may get one number (each counts after it applied): they read as one turn, as two turns a second
        apart did before turns were numbered."""
        counters = getattr(self.scheduler, "counters", None)
        if counters is None:
            return None
        try:
            return int(counters(memory, user_id=scope.user_id, agent_id=scope.agent_id)["turns"]) + 1
        except KiokoError:
            raise
        except Exception:  # a custom scheduler's counters: the turn goes unnumbered
            log.exception("reading the turn's number failed")
            return None

    def _maintain(self, memory: MemoryLayer, report: ManageReport) -> None:
        """The scheduler's due tasks; a failure is logged and counted, never raised into the turn."""
        try:
            done = self.scheduler.after_turn(
                memory, report, user_id=report.user_id, agent_id=report.agent_id, session_id=report.session_id
            )
            with self._lock:
                self._stats["maintenance"] += len(done or [])
        except Exception:
            log.exception("maintenance after a turn failed")
            with self._lock:
                self._stats["maintenance_errors"] += 1

    def _count(self, report: ManageReport) -> None:
        with self._lock:
            stats = self._stats
            stats["turns"] += 1
            stats["gated"] += 1 if report.skipped is not None and not report.ops else 0
            stats["model_calls"] += report.model_calls
            stats["fallbacks"] += 1 if report.router == ROUTER_FALLBACK else 0
            for status, key in (
                (APPLIED, "operations"),
                (PLANNED, "planned"),
                (SKIPPED, "skipped"),
                (FAILED, "failed"),
            ):
                stats[key] += len(report.by_status(status))

    def stats(self) -> dict[str, int]:
        """Counts since the layer was built: turns, gated turns, model calls, fallbacks, operations (applied) ..."""
        with self._lock:
            return {**self._stats, "plans": self._plans}

    def plan(
        self,
        memory: MemoryLayer,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int | None = None,
    ) -> Any:
        """The planner's :class:`RecallPlan` for ``query`` (counted in :meth:`stats` as ``plans``)."""
        plan = self.planner.plan(memory, query, user_id=user_id, agent_id=agent_id, session_id=session_id, limit=limit)
        with self._lock:
            self._plans += 1
        return plan


def _served(memory: Any, user_id: str, agent_id: str | None, session_id: str | None) -> tuple[list[Any], Any]:
    """What the session's last recall served (procedures, skills, lessons) and the Context it came in."""
    note = getattr(memory, "_served", None)
    if not session_id or note is None:
        return [], None
    served, context = note.get((user_id, agent_id, session_id), ([], None))
    return list(served), context


def _forget_served(memory: Any, turn: Turn) -> None:
    note = getattr(memory, "_served", None)
    if note is not None:
        note.pop((turn.user_id, turn.agent_id, turn.session_id), None)


# --------------------------------------------------------------------------- configuration


def build_intelligence(setting: Any) -> Any:
    """``intelligence=`` as a MemoryLayer or a JSON config gives it -> an Intelligence (or None for off).

    True, ``"heuristic"`` / ``"offline"``, a provider string (``"openai:gpt-4o-mini"``),
    ``{"type": "heuristic", ...options}``, ``{"type": "llm", "llm": ask | "openai:..." | {"$import":
    "pkg.mod:ask"}, ...options}``, an Intelligence, or any
    object with ``manage(memory, messages, ...)``.
    """
    if setting is None or setting is False:
        return None
    if setting is True or (isinstance(setting, str) and setting.lower() in ("heuristic", "offline", "rules")):
        return Intelligence()
    if is_provider_string(setting):
        return Intelligence(llm=setting)
    if isinstance(setting, str):
        raise IntelligenceConfigError(
            f"intelligence={setting!r} is not known; use 'heuristic', a provider string such as "
            "'openai:gpt-4o-mini', or {'type': 'llm', 'llm': {'$import': 'my_app.models:ask'}}"
        )
    if isinstance(setting, Mapping):
        options = dict(setting)
        kind = str(options.pop("type", "llm" if "llm" in options else "heuristic")).lower()
        llm = resolve_import(options.pop("llm", None))
        if kind == "llm" and llm is None:
            raise IntelligenceConfigError(
                "intelligence type 'llm' needs 'llm': a callable or {'$import': 'pkg.mod:ask'}"
            )
        if kind not in ("llm", "heuristic", "offline"):
            raise IntelligenceConfigError(f"intelligence type must be 'heuristic' or 'llm', got {kind!r}")
        try:
            return Intelligence(llm=llm if kind == "llm" else None, **options)
        except TypeError as error:
            raise IntelligenceConfigError(f"bad intelligence option: {error}") from error
    if callable(getattr(setting, "manage", None)):
        return setting
    raise IntelligenceConfigError(
        f"intelligence must be True, 'heuristic', a config dict or an Intelligence, got {type(setting).__name__}"
    )


def resolve_import(value: Any) -> Any:
    """``{"$import": "pkg.mod:attr"}`` -> the object it names; anything else as it is."""
    if not (isinstance(value, Mapping) and "$import" in value):
        return value
    target = value["$import"]
    module_name, _, attribute = str(target).partition(":")
    if not module_name or not attribute:
        raise IntelligenceConfigError(f"$import must look like 'package.module:name', got {target!r}")
    try:
        found: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as error:
        raise IntelligenceConfigError(f"could not import {target!r}: {error}") from error
    return found
