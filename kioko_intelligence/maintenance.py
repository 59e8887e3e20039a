"""Maintenance (sleep-time work): per-user counters kept in the store, the tasks due after a turn, end_session.

:class:`MaintenanceScheduler` counts each user's managed turns in a counter record in the store (so the
counts survive a restart and are shared by every process using the store) and runs what is due:

- **end session**: when the user's turn names another session than the last one, the last session is
  wrapped up: its lasting scratchpad slots (result, root cause, fix, decision ...) and the task become
  one episode keyed by the session, so wrapping it up again updates that episode. A switch keeps the
  scratchpad (sessions interleave); an explicit ``end_session()`` also clears it.
- **tend the graph** (every ``link_every`` turns, default 25): link up to 200 memories never linked,
  remove faded and dangling links; with a model (``llm``), review the 12 most recent automatic links in
  one call (:mod:`.link_review`). After a turn it is bounded: it links among the memories written since
  this process last tended the scope (a store's change log, :class:`~kioko_core.store.ScopeChanges`; the
  whole scope when the store cannot say) and prunes the next ``PRUNE_PAGE`` memories of a scan it moves
  on at each run (one pass over the user every ``size / PRUNE_PAGE`` runs). ``maintain()`` tends the
  whole scope at once.
- **pin hot memories** (every ``pin_every`` turns, default 10): memories with heat >= ``pin_threshold``
  (5) are pinned, at most ``max_pinned`` (5) automatic pins per user, unpinned below 3 (:mod:`.heat`).
- **summarize** (every ``summarize_every`` turns of a session, default 10; and on end session): fold the
  session's recent turns into its rolling summary (:mod:`.summaries`).
- **reflect** (when the new memories' importance adds up to ``reflect_after``, default 2.5, and at least
  3 new episodes arrived): recurring themes, or with a model insights with evidence (:mod:`.reflection`).
- **consolidate** (every ``consolidate_every`` applied operations, default 200): expire, fold old
  episodes into summaries, merge duplicates, forget faded episodes (:mod:`.consolidation`).

The counter write is versioned: of two processes finishing a turn at once, exactly one sees the session
switch or the due task and runs it. It is the turn's one bookkeeping batch: the session log's turn is
written with it. Due tasks wait in the counters (``pending``), one runs a turn, and a turn that wrote
memories leaves it to the next one that wrote none (at most ``defer_after_writes`` turns in a row).
Nothing here raises into the turn (the Intelligence catches it).

A turn never waits for a pass over the whole user: each task after a turn reads what changed since its
last run (the pins: one heat record and the pinned memories; a summary: the session's new turns; a
reflection: the newest episodes, through a window of creation times) or a page of the user (pruning).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_all
from typing import TYPE_CHECKING, Any

# the modules by their full names: `from . import ...` would go through the package, whose __init__
# imports the brain, which imports this module
import kioko_intelligence.consolidation as consolidation
import kioko_intelligence.reflection as reflection
import kioko_intelligence.summaries as summaries
from kioko_core.errors import ConflictError
from kioko_core.kinds import deterministic_id
from kioko_core.privacy.secrets import get_logger, redact
from kioko_core.store import (
    Delete,
    InvalidRecordError,
    Record,
    Scope,
    ScopeChanges,
    ScopeGenerations,
    Upsert,
    check_scope,
)
from kioko_core.telemetry import timed
from kioko_intelligence.heat import forget_heat, note_uses, pin_hot, read_heat
from kioko_intelligence.llm import as_ask

# the tend's figures, read here by tests and tools
from kioko_intelligence.tending import DANGLING_PAGE as DANGLING_PAGE
from kioko_intelligence.tending import LINK_BATCH as LINK_BATCH
from kioko_intelligence.tending import PRUNE_PAGE as PRUNE_PAGE
from kioko_intelligence.tending import TEND_LINKS as TEND_LINKS
from kioko_intelligence.tending import Sweep, Tending

if TYPE_CHECKING:
    from kioko_core.layer.bookkeeping import Bookkeeping
    from kioko_core.layer.memory_layer import MemoryLayer

log = get_logger("kioko.intelligence")

MAINTENANCE_USER = "@maintenance"
"""The reserved scope holding every user's counter record (one scan lists the users to maintain)."""
COUNTER_KIND = "counters"
SESSION_EPISODE_KEY = "session"
TASKS = ("end_sessions", "summarize", "reflect", "tend", "pin", "consolidate")
"""What :meth:`MaintenanceScheduler.run` can run (``maintain(tasks=[...])``)."""
TASKS_PER_TURN = 1
"""Due tasks a managed turn runs (the others wait in the scope's counters, first due first run)."""
MAX_DEFERRED = 4
"""Turns in a row that wrote memories and so left the due step to a later turn; the next one runs it anyway."""
MAX_PENDING = 16
"""Tasks the queue holds (each task at most once); a turn that finds more runs the excess too."""
STEP_WRITES = 1
"""Memories a step of reflection or pinning after a turn writes; the rest waits for the next turn."""
WHOLE_EVERY = 8
"""Every this many consolidations of a scope, one reads the whole user (what only a whole run sees)."""
MAX_EXPIRING = 1000
"""Memories with an expiry the counters keep track of; beyond, the next consolidation reads the whole user."""
RETRIES = 8
FLUSH_USES = 32
FLUSH_SECONDS = 60.0
"""Uses recall noted are written once this many have gathered, or the oldest is this old (or sooner)."""
REMENTIONS = frozenset({"update", "progress", "verify", "outcome", "complete", "supersede", "pin"})
"""Actions of a managed turn that re-mention an existing memory: each is a use of it (heat)."""
LASTING_KEYS = (
    "result",
    "root_cause",
    "cause",
    "fix",
    "solution",
    "resolution",
    "workaround",
    "decision",
    "outcome",
    "conclusion",
    "answer",
    "lesson",
    "next_step",
)
"""Scratchpad slots worth keeping after the session (in this order); ``task`` leads the episode."""


