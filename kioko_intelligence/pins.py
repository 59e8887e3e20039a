"""Pins and the stable prefix: what is always in front of the agent, byte for byte the same each turn.

A pinned memory (``metadata.pinned``) is shown in every context's "Keep in mind (frequently needed)"
section, right after the open goals. :func:`stable_prefix` renders the part of the context that does
not depend on the question - the profile, the standing instructions and the pins - in an order that
only changes when they do, so a provider's prompt cache can reuse it from turn to turn.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kioko_core.kinds.registry import LINKABLE_KINDS
from kioko_core.recall.hybrid import PINNED_SHOWN, pinned_memories
from kioko_core.store import Filter, InvalidRecordError, Record, Scope

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

PROFILE_TITLE = "About the user:"
INSTRUCTIONS_TITLE = "Instructions:"
PINNED_TITLE = "Keep in mind (frequently needed):"


@dataclass(frozen=True)
class StablePrefix:
    """The cacheable start of a prompt: ``text`` (``str(prefix)``), the memories in it, and a digest of the text."""

    text: str
    memory_ids: list[str] = field(default_factory=list)

    @property
    def digest(self) -> str:
        """sha256 of the text: equal digests, byte-identical prefixes."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def __str__(self) -> str:
        return self.text


def set_pinned(
    memory: MemoryLayer, memory_id: str, pinned: bool, *, user_id: str | None, agent_id: str | None, by: str = "manual"
) -> Record:
    """Pin or unpin one memory of the scope; only memories that can be recalled can be pinned."""
    current = memory.get(memory_id, user_id=user_id, agent_id=agent_id)
    if pinned and current.kind not in LINKABLE_KINDS:
        raise InvalidRecordError(
            f"a {current.kind} memory cannot be pinned: the profile and instructions are always in the prefix, "
            "working memory belongs to its session"
        )
    if bool(current.metadata.get("pinned") is True) == pinned and (
        not pinned or current.metadata.get("pinned_by") == by
    ):
        return current
    # a pin removed by hand is remembered as such, so the scheduler's automatic pins leave it alone
    unpinned_by = "manual" if by == "manual" else None
    return memory.update(
        memory_id,
        user_id=user_id,
        agent_id=agent_id,
        metadata={"pinned": pinned, "pinned_by": by if pinned else unpinned_by},
    )


def stable_prefix(memory: MemoryLayer, scope: Scope) -> StablePrefix:
    """The profile (by slot), the instructions and the pinned memories (oldest pin first) as one text."""
    profile = sorted(_of_kind(memory, scope, "profile"), key=lambda r: (str(r.metadata.get("slot", "")), r.id))
    instructions = sorted(_of_kind(memory, scope, "instruction"), key=lambda r: (r.created_at, r.id))
    pinned = pinned_memories(memory, scope, PINNED_SHOWN)
    blocks: list[str] = []
    ids: list[str] = []
    for title, records in ((PROFILE_TITLE, profile), (INSTRUCTIONS_TITLE, instructions), (PINNED_TITLE, pinned)):
        if records:
            blocks.append(title + "\n" + "\n".join(f"- {r.content}" for r in records))
            ids.extend(r.id for r in records)
    return StablePrefix(text="\n\n".join(blocks), memory_ids=ids)


def _of_kind(memory: MemoryLayer, scope: Scope, kind: str) -> list[Record]:
    return list(memory.store.scan(scope, Filter(kinds=frozenset({kind}))))


__all__ = ["StablePrefix", "set_pinned", "stable_prefix"]
