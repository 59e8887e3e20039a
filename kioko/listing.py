"""Listing a user's memories the way a person or an agent asks for them: ``kioko list`` and the MCP tool
``list_memories`` both call :func:`newest`, so the two filter and order alike."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kioko_core.store import Record


def newest(
    memory: Any,
    *,
    kinds: Iterable[str] | None = None,
    session_id: str | None = None,
    text: str | None = None,
    limit: int = 20,
    user_id: str | None = None,
    agent_id: str | None = None,
) -> list[Record]:
    """At most ``limit`` memories of the scope, newest first: only ``kinds`` (names or aliases), only one
    conversation, only those containing ``text`` (any case). A scan: for people and agents, not a hot path."""
    wanted = text.casefold() if text else None
    found = [
        r
        for r in memory.memories(user_id=user_id, agent_id=agent_id, kinds=set(kinds) if kinds else None)
        if (session_id is None or r.session_id == session_id) and (wanted is None or wanted in r.content.casefold())
    ]
    found.sort(key=lambda r: (-r.created_at, r.id))
    return found[:limit]