class MaintenanceScheduler(Tending):
    """Runs what is due after each managed turn; ``link_every`` = 0 or None turns the graph task off,
    ``end_sessions=False`` the wrap-up on a session switch. With ``background`` the turn only counts; the
    due tasks run on one worker thread (:meth:`drain` waits for them).

    Pins: every ``pin_every`` turns memories with heat >= ``pin_threshold`` are pinned, at most
    ``max_pinned`` automatic ones per user (``pin_threshold`` or ``pin_every`` 0 / None: no automatic pins,
    and recall counts no uses). ``clock`` (seconds, default ``time.time``) dates the uses, so a test can
    move time on. ``summarize_every``, ``reflect_after`` and ``consolidate_every`` = 0 or None turn their
    task off. ``llm`` (a prompt -> text callable) reviews recent automatic links when the graph is tended,
    writes the session summaries and reflects; a failing model, or one that does not answer within
    ``timeout`` seconds, falls back to the offline way.

    A turn that wrote memories (each a linked write) leaves the due step to the next turn that wrote none
    (small talk, a question), for at most ``defer_after_writes`` (4) turns in a row; 0 or None: the step
    runs on the turn it falls due.
    """

    def __init__(
        self,
        *,
        link_every: int | None = 25,
        end_sessions: bool = True,
        background: bool = False,
        pin_every: int | None = 10,
        pin_threshold: float | None = 5,
        max_pinned: int = 5,
        clock: Callable[[], float] | None = None,
        summarize_every: int | None = 10,
        reflect_after: float | None = 2.5,
        consolidate_every: int | None = 200,
        llm: Any = None,
        timeout: float | None = None,
        defer_after_writes: int | None = MAX_DEFERRED,
    ) -> None:
        for name, value in (("pin_every", pin_every), ("max_pinned", max_pinned)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise InvalidRecordError(f"{name} must be an integer >= 0 or None, got {value!r}")
        if pin_threshold is not None and (
            isinstance(pin_threshold, bool) or not isinstance(pin_threshold, (int, float)) or pin_threshold < 0
        ):
            raise InvalidRecordError(f"pin_threshold must be a number >= 0 or None, got {pin_threshold!r}")
        if clock is not None and not callable(clock):
            raise InvalidRecordError("clock must be a callable returning seconds since the epoch")
        if reflect_after is not None and (
            isinstance(reflect_after, bool) or not isinstance(reflect_after, (int, float)) or not reflect_after >= 0
        ):
            raise InvalidRecordError(f"reflect_after must be a number >= 0 or None, got {reflect_after!r}")
        self.link_every = _every("link_every", link_every)
        self.summarize_every = _every("summarize_every", summarize_every)
        self.consolidate_every = _every("consolidate_every", consolidate_every)
        self.defer_after_writes = _every("defer_after_writes", defer_after_writes)
        self.reflect_after = float(reflect_after or 0)
        self.pin_every = pin_every or 0
        self.pin_threshold = float(pin_threshold or 0)
        self.max_pinned = max_pinned or 0
        self.clock: Callable[[], float] = clock or time.time
        self.llm = llm
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
            raise InvalidRecordError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
        self.ask = _redacting(_with_timeout(as_ask(llm), timeout)) if llm is not None else None
        self.end_sessions = bool(end_sessions)
        self.background = bool(background)
        self._worker: ThreadPoolExecutor | None = None
        self._pending: list[Future[None]] = []
        self._worker_lock = threading.Lock()
        self._recalled: dict[tuple[int, Scope], tuple[MemoryLayer, list[tuple[str, float]]]] = {}
        """Uses recall noted and not written yet, per (store, scope): written in one go (:meth:`note_uses`)."""
        self._recalled_lock = threading.Lock()
        self._tended: dict[tuple[int, Scope], tuple[Any, int]] = {}
        """Per (store, scope): the store and its generation of the scope when this process last tended it."""
        self._sweeps: dict[tuple[int, Scope], Sweep] = {}
        """Per (store, scope): the scan the tends after a turn prune page by page."""
        self._tend_lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"MaintenanceScheduler(link_every={self.link_every}, end_sessions={self.end_sessions}, "
            f"background={self.background}, pin_every={self.pin_every}, pin_threshold={self.pin_threshold:g}, "
            f"max_pinned={self.max_pinned}, summarize_every={self.summarize_every}, "
            f"reflect_after={self.reflect_after:g}, consolidate_every={self.consolidate_every}, "
            f"defer_after_writes={self.defer_after_writes})"
        )

    @property
    def pins(self) -> bool:
        """True when the pin task is on (and recall counts the uses heat is made of)."""
        return bool(self.pin_every and self.pin_threshold)

    # -- counters

    def counters(self, memory: MemoryLayer, *, user_id: str, agent_id: str | None = None) -> dict[str, Any]:
        """The scope's counters: ``turns``, ``session`` (the last one), ``tended_at`` / ``pinned_at`` (the turn
        of the last tend / pin task), ``new_importance`` / ``new_episodes`` (since the last reflection),
        ``operations`` (applied) and ``consolidated_at`` (the operation count at the last consolidation),
        ``pending`` (the due tasks waiting) and ``deferred`` (turns in a row that left them waiting)."""
        scope = check_scope((user_id, agent_id))
        found = memory.store.get(Scope(MAINTENANCE_USER, None), [_counter_id(scope)])[0]
        return _state(found)

    def _change(
        self, memory: MemoryLayer, scope: Scope, change: Any, also: Callable[[], list[Upsert]] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Apply ``change(state) -> state`` to the counter record with a versioned write; (before, after).

        ``also``: more versioned writes, made afresh on every try before ``change`` runs (it may depend on what
        they read), written in the same batch: a conflict on any of them reads them all again."""
        where = Scope(MAINTENANCE_USER, None)
        memory_id = _counter_id(scope)
        for _ in range(RETRIES):
            ops: list[Upsert | Delete] = list(also()) if also is not None else []
            current = memory.store.get(where, [memory_id])[0]
            before = _state(current)
            after = change(dict(before))
            now = time.time()
            record = Record(
                id=memory_id,
                user_id=MAINTENANCE_USER,
                agent_id=None,
                kind=COUNTER_KIND,
                content=f"maintenance counters of {scope.user_id}",
                metadata={**after, "user_id": scope.user_id, "agent_id": scope.agent_id},
                created_at=current.created_at if current is not None else now,
                updated_at=now,
            )
            try:
                memory.bookkeeping.update_many(
                    [*ops, Upsert(record=record, expected_version=current.version if current else 0)]
                )
            except ConflictError:
                continue  # another process counted at the same time: read again
            return before, after
        raise ConflictError(f"the maintenance counters of {scope.user_id!r} kept changing under this write")

    # -- after a turn

    def after_turn(
        self,
        memory: MemoryLayer,
        report: Any,
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> list[str]:
        """Count the turn and run what is due; returns what ran (``["end_session:s1", "tend"]``)."""
        scope = check_scope((user_id, agent_id))
        link_every = self.link_every
        pin_every = self.pin_every if self.pins else 0
        if self.pins:
            self.note_rementions(memory, report, scope)
        # what the turn stored rides along in the log: a summary never repeats what a memory already says
        messages = (getattr(report, "messages", None) or []) + summaries.stored_lines(getattr(report, "ops", []))
        if any(getattr(op, "op", "") == "memory.delete" for op in getattr(report, "ops", [])):
            # a request to forget is counted but not logged: its words (and the reply's) would otherwise
            # be what the session's summary keeps of what the user asked to have forgotten
            messages = []
        fold: dict[str, bool] = {"due": False}
        noted: Callable[[], list[Upsert]] | None = None
        if self.summarize_every and session_id:
            every, session = self.summarize_every, session_id

            def noted() -> list[Upsert]:
                # the session log's versioned write decides (once, for one process) that a fold is due; it is
                # written in the counters' batch (one write a turn, not two), so "summarize:s" is queued with it
                op, fold["due"] = summaries.turn_op(memory, scope, session, messages, every)
                return [op]

        taken: list[str] = []
        light = not any(_writes_memory(op) for op in getattr(report, "ops", []))

        def count(state: dict[str, Any]) -> dict[str, Any]:
            previous = state["session"]
            state["turns"] += 1
            if session_id:
                state["session"] = session_id
            due: list[str] = []
            # pins first: they decide what the cacheable prefix (kv) holds, so a pin queued behind a
            # summary would change that prefix one turn later than the turn that made the memory hot
            if pin_every and state["turns"] - state["pinned_at"] >= pin_every:
                state["pinned_at"] = state["turns"]
                due.append("pin")
            if self.end_sessions and session_id and previous and previous != session_id:
                due.append("end_session:" + previous)
            if fold["due"]:
                due.append("summarize:" + str(session_id))
            if reflection.count(state, report, self.reflect_after):
                due.append("reflect")
            if link_every and state["turns"] - state["tended_at"] >= link_every:
                state["tended_at"] = state["turns"]
                due.append("tend")
            if consolidation.count(state, report, self.consolidate_every):
                due.append("consolidate")
            # queued in the counters (a task already waiting keeps its place: it will see this turn's
            # changes too); this turn takes the first, and more only when the queue grew past its bound
            queue = state["pending"] + [task for task in due if task not in state["pending"]]
            # a turn that wrote memories (a linked write each) leaves the step to a lighter turn, for at most
            # MAX_DEFERRED turns in a row: a step on top of a write made the slowest turns
            runs = light or state["deferred"] >= self.defer_after_writes
            cut = max(TASKS_PER_TURN if runs else 0, len(queue) - MAX_PENDING)
            taken[:] = queue[:cut]
            state["pending"] = queue[cut:]
            state["deferred"] = 0 if taken or not queue else state["deferred"] + 1
            return state

        self._change(memory, scope, count, also=noted)
        due = list(taken)
        if due and self.background:
            self._submit(memory, scope, due)
        elif due:
            self._run_due(memory, scope, due)
        return due

    def _run_due(self, memory: MemoryLayer, scope: Scope, due: list[str]) -> None:
        unfinished = [task for task in due if not self._run_step(memory, scope, task)]
        if unfinished:
            self._requeue(memory, scope, unfinished)

    @timed("maintenance_step")
    def _run_step(self, memory: MemoryLayer, scope: Scope, task: str) -> bool:
        """Run one bounded step of ``task``; False when it left work for a later turn (it is queued again)."""
        who: dict[str, Any] = {"user_id": scope.user_id, "agent_id": scope.agent_id}
        if task.startswith("end_session:"):
            self.end_session(memory, task.split(":", 1)[1], clear=False, **who)
        elif task.startswith("summarize:"):
            self.summarize(memory, task.split(":", 1)[1], **who)
        elif task == "reflect":
            return not self.reflect(memory, limit=STEP_WRITES, **who).get("more")
        elif task == "tend":
            return not self.tend_step(memory, **who).get("more")
        elif task == "pin":
            return not self.pin(memory, limit=STEP_WRITES, **who).get("more")
        elif task == "consolidate":
            return not self.consolidate_step(memory, **who).get("more")
        return True

    def _requeue(self, memory: MemoryLayer, scope: Scope, tasks: list[str]) -> None:
        """Put tasks that left work at the end of the scope's queue (a later turn continues them)."""

        def later(state: dict[str, Any]) -> dict[str, Any]:
            state["pending"] = state["pending"] + [task for task in tasks if task not in state["pending"]]
            return state

        try:
            self._change(memory, scope, later)
        except ConflictError:
            log.info("maintenance %s of %r was not queued again: its counters kept changing", tasks, scope.user_id)

    def _submit(self, memory: MemoryLayer, scope: Scope, due: list[str]) -> None:
        def work() -> None:
            try:
                self._run_due(memory, scope, due)
            except Exception:  # the turn is long gone: log it, keep the worker alive
                log.exception("background maintenance %s for %r failed", due, scope.user_id)

        with self._worker_lock:
            if self._worker is None:
                self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kioko-maintenance")
            self._pending = [f for f in self._pending if not f.done()]
            self._pending.append(self._worker.submit(work))

    def drain(self, timeout: float | None = None) -> bool:
        """Wait for the background tasks submitted so far; False if some are still running after ``timeout``."""
        with self._worker_lock:
            pending = list(self._pending)
        return not wait_all(pending, timeout=timeout).not_done if pending else True

    # -- the tasks

    def end_session(
        self, memory: MemoryLayer, session_id: str, *, user_id: str, agent_id: str | None = None, clear: bool = True
    ) -> Record | None:
        """Wrap a session up: its task and lasting scratchpad slots become (or update) the session's episode, and
        the turns not yet summarised are folded into the session's summary.

        Returns the episode, or None when the scratchpad held nothing lasting. ``clear`` empties the scratchpad.
        """
        if not isinstance(session_id, str) or not session_id:
            raise InvalidRecordError("session_id must be a non-empty string")
        scope = check_scope((user_id, agent_id))
        who: dict[str, Any] = {"user_id": scope.user_id, "agent_id": scope.agent_id}
        scratch = memory.working.all(session_id=session_id, **who)
        parts = [str(scratch["task"]).rstrip(".")] if scratch.get("task") else []
        parts += [
            f"{key.replace('_', ' ')}: {scratch[key]}" for key in LASTING_KEYS if scratch.get(key) not in (None, "")
        ]
        episode = None
        if parts:
            content = redact(f"Session {session_id}: " + "; ".join(parts) + ".")
            episode_id = deterministic_id("episodic", scope, SESSION_EPISODE_KEY, session_id)
            existing = memory.store.get(scope, [episode_id])[0]
            if existing is None:
                try:
                    written = memory.add(
                        content,
                        memory_type="episodic",
                        session_id=session_id,
                        id=episode_id,
                        metadata={"session_episode": True},
                        **who,
                    )
                except ConflictError:  # another process wrapped the same session up just now
                    existing = memory.get(episode_id, **who)
                else:
                    existing = episode = written
            if episode is None:
                episode = existing if existing.content == content else memory.update(episode_id, content=content, **who)
        if self.summarize_every:
            summaries.summarize(memory, scope, session_id, self.ask)
        if clear:
            memory.working.clear(session_id=session_id, **who)
        return episode

    def summarize(
        self, memory: MemoryLayer, session_id: str, *, user_id: str, agent_id: str | None = None
    ) -> Record | None:
        """Fold the session's turns not yet summarised into its rolling summary; the summary, or None."""
        return summaries.summarize(memory, check_scope((user_id, agent_id)), session_id, self.ask)

    def reflect(
        self, memory: MemoryLayer, *, user_id: str, agent_id: str | None = None, limit: int | None = None
    ) -> dict[str, Any]:
        """Reflect on the recent episodes now: ``{"insights": [...], "themes": [...], "error": ...}`` (ids).

        Where the newest episodes begin is kept in the scope's counters, so a process's first reflection
        reads from there instead of back through the user's history. ``limit``: write at most that many
        themes (``"more"``: some are left for the next call)."""
        scope = check_scope((user_id, agent_id))
        kept = self.counters(memory, user_id=scope.user_id, agent_id=scope.agent_id)["episodes_since"]
        reflection.seed_episodes_hint(memory, scope, kept)
        result = reflection.reflect(memory, scope, self.ask, limit=limit)
        since = reflection.episodes_hint(memory, scope)
        if since is not None and since != kept:

            def moved(state: dict[str, Any]) -> dict[str, Any]:
                state["episodes_since"] = since
                return state

            try:
                self._change(memory, scope, moved)
            except ConflictError:  # a hint: another process is writing the counters, it keeps its own
                log.info("where the newest episodes of %r begin was not kept", scope.user_id)
        return result

    def consolidate(self, memory: MemoryLayer, *, user_id: str, agent_id: str | None = None) -> dict[str, int]:
        """Expire, fold old episodes, merge duplicates, forget faded episodes: how many memories each step touched."""
        scope = check_scope((user_id, agent_id))
        self.note_uses(memory, [], user_id=scope.user_id, agent_id=scope.agent_id)  # what recall noted first
        used = set(read_heat(memory.store, Scope(MAINTENANCE_USER, None), scope))
        return consolidation.consolidate(memory, scope, used=used)

    def consolidate_step(self, memory: MemoryLayer, *, user_id: str, agent_id: str | None = None) -> dict[str, Any]:
        """:meth:`consolidate` after a turn: over what changed since the scope's last consolidation and what
        time made due since (:func:`~kioko_intelligence.consolidation.candidates`), not the whole user.
        The whole user is read when the store cannot say what changed (no change log, it no longer reaches
        back, something left the scope: often the last consolidation's own deletes), at a scope's first
        consolidation, and every ``WHOLE_EVERY``-th one (what only a whole run sees: a use the heat record
        dropped). ``"whole"`` in the answer says which it was."""
        scope = check_scope((user_id, agent_id))
        self.note_uses(memory, [], user_id=scope.user_id, agent_id=scope.agent_id)  # what recall noted first
        used = set(read_heat(memory.store, Scope(MAINTENANCE_USER, None), scope))
        store = memory.store
        state = self.counters(memory, user_id=scope.user_id, agent_id=scope.agent_id)
        now = self.clock()
        generation = store.generation(scope) if isinstance(store, ScopeGenerations) else None
        last, since, expiring = state["consolidated_generation"], state["consolidated_time"], state["expiring"]
        changed = None
        if (
            last is not None
            and since is not None
            and expiring is not None
            and isinstance(store, ScopeChanges)
            and state["consolidations"] % WHOLE_EVERY
        ):
            found = store.changes_since(scope, last)
            changed = found.ids if found is not None else None
        if changed is None or since is None or expiring is None:
            records = list(store.scan(scope))
            known: dict[str, float] = {}
        else:
            due = [memory_id for memory_id, ends in expiring.items() if ends <= now]
            records = consolidation.candidates(memory, scope, changed, since=since, now=now, expiring=due)
            known = {memory_id: ends for memory_id, ends in expiring.items() if ends > now}
        result: dict[str, Any] = consolidation.consolidate(memory, scope, now=now, used=used, records=records)
        for record in records:  # what carries an expiry, as read now (a changed record replaces its old entry)
            ends = consolidation.expiry(record)
            known.pop(record.id, None)
            if ends is not None and ends > now:
                known[record.id] = ends
        if result["expired"] or result["merged"] or result["forgotten"]:
            # its own deletes would make the store unable to say what changed after ``generation``: from the
            # generation now (a batch another process committed in between is seen by the next whole run)
            generation = store.generation(scope) if isinstance(store, ScopeGenerations) else None

        def done(counters: dict[str, Any]) -> dict[str, Any]:
            counters["consolidated_generation"] = generation
            counters["consolidated_time"] = now
            counters["expiring"] = known if len(known) <= MAX_EXPIRING else None
            counters["consolidations"] += 1
            return counters

        try:
            self._change(memory, scope, done)
        except ConflictError:  # the next consolidation reads the whole user
            log.info("where the consolidation of %r stopped was not kept", scope.user_id)
        result["whole"] = changed is None
        result["read"] = len(records)
        return result

    # -- heat and automatic pins

    def note_recalled(self, memory: MemoryLayer, memory_ids: list[str], *, user_id: str, agent_id: str | None) -> None:
        """A query retrieved these memories on its own (or a managed turn changed them in place): a use of each,
        held in this process and written with the scope's next pin task, consolidation or ``maintain()`` - or
        once ``FLUSH_USES`` uses or ``FLUSH_SECONDS`` have gathered - so neither a recall nor a turn pays a
        write each (a crash loses at most those)."""
        if not self.pins or not memory_ids:
            return
        scope = check_scope((user_id, agent_id))
        now = self.clock()
        with self._recalled_lock:
            _, held = self._recalled.setdefault((id(memory.store), scope), (memory, []))
            held.extend((memory_id, now) for memory_id in memory_ids)
            due = len(held) >= FLUSH_USES or now - held[0][1] >= FLUSH_SECONDS
        if due:
            self.note_uses(memory, [], user_id=scope.user_id, agent_id=scope.agent_id)

    def forget_held(self, memory: MemoryLayer, scope: Scope, memory_ids: set[str] | None = None) -> None:
        """Drop the uses this process holds for ``scope`` (of ``memory_ids`` only, when given): a deleted memory's
        id or a forgotten user must not come back in the next write of the heat record."""
        with self._recalled_lock:
            for key in [k for k in self._recalled if k[0] == id(memory.store) and k[1].user_id == scope.user_id]:
                if memory_ids is None:
                    if key[1] == scope or scope.agent_id is None:
                        del self._recalled[key]
                    continue
                held_by, held = self._recalled[key]
                held[:] = [(i, t) for i, t in held if i not in memory_ids]

    def write_uses(self, memory: MemoryLayer) -> None:
        """Write every use recall noted for ``memory``'s store and this process still holds (``close()``)."""
        with self._recalled_lock:
            scopes = [scope for store, scope in self._recalled if store == id(memory.store)]
        for scope in scopes:
            self.note_uses(memory, [], user_id=scope.user_id, agent_id=scope.agent_id)

    def note_uses(self, memory: MemoryLayer, memory_ids: list[str], *, user_id: str, agent_id: str | None) -> None:
        """Count a use of each memory now, with the uses recall noted for the scope, in one write; never raises
        into the turn or the read (heat is a hint)."""
        if not self.pins:
            return
        scope = check_scope((user_id, agent_id))
        now = self.clock()
        with self._recalled_lock:
            _, held = self._recalled.pop((id(memory.store), scope), (memory, []))
        used = held + [(memory_id, now) for memory_id in memory_ids]
        if not used:
            return
        try:
            note_uses(memory.bookkeeping, Scope(MAINTENANCE_USER, None), scope, used)
        except Exception:
            log.warning("could not count the uses of %d memories of %r", len(used), scope.user_id, exc_info=True)

    def note_rementions(self, memory: MemoryLayer, report: Any, scope: Scope) -> None:
        """The memories an applied op of the turn changed in place (update, progress, outcome ...) were used."""
        ids = [
            op.memory_id
            for op in getattr(report, "ops", [])
            if getattr(op, "status", None) == "applied"
            and getattr(op, "target", None)
            and op.memory_id == op.target
            and op.action in REMENTIONS
        ]
        # held with the uses recall noted, not written by every turn (a write of the heat record a turn was
        # most of what a median managed turn paid for housekeeping): written by the pin task, consolidation,
        # maintain(), close(), or once enough have gathered
        self.note_recalled(memory, ids, user_id=scope.user_id, agent_id=scope.agent_id)

    def pin(
        self, memory: MemoryLayer, *, user_id: str, agent_id: str | None = None, limit: int | None = None
    ) -> dict[str, Any]:
        """Pin the hottest memories (heat >= ``pin_threshold``, at most ``max_pinned`` automatic pins) and unpin
        automatic pins below 3; manual pins are never touched. ``{"pinned": [...], "unpinned": [...]}``.
        ``limit``: change at most that many pins (``"more"``: some changes are left for the next call)."""
        scope = check_scope((user_id, agent_id))
        if not self.pins:
            return {"pinned": [], "unpinned": []} | ({"more": False} if limit is not None else {})
        self.note_uses(memory, [], user_id=scope.user_id, agent_id=scope.agent_id)  # what recall noted first
        return pin_hot(
            memory,
            Scope(MAINTENANCE_USER, None),
            scope,
            threshold=self.pin_threshold,
            max_pinned=self.max_pinned,
            now=self.clock(),
            limit=limit,
        )

    @timed("maintain")
    def run(
        self,
        memory: MemoryLayer,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        tasks: list[str] | tuple[str, ...] | None = None,
    ) -> dict[str, Any]:
        """Run ``tasks`` (default all) now for one scope, or for every scope with counters when ``user_id`` is None.

        ``end_sessions`` wraps up the last session of each scope (keeping its scratchpad).
        Returns ``{user_id: {task: result}}``.
        """
        wanted = list(TASKS if tasks is None else tasks)
        unknown = [t for t in wanted if t not in TASKS]
        if isinstance(tasks, str) or unknown:
            raise InvalidRecordError(f"unknown maintenance task(s) {unknown or tasks!r}; known: {list(TASKS)}")
        if user_id is None:
            scopes = counted_scopes(memory.store)
        else:
            scopes = [(user_id, agent_id)]
        results: dict[str, Any] = {}
        for user, agent in scopes:
            scope = check_scope((user, agent))
            done: dict[str, Any] = {}
            self.note_uses(memory, [], user_id=scope.user_id, agent_id=scope.agent_id)  # the uses recall noted
            if "end_sessions" in wanted:
                last = self.counters(memory, user_id=scope.user_id, agent_id=scope.agent_id).get("session")
                episode = (
                    self.end_session(memory, last, user_id=scope.user_id, agent_id=scope.agent_id, clear=False)
                    if last
                    else None
                )
                done["end_sessions"] = [episode.id] if episode is not None else []
            if "summarize" in wanted:
                folded = [
                    self.summarize(memory, session, user_id=scope.user_id, agent_id=scope.agent_id)
                    for session in summaries.waiting_sessions(memory, scope)
                ]
                done["summarize"] = [r.id for r in folded if r is not None]
            if "reflect" in wanted:
                done["reflect"] = self.reflect(memory, user_id=scope.user_id, agent_id=scope.agent_id)
            if "tend" in wanted:
                done["tend"] = self.tend(memory, user_id=scope.user_id, agent_id=scope.agent_id)
            if "pin" in wanted:
                done["pin"] = self.pin(memory, user_id=scope.user_id, agent_id=scope.agent_id)
            if "consolidate" in wanted:
                done["consolidate"] = self.consolidate(memory, user_id=scope.user_id, agent_id=scope.agent_id)
            key = scope.user_id if scope.agent_id is None else f"{scope.user_id}/{scope.agent_id}"
            results[key] = done
        return results


def counted_scopes(store: Any) -> list[tuple[str, str | None]]:
    """Every (user, agent) the scheduler has counted turns for, in order: who ``run(user_id=None)`` tends."""
    return sorted(
        {
            (r.metadata.get("user_id"), r.metadata.get("agent_id"))
            for r in store.scan(Scope(MAINTENANCE_USER, None))
            if r.kind == COUNTER_KIND and isinstance(r.metadata.get("user_id"), str)
        },
        key=lambda s: (s[0], s[1] or ""),
    )


def forget_counters(store: Bookkeeping, scope: Scope) -> None:
    """Delete the scope's counter and heat records (``forget_user``): nothing about a forgotten user stays behind."""
    where = Scope(MAINTENANCE_USER, None)
    if store.get(where, [_counter_id(scope)])[0] is not None:
        store.update_many([Delete(id=_counter_id(scope), scope=where)])
    forget_heat(store, where, scope)
    summaries.forget_logs(store, scope)


def _writes_memory(op: Any) -> bool:
    """An op of the turn that wrote a memory (the scratchpad's ``working.*`` is not one: it is no linked write)."""
    name = str(getattr(op, "op", "") or "")
    return getattr(op, "status", None) == "applied" and not name.startswith("working.")


def _counter_id(scope: Scope) -> str:
    return deterministic_id(COUNTER_KIND, scope, "counters")


def _state(record: Record | None) -> dict[str, Any]:
    found = record.metadata if record is not None else {}
    return {
        "turns": int(found.get("turns", 0)),
        "session": found.get("session"),
        "tended_at": int(found.get("tended_at", 0)),
        "pinned_at": int(found.get("pinned_at", 0)),
        "new_importance": float(found.get("new_importance", 0.0)),
        "new_episodes": int(found.get("new_episodes", 0)),
        "operations": int(found.get("operations", 0)),
        "consolidated_at": int(found.get("consolidated_at", 0)),
        "tended_generation": _generation_or_none(found.get("tended_generation")),
        "episodes_since": _time_or_none(found.get("episodes_since")),
        "consolidated_generation": _generation_or_none(found.get("consolidated_generation")),
        "consolidated_time": _time_or_none(found.get("consolidated_time")),
        "expiring": _expiring_or_none(found.get("expiring")),
        "consolidations": int(found.get("consolidations", 0)),
        "deferred": int(found.get("deferred", 0)),
        "pending": [t for t in found.get("pending", []) if isinstance(t, str)]
        if isinstance(found.get("pending"), list)
        else [],
    }


def _expiring_or_none(value: Any) -> dict[str, float] | None:
    if not isinstance(value, dict):
        return None
    return {k: float(v) for k, v in value.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def _time_or_none(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _generation_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _with_timeout(ask: Callable[[str], str], timeout: float | None) -> Callable[[str], str]:
    """``ask`` that raises TimeoutError after ``timeout`` seconds (a hanging model must not stall a turn)."""
    if timeout is None:
        return ask

    def bounded(prompt: str) -> str:
        box: dict[str, Any] = {}
        done = threading.Event()

        def call() -> None:
            try:
                box["answer"] = ask(prompt)
            except BaseException as error:  # handed to the caller's thread below
                box["error"] = error
            finally:
                done.set()

        # a daemon thread: a model that never answers must not keep the process alive
        threading.Thread(target=call, name="kioko-maintenance-llm", daemon=True).start()
        if not done.wait(timeout):
            raise TimeoutError(f"the model did not answer within {timeout:g} s")
        if "error" in box:
            raise box["error"]
        answer: str = box["answer"]
        return answer

    return bounded


def _redacting(ask: Callable[[str], str]) -> Callable[[str], str]:
    """``ask`` that never sends a secret to the model, nor takes one back into a memory: both redacted.

    Maintenance prompts quote stored memories and session turns; those hold no secret, but a store written
    before turns were redacted (or by another tool) may.
    """

    def redacting(prompt: str) -> str:
        answer = ask(redact(prompt))
        return redact(answer) if isinstance(answer, str) else answer

    return redacting


def _every(name: str, value: int | None) -> int:
    """A task's period option: an integer >= 0, or None (0 and None turn the task off)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise InvalidRecordError(f"{name} must be an integer >= 0 or None, got {value!r}")
    return value or 0


__all__ = ["LASTING_KEYS", "MAINTENANCE_USER", "MaintenanceScheduler", "TASKS", "counted_scopes", "forget_counters"]
