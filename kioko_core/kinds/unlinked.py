"""Never linked: ``memory.instructions`` (standing rules), ``memory.profile`` (one value per slot) and
``memory.working`` (a session's scratchpad)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kioko_core.errors import ConflictError, InvalidRecordError, MemoryNotFound
from kioko_core.kinds.base import (
    KindManager,
    RegisteredManager,
    _metadata,
    _scan,
    _sentence,
    _slot,
    _text,
    _value,
    deterministic_id,
)
from kioko_core.kinds.registry import kind_info
from kioko_core.store import Delete, Record, Scope

if TYPE_CHECKING:
    from kioko_core.layer.parts import KindsHost


# --------------------------------------------------------------------------- never linked: instructions, profile, working


class Instructions(KindManager):
    """``memory.instructions``: standing rules for how to answer ("always answer in German"). Never linked."""

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


class Profile(RegisteredManager):
    """``memory.profile``: one value per slot (name, location, phone_number ...). Never linked.

    Each slot is one ``profile`` record with an id derived from the user, agent and slot, so ``set``
    replaces the value in a single write; ``created_at`` is when the value was set.
    """

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
        """Set a slot (replacing its value); content ``"User's <slot> is <value>."``, followed by
        ``metadata["detail"]`` when given (where or how the value holds, said with it: ``"User's job title is
        receptionist, at a vet practice in Truro."``), which the next ``set`` replaces with the value."""
        slot, value = _slot(key), _value(value)
        scope = self._layer._scope(user_id, agent_id)
        merged = _metadata(metadata)
        merged.update(slot=slot, value=value)
        plural = slot.endswith("s") and not slot.endswith(("ss", "us"))  # "User's pronouns are they/them"
        statement = f"User's {slot.replace('_', ' ')} {'are' if plural else 'is'} {value}"
        detail = merged.get("detail")
        if isinstance(detail, str) and detail.strip():
            statement += f", {detail.strip().rstrip('.')}"  # "User's job title is receptionist, at a vet practice"
        content = _sentence(statement)
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


class WorkingMemory(RegisteredManager):
    """``memory.working``: a session's scratchpad (task, ticket, error code ...). Never linked.

    One ``working`` record per (user, agent, session, key), with a derived id, so ``set`` replaces.
    """

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
