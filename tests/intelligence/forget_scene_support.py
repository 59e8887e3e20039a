"""What the forget tests share: a scene said in one session, the request in the next, and what is left."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def contents_after(memory: Any, user: Mapping[str, str], said: list[str], request: str | list[str]) -> list[str]:
    """The memories' texts after ``request`` (one turn, or several), said in a session after ``said`` (``user``: the
    scope's keywords, ``{"user_id": ...}``), through the agent loop (record_turn, end_session)."""
    for text in said:
        memory.record_turn(text, "Okay.", session_id="s1", **user)
    memory.end_session("s1", **user)
    for text in [request] if isinstance(request, str) else request:
        memory.record_turn(text, "Done.", session_id="s2", **user)
    memory.end_session("s2", **user)
    return [r.content for r in memory.memories(**user)]


def holds(contents: list[str], word: str) -> bool:
    """Does any of ``contents`` say ``word`` (case aside)?"""
    return any(word.lower() in c.lower() for c in contents)
