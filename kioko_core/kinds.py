"""Typed memory managers: ``memory.goals``, ``memory.decisions``, ``memory.procedures`` ... ``memory.working``.

Each manager knows one kind of memory: which ``memory_type`` it is stored as, how its content reads
(that is what the linker analyses and what a link line shows) and which metadata fields the spec's
structure needs (a goal's ``parent``, a decision's ``supersedes``, an insight's ``evidence``). Every
write goes through :meth:`MemoryLayer.add` / ``update`` / ``delete``, so linking, isolation and the
secrets check apply exactly as for a plain ``memory.add`` (the layer checks the content and every field the
manager keeps in metadata, notes and reasons included, once per write).

Content conventions (what the linker and the link lines see):

========================  =====================================================  =====================
manager                   content                                                label in link lines
========================  =====================================================  =====================
goals                     ``Goal: <title>.``                                     metadata ``title``
decisions                 ``Decision: <text>.`` (kept as is when it already
                          starts "Decision:" / "We decided ...")                 content, prefix cut
procedures                ``<title>: 1) step; 2) step``                          metadata ``title``
strategies (lessons)      ``For <context>: <text>`` or ``<text>``                content
profile                   ``User's <slot> is <value>.``                          (never linked)
working                   ``<key>: <value>``                                     (never linked)
others                    the text as given                                      content
========================  =====================================================  =====================

Listing calls (``goals.open``, ``decisions.current``, ``profile.all`` ...) read with ``store.scan``:
they are for agents' tools, consoles and the router, not for the write or recall hot path. Lists are
ordered oldest first (``created_at``, then id).
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Callable

from .errors import ConflictError, InvalidRecordError, KindMismatch, MemoryNotFound
from .kind_registry import KINDS, KindInfo, kind_info
from .store import Delete, Filter, Record, Scope

if TYPE_CHECKING:
    from .parts import KindsHost

GOAL_OPEN, GOAL_DONE, GOAL_DROPPED = "open", "done", "dropped"
MAX_NOTES = 20
"""Progress and outcome notes kept on a memory; older ones give way (the memory must stay small)."""
MAX_HISTORY = 10
"""Earlier contents kept when a memory's text is updated (spec: "the old value is kept in history")."""

_SLOT = re.compile(r"^[a-z0-9][a-z0-9_.]{0,63}$")
_IDS = uuid.uuid5(uuid.NAMESPACE_URL, "kioko:deterministic-memory-ids")
_DECISION_FRAMING = re.compile(
    r"^\s*(?:decision\s*:|(?:we|i)\s+(?:have\s+|had\s+)?(?:decided|chose|agreed|settled|picked)\b)", re.IGNORECASE
)
_GOAL_FRAMING = re.compile(r"^\s*goal\s*:\s*", re.IGNORECASE)
_STEP_NUMBER = re.compile(r"^\s*(?:step\s*)?\d+\s*[.):]\s*", re.IGNORECASE)


# --------------------------------------------------------------------------- small helpers


def _text(value: Any, name: str = "text") -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidRecordError(f"{name} must be a non-empty string")
    return " ".join(value.split())


def _metadata(metadata: Any) -> dict[str, Any]:
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise InvalidRecordError("metadata must be a dict")
    return dict(metadata)


def _sentence(text: str) -> str:
    """The text with a final full stop, unless it already ends a sentence."""
    return text if text[-1] in ".!?" else text + "."


def _ids(values: Any, name: str) -> list[str]:
    if values is None:
        return []
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise InvalidRecordError(f"{name} must be a list of memory ids")
    ids = list(dict.fromkeys(values))
    if not all(isinstance(i, str) and i for i in ids):
        raise InvalidRecordError(f"{name} must be a list of non-empty memory id strings")
    return ids


