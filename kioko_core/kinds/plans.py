"""Plans and choices: ``memory.goals`` (status, progress, parents, due dates) and ``memory.decisions``
(what was chosen, superseded or revisited)."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from kioko_core.errors import ConflictError, InvalidRecordError
from kioko_core.kinds.base import KindManager, _metadata, _note, _OutcomeMixin, _sentence, _text
from kioko_core.store import Record
from kioko_core.telemetry import count

GOAL_OPEN, GOAL_DONE, GOAL_DROPPED = "open", "done", "dropped"
_DECISION_FRAMING = re.compile(
    r"^\s*(?:decision\s*:|(?:we|i)\s+(?:have\s+|had\s+)?(?:decided|chose|agreed|settled|picked)\b)", re.IGNORECASE
)
_GOAL_FRAMING = re.compile(r"^\s*goal\s*:\s*", re.IGNORECASE)


# --------------------------------------------------------------------------- goals


class Goals(KindManager):
    """``memory.goals``: goals with a status (open / done / dropped), progress 0..1, a parent and a due date.

    A goal with ``parent`` is linked ``part_of`` its parent goal (a structural link, never fades).
    """

    def add(
        self,
        title: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        parent: str | None = None,
        due: str | date | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Add an open goal; content ``"Goal: <title>."``, ``metadata.title`` is the title."""
        title = _goal_title(title)
        if parent is not None:
            if not isinstance(parent, str) or not parent:
                raise InvalidRecordError("parent must be the id of a goal")
            self.get(parent, user_id=user_id, agent_id=agent_id)  # must be a goal of the same scope
        fields = {"title": title, "status": GOAL_OPEN, "progress": 0.0, "parent": parent, "due": _due(due)}
        return self._add(
            f"Goal: {_sentence(title)}",
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
            fields=fields,
        )

    def update(
        self,
        memory_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        title: str | None = None,
        due: str | date | None = None,
        metadata: dict[str, Any] | None = None,
        text: str | None = None,
    ) -> Record:
        """Rename the goal (content follows), move its due date, or merge metadata."""
        if text is not None and title is None:
            title = text
        changes = _metadata(metadata)
        content = None
        if title is not None:
            changes["title"] = _goal_title(title)
            content = f"Goal: {_sentence(changes['title'])}"
        if due is not None:
            changes["due"] = _due(due)
        return self._change(memory_id, user_id=user_id, agent_id=agent_id, content=content, metadata=changes)

    def progress(
        self,
        memory_id: str,
        fraction: float | None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        note: str | None = None,
    ) -> Record:
        """Record progress: ``fraction`` in [0, 1] (0.6 for 60 %) and/or a ``note``; 1.0 completes the goal."""
        if fraction is None and note is None:
            raise InvalidRecordError("give the progress as a fraction (0.6 for 60 %), a note, or both")
        now = time.time()
        changes: dict[str, Any] = {"progress_at": now}
        entry: dict[str, Any] = {"at": now}
        if fraction is not None:
            if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0.0 <= fraction <= 1.0:
                raise InvalidRecordError(f"progress must be a fraction in [0, 1] (0.6 for 60 %), got {fraction!r}")
            changes["progress"] = entry["progress"] = round(float(fraction), 4)
            if fraction >= 1.0:
                changes.update(status=GOAL_DONE, completed_at=now)
        if note is not None:
            entry["text"] = _text(note, "note")

        def progressed(current: Record) -> dict[str, Any]:
            # status and notes as stored at write time: a concurrent note is kept, a concurrent close refuses
            status = current.metadata.get("status", GOAL_OPEN)
            if status != GOAL_OPEN:
                raise InvalidRecordError(f"goal {memory_id!r} is {status}; reopen it first (memory.goals.reopen)")
            return {**changes, "notes": _note(current.metadata, entry)} if note is not None else changes

        return self._change(memory_id, user_id=user_id, agent_id=agent_id, metadata=progressed)

    def complete(
        self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None, note: str | None = None
    ) -> Record:
        """Mark the goal done (progress 1.0); completing a done goal changes nothing."""
        current = self.get(memory_id, user_id=user_id, agent_id=agent_id)
        if current.metadata.get("status") == GOAL_DONE and note is None:
            return current
        now = time.time()
        changes: dict[str, Any] = {"status": GOAL_DONE, "progress": 1.0, "completed_at": now}
        entry = {"at": now, "progress": 1.0, "text": _text(note, "note")} if note is not None else None
        return self._change(
            memory_id,
            user_id=user_id,
            agent_id=agent_id,
            metadata=lambda fresh: {**changes, "notes": _note(fresh.metadata, entry)} if entry is not None else changes,
        )

    def drop(
        self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None, reason: str | None = None
    ) -> Record:
        """Give the goal up (status dropped); it stays as history, out of the open goals."""
        changes: dict[str, Any] = {"status": GOAL_DROPPED, "dropped_at": time.time()}
        if reason is not None:
            changes["reason"] = _text(reason, "reason")
        return self._change(memory_id, user_id=user_id, agent_id=agent_id, metadata=changes)

    def reopen(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        """Open a done or dropped goal again (its progress stays as it was)."""
        current = self.get(memory_id, user_id=user_id, agent_id=agent_id)
        if current.metadata.get("status", GOAL_OPEN) == GOAL_OPEN:
            return current
        return self._change(
            memory_id, user_id=user_id, agent_id=agent_id, metadata={"status": GOAL_OPEN, "reopened_at": time.time()}
        )

    def open(self, *, user_id: str | None = None, agent_id: str | None = None) -> list[Record]:
        """The open goals of the scope, oldest first."""
        return [
            g for g in self.list(user_id=user_id, agent_id=agent_id) if g.metadata.get("status", GOAL_OPEN) == GOAL_OPEN
        ]

    def subgoals(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> list[Record]:
        """The goals whose ``parent`` is this goal, oldest first."""
        self.get(memory_id, user_id=user_id, agent_id=agent_id)
        return [g for g in self.list(user_id=user_id, agent_id=agent_id) if g.metadata.get("parent") == memory_id]


def _goal_title(title: Any) -> str:
    text = _GOAL_FRAMING.sub("", _text(title, "title"), count=1).rstrip(" .")
    if not text:
        raise InvalidRecordError("title must say what the goal is")
    return text


def _due(due: Any) -> str | None:
    """A due date as text: ISO for a date or datetime, as given for a string ("March 31")."""
    if due is None:
        return None
    if isinstance(due, (date, datetime)):
        return due.isoformat()
    if isinstance(due, str) and due.strip():
        return " ".join(due.split())
    raise InvalidRecordError(f"due must be a date, a datetime or a string such as '2025-12-15', got {due!r}")


# --------------------------------------------------------------------------- decisions


class Decisions(_OutcomeMixin, KindManager):
    """``memory.decisions``: what was decided and why; ``supersede`` replaces a decision and keeps it as history.

    The new decision carries ``metadata.supersedes``; the linker then links it ``supersedes`` the old one
    and moves the old decision's links (the goal it served ...) to it.
    """

    def add(
        self,
        text: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        title: str | None = None,
        chosen: str | None = None,
        options: Sequence[str] | None = None,
        rationale: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Record a decision; content ``"Decision: <text>."`` (text that already says "We decided ..." is kept).

        ``title`` (the question: "Vector database"), ``chosen``, ``options`` and ``rationale`` are optional
        metadata; a title becomes the decision's label in link lines.
        """
        return self._add(
            _decision_content(text),
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
            fields=_decision_fields(title, chosen, options, rationale),
        )

    def supersede(
        self,
        old_id: str,
        text: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        title: str | None = None,
        chosen: str | None = None,
        options: Sequence[str] | None = None,
        rationale: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Replace decision ``old_id`` with a new one and return the new one; the old one stays, as history.

        Of two supersedes of one decision at the same moment one wins; the other raises
        :class:`ConflictError` and keeps nothing (supersede the winner instead).
        """
        old = self.get(old_id, user_id=user_id, agent_id=agent_id)
        replaced_by = old.metadata.get("superseded_by")
        if replaced_by:
            raise InvalidRecordError(
                f"decision {old_id!r} was already superseded by {replaced_by!r}; supersede that one instead"
            )
        fields = _decision_fields(title, chosen, options, rationale)
        fields["supersedes"] = old_id
        new = self._add(
            _decision_content(text),
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
            fields=fields,
        )
        # With linking on, the linker's takeover has marked the old decision; without it, mark it here so
        # the old one leaves current() and recall all the same (connect() later links around it).
        old = self._layer.get(old_id, user_id=user_id, agent_id=agent_id)
        if not old.metadata.get("superseded_by"):
            # checked again on the fresh read of each try: a concurrent supersede that marked it first is kept
            self._change(
                old_id,
                user_id=user_id,
                agent_id=agent_id,
                metadata=lambda fresh: {} if fresh.metadata.get("superseded_by") else {"superseded_by": new.id},
            )
        # Two supersedes of one decision at the same moment both pass the check above; the first to mark the
        # old decision (the linker's takeover or the step just above: neither replaces a mark) is the one in
        # force, and the other takes its new decision back, so exactly one replacement stays.
        winner = self._layer.get(old_id, user_id=user_id, agent_id=agent_id).metadata.get("superseded_by")
        if winner != new.id:
            self._layer.delete(new.id, user_id=user_id, agent_id=agent_id)
            raise ConflictError(
                f"decision {old_id!r} was superseded by {winner!r} at the same moment; nothing of this call was "
                f"kept: supersede {winner!r} instead"
            )
        count("memories_superseded_total")
        return new

    def current(self, *, user_id: str | None = None, agent_id: str | None = None) -> list[Record]:
        """The decisions in force (not superseded), oldest first."""
        return [d for d in self.list(user_id=user_id, agent_id=agent_id) if not d.metadata.get("superseded_by")]

    def chain(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> list[Record]:
        """The decision's history: the decisions it replaced (oldest first), itself, and what replaced it."""
        record = self.get(memory_id, user_id=user_id, agent_id=agent_id)
        scope = record.scope
        seen = {record.id}
        before: list[Record] = []
        current = record
        while isinstance(current.metadata.get("supersedes"), str) and current.metadata["supersedes"] not in seen:
            found = self._layer.store.get(scope, [current.metadata["supersedes"]])[0]
            if found is None:
                break
            seen.add(found.id)
            before.insert(0, found)
            current = found
        after: list[Record] = []
        current = record
        while isinstance(current.metadata.get("superseded_by"), str) and current.metadata["superseded_by"] not in seen:
            found = self._layer.store.get(scope, [current.metadata["superseded_by"]])[0]
            if found is None:
                break
            seen.add(found.id)
            after.append(found)
            current = found
        return before + [record] + after


def _decision_content(text: Any) -> str:
    body = _text(text)
    return _sentence(body) if _DECISION_FRAMING.match(body) else f"Decision: {_sentence(body)}"


def _decision_fields(title: Any, chosen: Any, options: Any, rationale: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if title is not None:
        fields["title"] = _text(title, "title").rstrip(" .")
    if chosen is not None:
        fields["chosen"] = _text(chosen, "chosen")
    if options is not None:
        if isinstance(options, str) or not isinstance(options, Sequence):
            raise InvalidRecordError("options must be a list of strings")
        fields["options"] = [_text(o, "option") for o in options]
    if rationale is not None:
        fields["rationale"] = _text(rationale, "rationale")
    return fields
