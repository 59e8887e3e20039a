"""What the slot tests share: turns said through the agent loop without recalls, and the memories marked replaced."""

from __future__ import annotations

from typing import Any

import kioko


def said(url: str, *sessions: tuple[str, ...]) -> Any:
    """An intelligent layer on ``url`` after each tuple of turns is said as one session (``s1``, ``s2`` ...) by user
    ``u`` with the reply "Noted.", each session ended."""
    memory = kioko.intelligent(url)
    for index, turns in enumerate(sessions):
        for turn in turns:
            memory.record_turn(turn, "Noted.", user_id="u", session_id=f"s{index + 1}")
        memory.end_session(f"s{index + 1}", user_id="u")
    return memory


def marked(memory: Any) -> list[str]:
    """The texts of user ``u``'s memories marked superseded or conflicted."""
    return [
        r.content
        for r in memory.memories(user_id="u")
        if r.metadata.get("superseded_by") or r.metadata.get("conflicted_by")
    ]