def _slot(key: Any, what: str = "slot") -> str:
    """A profile slot or working-memory key: lower case, words joined by ``_`` ("Phone number" -> phone_number)."""
    if not isinstance(key, str):
        raise InvalidRecordError(f"{what} must be a string such as 'name' or 'phone_number'")
    normal = re.sub(r"[\s-]+", "_", key.strip().lower())
    if not _SLOT.match(normal):
        raise InvalidRecordError(
            f"{what} {key!r} must be 1-64 characters of letters, digits, '_' or '.', such as 'phone_number'"
        )
    return normal


def _value(value: Any, what: str = "value") -> str | int | float | bool:
    if isinstance(value, str):
        return _text(value, what)
    if isinstance(value, (bool, int, float)):
        return value
    raise InvalidRecordError(f"{what} must be a string, number or bool, got {type(value).__name__}")


def deterministic_id(kind: str, scope: Scope, *parts: str) -> str:
    """The id of a keyed memory (a profile slot, a working-memory key): the same key always names one record.

    The scope is part of it, so two users' ``name`` slots never collide (ids are unique across a store).
    """
    name = "\x1f".join([kind, scope.user_id, scope.agent_id or "", *parts])
    return uuid.uuid5(_IDS, name).hex


def _noted(metadata: dict[str, Any], entry: dict[str, Any]) -> list[dict[str, Any]]:
    notes = (
        [n for n in metadata.get("notes", []) if isinstance(n, dict)] if isinstance(metadata.get("notes"), list) else []
    )
    return (notes + [entry])[-MAX_NOTES:]


# --------------------------------------------------------------------------- the base


