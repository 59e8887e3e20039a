"""What every typed manager shares: :class:`KindManager` (get, list, update, delete of one kind), the
text-only manager, the outcome counts, and the small checks of what callers pass."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable

from kioko_core.errors import InvalidRecordError, KindMismatch
from kioko_core.kinds.registry import row_of_class
from kioko_core.store import Filter, Record, Scope

if TYPE_CHECKING:
    from kioko_core.layer.parts import KindsHost

MAX_NOTES = 20
"""Progress and outcome notes kept on a memory; older ones give way (the memory must stay small)."""
MAX_HISTORY = 10
"""Earlier contents kept when a memory's text is updated (spec: "the old value is kept in history")."""

_SLOT = re.compile(r"^[a-z0-9][a-z0-9_.]{0,63}$")
_IDS = uuid.uuid5(uuid.NAMESPACE_URL, "kioko:deterministic-memory-ids")


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


def _note(metadata: dict[str, Any], entry: dict[str, Any]) -> list[dict[str, Any]]:
    notes = (
        [n for n in metadata.get("notes", []) if isinstance(n, dict)] if isinstance(metadata.get("notes"), list) else []
    )
    return (notes + [entry])[-MAX_NOTES:]


# --------------------------------------------------------------------------- the base


class RegisteredManager:
    """A manager class whose kind is the registry row naming it (``manager_class="Goals"``): the row is the one
    place a kind is spelled, so the class never repeats it."""

    kind: str = ""
    """The ``memory_type`` this manager stores (``Record.kind``)."""
    noun: str = ""
    """What it is called in messages ("goal", "lesson"): the row's ``called``."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        row = row_of_class(cls.__name__)
        if row is not None:
            cls.kind, cls.noun = row.name, row.called


class KindManager(RegisteredManager):
    """What every typed manager has: get, list, update and delete restricted to its own kind."""

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
                changes["notes"] = _note(meta, {"at": now, "worked": worked, "text": noted})
            return changes

        changed = manager._change(memory_id, user_id=user_id, agent_id=agent_id, metadata=counted)
        if worked and (session_id is not None or context is not None):
            manager._layer.feedback(
                user_id=user_id, agent_id=agent_id, credited=memory_id, session_id=session_id, context=context
            )
            changed = manager.get(memory_id, user_id=user_id, agent_id=agent_id)
        return changed
