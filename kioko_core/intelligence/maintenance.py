"""Maintenance (sleep-time work): per-user counters kept in the store, the tasks due after a turn, end_session.

:class:`MaintenanceScheduler` counts each user's managed turns in a counter record in the store (so the
counts survive a restart and are shared by every process using the store) and runs what is due:

- **end session**: when the user's turn names another session than the last one, the last session is
  wrapped up: its lasting scratchpad slots (result, root cause, fix, decision ...) and the task become
  one episode keyed by the session, so wrapping it up again updates that episode. A switch keeps the
  scratchpad (sessions interleave); an explicit ``end_session()`` also clears it.
- **tend the graph** (every ``link_every`` turns, default 25): link up to 200 memories never linked,
  remove faded and dangling links.

The counter write is versioned: of two processes finishing a turn at once, exactly one sees the session
switch or the due task and runs it. Nothing here raises into the turn (the Intelligence catches it).
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_all
from typing import TYPE_CHECKING, Any

from ..errors import ConflictError
from ..kinds import deterministic_id
from ..store import Delete, InvalidRecordError, Record, Scope, Upsert, check_scope

if TYPE_CHECKING:
    from ..layer import MemoryLayer

log = logging.getLogger("kioko.intelligence")

MAINTENANCE_USER = "@maintenance"
"""The reserved scope holding every user's counter record (one scan lists the users to maintain)."""
COUNTER_KIND = "counters"
SESSION_EPISODE_KEY = "session"
TASKS = ("end_sessions", "tend")
"""What :meth:`MaintenanceScheduler.run` can run (``maintain(tasks=[...])``)."""
LINK_BATCH = 200
RETRIES = 8
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


class MaintenanceScheduler:
    """Runs what is due after each managed turn; ``link_every`` = 0 or None turns the graph task off,
    ``end_sessions=False`` the wrap-up on a session switch. With ``background`` the turn only counts; the
    due tasks run on one worker thread (:meth:`drain` waits for them)."""

    def __init__(self, *, link_every: int | None = 25, end_sessions: bool = True, background: bool = False) -> None:
        if link_every is not None and (
            isinstance(link_every, bool) or not isinstance(link_every, int) or link_every < 0
        ):
            raise InvalidRecordError(f"link_every must be an integer >= 0 or None, got {link_every!r}")
        self.link_every = link_every or 0
        self.end_sessions = bool(end_sessions)
        self.background = bool(background)
        self._worker: ThreadPoolExecutor | None = None
        self._pending: list[Future[None]] = []
        self._worker_lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"MaintenanceScheduler(link_every={self.link_every}, end_sessions={self.end_sessions}, "
            f"background={self.background})"
        )

    # -- counters

    def counters(self, memory: MemoryLayer, *, user_id: str, agent_id: str | None = None) -> dict[str, Any]:
        """The scope's counters: ``turns``, ``session`` (the last one), ``tended_at`` (the turn of the last tend)."""
        scope = check_scope((user_id, agent_id))
        found = memory.store.get(Scope(MAINTENANCE_USER, None), [_counter_id(scope)])[0]
        return _state(found)

    def _change(self, memory: MemoryLayer, scope: Scope, change: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """Apply ``change(state) -> state`` to the counter record with a versioned write; (before, after)."""
        where = Scope(MAINTENANCE_USER, None)
        memory_id = _counter_id(scope)
        for _ in range(RETRIES):
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
                memory.store.update_many([Upsert(record=record, expected_version=current.version if current else 0)])
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

        def count(state: dict[str, Any]) -> dict[str, Any]:
            state["turns"] += 1
            if session_id:
                state["session"] = session_id
            if link_every and state["turns"] - state["tended_at"] >= link_every:
                state["tended_at"] = state["turns"]
            return state

        before, after = self._change(memory, scope, count)
        due: list[str] = []
        previous = before.get("session")
        if self.end_sessions and session_id and previous and previous != session_id:
            due.append("end_session:" + previous)
        if after["tended_at"] != before["tended_at"]:
            due.append("tend")
        if due and self.background:
            self._submit(memory, scope, due)
        elif due:
            self._run_due(memory, scope, due)
        return due

    def _run_due(self, memory: MemoryLayer, scope: Scope, due: list[str]) -> None:
        for task in due:
            if task.startswith("end_session:"):
                self.end_session(
                    memory, task.split(":", 1)[1], user_id=scope.user_id, agent_id=scope.agent_id, clear=False
                )
            elif task == "tend":
                self.tend(memory, user_id=scope.user_id, agent_id=scope.agent_id)

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
        """Wrap a session up: its task and lasting scratchpad slots become (or update) the session's episode.

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
            content = f"Session {session_id}: " + "; ".join(parts) + "."
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
        if clear:
            memory.working.clear(session_id=session_id, **who)
        return episode

    def tend(self, memory: MemoryLayer, *, user_id: str, agent_id: str | None = None) -> dict[str, int]:
        """Link up to 200 memories never linked; remove faded and dangling links."""
        report = memory.graph.connect(user_id=user_id, agent_id=agent_id, limit=LINK_BATCH)
        pruned = memory.graph.prune(user_id=user_id, agent_id=agent_id)
        return {"linked_memories": report.memories, "links": report.links, "pruned": pruned}

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
            if "end_sessions" in wanted:
                last = self.counters(memory, user_id=scope.user_id, agent_id=scope.agent_id).get("session")
                episode = (
                    self.end_session(memory, last, user_id=scope.user_id, agent_id=scope.agent_id, clear=False)
                    if last
                    else None
                )
                done["end_sessions"] = [episode.id] if episode is not None else []
            if "tend" in wanted:
                done["tend"] = self.tend(memory, user_id=scope.user_id, agent_id=scope.agent_id)
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


def forget_counters(store: Any, scope: Scope) -> None:
    """Delete the scope's counter record (``forget_user``): nothing about a forgotten user stays behind."""
    where = Scope(MAINTENANCE_USER, None)
    if store.get(where, [_counter_id(scope)])[0] is not None:
        store.update_many([Delete(id=_counter_id(scope), scope=where)])


def _counter_id(scope: Scope) -> str:
    return deterministic_id(COUNTER_KIND, scope, "counters")


def _state(record: Record | None) -> dict[str, Any]:
    found = record.metadata if record is not None else {}
    return {
        "turns": int(found.get("turns", 0)),
        "session": found.get("session"),
        "tended_at": int(found.get("tended_at", 0)),
    }


__all__ = ["LASTING_KEYS", "MAINTENANCE_USER", "MaintenanceScheduler", "TASKS", "counted_scopes", "forget_counters"]