class KindManager:
    """What every typed manager has: get, list, update and delete restricted to its own kind."""

    kind: str = ""
    """The ``memory_type`` this manager stores (``Record.kind``)."""
    noun: str = ""
    """What it is called in messages ("goal", "lesson")."""

    def __init__(self, layer: KindsHost) -> None:
        self._layer = layer

    def __repr__(self) -> str:
        return f"{type(self).__name__}(kind={self.kind!r})"

    # -- writing through the layer

    def _add(
        self,
        content: str,
        *,
        user_id: str | None,
        agent_id: str | None,
        session_id: str | None,
        metadata: dict[str, Any] | None,
        created_at: Any,
        fields: dict[str, Any] | None = None,
        id: str | None = None,
    ) -> Record:
        """Store ``content`` as this kind; the manager's ``fields`` win over the caller's metadata."""
        merged = _metadata(metadata)
        merged.update({k: v for k, v in (fields or {}).items() if v is not None})
        return self._layer.add(
            content,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            memory_type=self.kind,
            metadata=merged,
            created_at=created_at,
            id=id,
        )

    def _change(
        self,
        memory_id: str,
        *,
        user_id: str | None,
        agent_id: str | None,
        content: str | Callable[[Record], str | None] | None = None,
        metadata: dict[str, Any] | Callable[[Record], dict[str, Any]] | None = None,
    ) -> Record:
        """Update through the layer; a new content keeps the old one in ``history``.

        ``content`` and ``metadata`` may be functions of the stored memory (a counter, a list of notes, a
        procedure's steps kept while its title changes): the layer calls them on a fresh read each time the
        write is tried, so concurrent changes add up instead of one being lost. Anything computed from an
        earlier read would be written back stale after a lost race.
        """
        new_content = content

        def change(current: Record) -> tuple[str | None, dict[str, Any] | None]:
            if current.kind != self.kind:
                raise KindMismatch(
                    f"memory {memory_id!r} is a {current.kind} memory, not a {self.noun}; use the manager of its kind"
                )
            changes = dict((metadata(current) if callable(metadata) else metadata) or {})
            content = new_content(current) if callable(new_content) else new_content
            if content is not None and content != current.content:
                history = current.metadata.get("history")
                history = list(history) if isinstance(history, list) else []
                changes["history"] = (history + [{"content": current.content, "until": time.time()}])[-MAX_HISTORY:]
            return (content if content != current.content else None), (changes or None)

        return self._layer._update(memory_id, self._layer._scope(user_id, agent_id), change)

    # -- reading and removing, kind-checked

    def get(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        """The memory, or MemoryNotFound; :class:`KindMismatch` if it is of another kind."""
        record = self._layer.get(memory_id, user_id=user_id, agent_id=agent_id)
        if record.kind != self.kind:
            raise KindMismatch(
                f"memory {memory_id!r} is a {record.kind} memory, not a {self.noun}; use the manager of its kind"
            )
        return record

    def list(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> list[Record]:
        """Every memory of this kind in the scope (and session, when given), oldest first."""
        return _scan(self._layer, self._layer._scope(user_id, agent_id), self.kind, session_id)

    def update(
        self,
        memory_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        text: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Record:
        """Replace the text (links are derived again; the old text goes to ``history``) and/or merge metadata."""
        content = _text(text) if text is not None else None
        return self._change(
            memory_id, user_id=user_id, agent_id=agent_id, content=content, metadata=_metadata(metadata)
        )

    def delete(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> bool:
        """Delete the memory (its neighbours forget their links to it); False if there is none."""
        record = self._layer.store.get(self._layer._scope(user_id, agent_id), [memory_id])[0]
        if record is None:
            return False
        if record.kind != self.kind:
            raise KindMismatch(f"memory {memory_id!r} is a {record.kind} memory, not a {self.noun}; nothing deleted")
        return self._layer.delete(memory_id, user_id=user_id, agent_id=agent_id)


def _scan(layer: KindsHost, scope: Scope, kind: str, session_id: str | None = None) -> list[Record]:
    found = list(layer.store.scan(scope, Filter(kinds=frozenset({kind}), session_id=session_id)))
    return sorted(found, key=lambda r: (r.created_at, r.id))


class _TextManager(KindManager):
    """A kind whose memory is just its text: facts, preferences, knowledge, episodes, skills."""

    def add(
        self,
        text: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Store ``text`` as a memory of this kind; returns the stored (and, with auto_link, linked) record."""
        return self._add(
            _text(text),
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
        )


class _OutcomeMixin:
    """Success and failure counts for what an agent can try: procedures, skills, lessons, decisions."""

    def outcome(
        self,
        memory_id: str,
        worked: bool,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        note: str | None = None,
        session_id: str | None = None,
        context: Any = None,
    ) -> Record:
        """Record that using the memory worked (or not): ``successes`` / ``failures`` + 1, an optional note.

        When it worked and ``session_id`` or ``context`` (the recall it was given in) is passed, this is
        ``memory.feedback``: the memory is linked ``resolves`` to that session's problems and the links
        among the context's memories are strengthened.
        """
        if not isinstance(worked, bool):
            raise InvalidRecordError("worked must be True or False")
        manager: KindManager = self  # type: ignore[assignment]
        now = time.time()
        noted = _text(note, "note") if note is not None else None

        def counted(current: Record) -> dict[str, Any]:
            # counted on the stored memory at write time, so concurrent outcomes all add up
            meta = current.metadata
            changes: dict[str, Any] = {
                "successes": int(meta.get("successes", 0) or 0) + (1 if worked else 0),
                "failures": int(meta.get("failures", 0) or 0) + (0 if worked else 1),
                "last_outcome": "worked" if worked else "failed",
                "last_used_at": now,
            }
            if noted is not None:
                changes["notes"] = _noted(meta, {"at": now, "worked": worked, "text": noted})
            return changes

        changed = manager._change(memory_id, user_id=user_id, agent_id=agent_id, metadata=counted)
        if worked and (session_id is not None or context is not None):
            manager._layer.feedback(
                user_id=user_id, agent_id=agent_id, credited=memory_id, session_id=session_id, context=context
            )
            changed = manager.get(memory_id, user_id=user_id, agent_id=agent_id)
        return changed


# --------------------------------------------------------------------------- goals


class Goals(KindManager):
    """``memory.goals``: goals with a status (open / done / dropped), progress 0..1, a parent and a due date.

    A goal with ``parent`` is linked ``part_of`` its parent goal (a structural link, never fades).
    """

    kind, noun = "goal", "goal"

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
            return {**changes, "notes": _noted(current.metadata, entry)} if note is not None else changes

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
            metadata=lambda fresh: (
                {**changes, "notes": _noted(fresh.metadata, entry)} if entry is not None else changes
            ),
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

    kind, noun = "decision", "decision"

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


# --------------------------------------------------------------------------- procedures, lessons, skills


class Procedures(_OutcomeMixin, KindManager):
    """``memory.procedures``: how to do something, step by step, with how often it worked."""

    kind, noun = "procedural", "procedure"

    def add(
        self,
        title: str,
        steps: Sequence[str],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Add a procedure; content ``"<title>: 1) step; 2) step"``, metadata title, steps, successes, failures."""
        title, steps = _procedure_title(title), _steps(steps)
        fields = {"title": title, "steps": steps, "successes": 0, "failures": 0}
        return self._add(
            _procedure_content(title, steps),
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
        steps: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
        text: str | None = None,
    ) -> Record:
        """Change the title and/or the steps (the content is rebuilt), or merge metadata."""
        if text is not None:
            raise InvalidRecordError("a procedure's text is built from its title and steps; pass title= or steps=")
        changes = _metadata(metadata)
        if title is None and steps is None:
            return self._change(memory_id, user_id=user_id, agent_id=agent_id, metadata=changes)
        new_title = _procedure_title(title) if title is not None else None
        new_steps = _steps(steps) if steps is not None else None

        def rebuilt(current: Record) -> tuple[str, list[str]]:
            # the part not given is taken from the memory as stored now, never from an earlier read: a
            # concurrent change of the steps survives a change of the title, and the other way round
            kept_steps = current.metadata.get("steps")
            return (
                new_title if new_title is not None else str(current.metadata.get("title", "")),
                new_steps if new_steps is not None else list(kept_steps) if isinstance(kept_steps, list) else [],
            )

        def fields(current: Record) -> dict[str, Any]:
            title_now, steps_now = rebuilt(current)
            return {**changes, "title": title_now, "steps": steps_now}

        return self._change(
            memory_id,
            user_id=user_id,
            agent_id=agent_id,
            content=lambda current: _procedure_content(*rebuilt(current)),
            metadata=fields,
        )


def _procedure_title(title: Any) -> str:
    text = _text(title, "title").rstrip(" .:")
    if not text:
        raise InvalidRecordError("title must say what the procedure does")
    return text


def _steps(steps: Any) -> list[str]:
    if isinstance(steps, str) or not isinstance(steps, Sequence):
        raise InvalidRecordError("steps must be a list of strings, one per step")
    cleaned = [_STEP_NUMBER.sub("", _text(step, "step"), count=1).rstrip(" .;") for step in steps]
    if not cleaned or not all(cleaned):
        raise InvalidRecordError("a procedure needs at least one step, and every step needs words")
    return cleaned


def _procedure_content(title: str, steps: list[str]) -> str:
    return f"{title}: " + "; ".join(f"{number}) {step}" for number, step in enumerate(steps, 1))


class Strategies(_OutcomeMixin, KindManager):
    """``memory.strategies`` (also ``memory.lessons``): what was learned, optionally for which situation."""

    kind, noun = "strategy", "lesson"

    def add(
        self,
        text: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        context: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Add a lesson; with ``context`` the content reads ``"For <context>: <text>"``."""
        body = _text(text)
        fields: dict[str, Any] = {"successes": 0, "failures": 0}
        if context is not None:
            fields["context"] = _text(context, "context").rstrip(" .:")
            body = f"For {fields['context']}: {body}"
        return self._add(
            body,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
            fields=fields,
        )


class Skills(_OutcomeMixin, _TextManager):
    """``memory.skills``: something the agent can do (a prompt template, a tool recipe), with its track record."""

    kind, noun = "skill", "skill"

    def add(
        self,
        text: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Add a skill; ``title`` (optional) becomes its label in link lines."""
        fields: dict[str, Any] = {"successes": 0, "failures": 0}
        if title is not None:
            fields["title"] = _text(title, "title").rstrip(" .")
        return self._add(
            _text(text),
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
            fields=fields,
        )


# --------------------------------------------------------------------------- facts, events, knowledge


class Episodes(_TextManager):
    """``memory.episodes``: what happened (``created_at`` dates it; ``session_id`` ties it to a conversation)."""

    kind, noun = "episodic", "episode"


class Facts(_TextManager):
    """``memory.facts``: what is true about the user or their world; an update keeps the old value in history."""

    kind, noun = "factual", "fact"

    def verify(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        """Mark the fact as confirmed now (``metadata.verified_at``)."""
        return self._change(memory_id, user_id=user_id, agent_id=agent_id, metadata={"verified_at": time.time()})


class Preferences(_TextManager):
    """``memory.preferences``: what the user likes or prefers."""

    kind, noun = "preference", "preference"


class Knowledge(_TextManager):
    """``memory.knowledge``: general knowledge in the user's own scope (memory_type ``semantic``)."""

    kind, noun = "semantic", "knowledge"

    def add(
        self,
        text: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        source: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Add a piece of knowledge; ``source`` (a document, a URL) is kept in metadata."""
        fields = {"source": _text(source, "source") if source is not None else None}
        return self._add(
            _text(text),
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
            fields=fields,
        )


class _DerivedManager(KindManager):
    """Memories made from other memories; the ids they rest on become ``derived_from`` links."""

    evidence_field = "evidence"

    def _add_derived(
        self,
        text: str,
        ids: Any,
        *,
        user_id: str | None,
        agent_id: str | None,
        session_id: str | None,
        metadata: dict[str, Any] | None,
        created_at: Any,
    ) -> Record:
        evidence = _ids(ids, self.evidence_field)
        if evidence:
            scope = self._layer._scope(user_id, agent_id)
            missing = [i for i, r in zip(evidence, self._layer.store.get(scope, evidence)) if r is None]
            if missing:
                raise MemoryNotFound(missing[0], user_id)
        return self._add(
            _text(text),
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
            fields={self.evidence_field: evidence},
        )


class Insights(_DerivedManager):
    """``memory.insights``: a higher-level conclusion (reflection), linked ``derived_from`` its evidence."""

    kind, noun, evidence_field = "insight", "insight", "evidence"

    def add(
        self,
        text: str,
        *,
        user_id: str | None = None,
        evidence: Sequence[str] | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Add an insight resting on the memories ``evidence`` names (all must exist in the scope)."""
        return self._add_derived(
            text,
            evidence,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
        )


class Summaries(_DerivedManager):
    """``memory.summaries``: a summary of episodes (consolidation), linked ``derived_from`` each of them."""

    kind, noun, evidence_field = "summary", "summary", "episodes"

    def add(
        self,
        text: str,
        *,
        user_id: str | None = None,
        episodes: Sequence[str] | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Add a summary of the memories ``episodes`` names (all must exist in the scope)."""
        return self._add_derived(
            text,
            episodes,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
        )


# --------------------------------------------------------------------------- never linked: instructions, profile, working


class Instructions(KindManager):
    """``memory.instructions``: standing rules for how to answer ("always answer in German"). Never linked."""

    kind, noun = "instruction", "instruction"

    def add(
        self,
        text: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Add a standing instruction."""
        return self._add(
            _text(text),
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
            created_at=created_at,
        )

    def remove(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> bool:
        """Delete the instruction; False if there is none."""
        return self.delete(memory_id, user_id=user_id, agent_id=agent_id)


class Profile:
    """``memory.profile``: one value per slot (name, location, phone_number ...). Never linked.

    Each slot is one ``profile`` record with an id derived from the user, agent and slot, so ``set``
    replaces the value in a single write; ``created_at`` is when the value was set.
    """

    kind = "profile"

    def __init__(self, layer: KindsHost) -> None:
        self._layer = layer

    def __repr__(self) -> str:
        return "Profile()"

    def set(
        self,
        key: str,
        value: str | int | float | bool,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Set a slot (replacing its value); content ``"User's <slot> is <value>."``."""
        slot, value = _slot(key), _value(value)
        scope = self._layer._scope(user_id, agent_id)
        merged = _metadata(metadata)
        merged.update(slot=slot, value=value)
        content = _sentence(f"User's {slot.replace('_', ' ')} is {value}")
        return self._layer._add(
            content,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            memory_type=self.kind,
            metadata=merged,
            created_at=created_at,
            id=deterministic_id(self.kind, scope, slot),
            embedding=None,
            replace=True,
        )

    def record(self, key: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record | None:
        """The slot's record, or None."""
        scope = self._layer._scope(user_id, agent_id)
        return self._layer.store.get(scope, [deterministic_id(self.kind, scope, _slot(key))])[0]

    def get(self, key: str, *, user_id: str | None = None, agent_id: str | None = None, default: Any = None) -> Any:
        """The slot's value, or ``default``."""
        found = self.record(key, user_id=user_id, agent_id=agent_id)
        return found.metadata.get("value", default) if found is not None else default

    def remove(self, key: str, *, user_id: str | None = None, agent_id: str | None = None) -> bool:
        """Forget the slot; False if it was not set."""
        scope = self._layer._scope(user_id, agent_id)
        return self._layer.delete(deterministic_id(self.kind, scope, _slot(key)), user_id=user_id, agent_id=agent_id)

    def all(self, *, user_id: str | None = None, agent_id: str | None = None) -> dict[str, Any]:
        """Every slot and its value, in the order the slots were set."""
        records = _scan(self._layer, self._layer._scope(user_id, agent_id), self.kind)
        return {r.metadata["slot"]: r.metadata.get("value") for r in records if isinstance(r.metadata.get("slot"), str)}

    def list(self, *, user_id: str | None = None, agent_id: str | None = None) -> list[Record]:
        """Every slot's record, oldest first."""
        return _scan(self._layer, self._layer._scope(user_id, agent_id), self.kind)


class WorkingMemory:
    """``memory.working``: a session's scratchpad (task, ticket, error code ...). Never linked.

    One ``working`` record per (user, agent, session, key), with a derived id, so ``set`` replaces.
    """

    kind = "working"

    def __init__(self, layer: KindsHost) -> None:
        self._layer = layer

    def __repr__(self) -> str:
        return "WorkingMemory()"

    def _id(self, key: str, user_id: str | None, agent_id: str | None, session_id: str) -> tuple[Scope, str]:
        scope = self._layer._scope(user_id, agent_id)
        return scope, deterministic_id(self.kind, scope, _session(session_id), _slot(key, "key"))

    def set(
        self,
        key: str,
        value: str | int | float | bool,
        *,
        user_id: str | None = None,
        session_id: str,
        agent_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: Any = None,
    ) -> Record:
        """Set ``key`` in the session's scratchpad; content ``"<key>: <value>"``."""
        name, value = _slot(key, "key"), _value(value)
        _, memory_id = self._id(name, user_id, agent_id, session_id)
        merged = _metadata(metadata)
        merged.update(key=name, value=value)
        content = f"{name.replace('_', ' ')}: {value}"
        return self._layer._add(
            content,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            memory_type=self.kind,
            metadata=merged,
            created_at=created_at,
            id=memory_id,
            embedding=None,
            replace=True,
        )

    def get(
        self, key: str, *, user_id: str | None = None, session_id: str, agent_id: str | None = None, default: Any = None
    ) -> Any:
        """The value of ``key`` in this session, or ``default``."""
        scope, memory_id = self._id(key, user_id, agent_id, session_id)
        found = self._layer.store.get(scope, [memory_id])[0]
        return found.metadata.get("value", default) if found is not None else default

    def all(self, *, user_id: str | None = None, session_id: str, agent_id: str | None = None) -> dict[str, Any]:
        """The session's scratchpad, in the order the keys were set."""
        records = _scan(self._layer, self._layer._scope(user_id, agent_id), self.kind, _session(session_id))
        return {r.metadata["key"]: r.metadata.get("value") for r in records if isinstance(r.metadata.get("key"), str)}

    def remove(self, key: str, *, user_id: str | None = None, session_id: str, agent_id: str | None = None) -> bool:
        """Remove ``key`` from the session's scratchpad; False if it was not set."""
        _, memory_id = self._id(key, user_id, agent_id, session_id)
        return self._layer.delete(memory_id, user_id=user_id, agent_id=agent_id)

    def clear(self, *, user_id: str | None = None, session_id: str, agent_id: str | None = None) -> int:
        """Empty the session's scratchpad; returns how many keys went."""
        records = _scan(self._layer, self._layer._scope(user_id, agent_id), self.kind, _session(session_id))
        with self._layer._purging_once(maintaining=True):
            return sum(self._layer.delete(r.id, user_id=user_id, agent_id=agent_id) for r in records)

    def promote(
        self,
        key: str,
        *,
        user_id: str | None = None,
        session_id: str,
        agent_id: str | None = None,
        memory_type: str = "episodic",
    ) -> Record:
        """Keep a scratchpad value for good: store ``"<key>: <value>"`` as a lasting memory, then drop the key."""
        scope, memory_id = self._id(key, user_id, agent_id, session_id)
        found = self._layer.store.get(scope, [memory_id])[0]
        if found is None:
            raise MemoryNotFound(f"working:{_slot(key, 'key')}", user_id)
        if not kind_info(memory_type).links:
            raise InvalidRecordError("promote to a lasting kind such as 'episodic' or 'factual'")
        kept = self._layer.add(
            found.content,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            memory_type=memory_type,
            metadata={"promoted_from": "working", "key": found.metadata.get("key")},
        )
        try:
            # only the value promoted leaves the scratchpad: deleted at the version read (working memories
            # are never linked, so there are no neighbours to update)
            self._layer.store.update_many([Delete(id=memory_id, scope=scope, expected_version=found.version)])
        except ConflictError:
            pass  # the key was set again (or removed) since the read: that newer state stays as it is
        return kept


def _session(session_id: Any) -> str:
    if not isinstance(session_id, str) or not session_id:
        raise InvalidRecordError("working memory belongs to a session: pass session_id='...'")
    return session_id


# --------------------------------------------------------------------------- wiring


TextManager = _TextManager
"""The manager a kind whose memory is just its text names in its registry row (``manager_class="TextManager"``):
it manages the kind of the row it is built for."""


def _manager_class(info: KindInfo) -> type:
    """The class the registry row names, checked: a class of its own kind must be the row's."""
    found = globals().get(info.manager_class)
    manages = getattr(found, "kind", None)
    if not (isinstance(found, type) and isinstance(manages, str)):
        raise TypeError(f"kind {info.name!r}: the registry names no manager class {info.manager_class!r} here")
    if manages and manages != info.name:
        raise TypeError(f"kind {info.name!r}: {info.manager_class} manages {manages!r}")
    return found


MANAGERS: dict[str, type] = {info.manager: _manager_class(info) for info in KINDS}
"""Attribute name on a MemoryLayer -> manager class (both from the kind registry's rows)."""


def install(layer: KindsHost) -> None:
    """Attach every typed manager to ``layer`` (``layer.goals``, ``layer.decisions`` ...; ``lessons`` = strategies).

    :class:`MemoryLayer` does this itself; the attributes are declared on the class for type checkers.
    """
    for info in KINDS:
        manager = MANAGERS[info.manager](layer)
        if not getattr(type(manager), "kind", ""):  # a TextManager: the row says which kind
            manager.kind, manager.noun = info.name, info.op or info.noun
        for name in (info.manager, *info.manager_aliases):
            setattr(layer, name, manager)


__all__ = [
    "Decisions",
    "Episodes",
    "Facts",
    "Goals",
    "Insights",
    "Instructions",
    "KindManager",
    "TextManager",
    "KindMismatch",
    "Knowledge",
    "MANAGERS",
    "Preferences",
    "Procedures",
    "Profile",
    "Skills",
    "Strategies",
    "Summaries",
    "WorkingMemory",
    "deterministic_id",
    "install",
]
