"""An agent loop over a few sessions, as the memory-truth tests drive it."""

from __future__ import annotations

from typing import Any


def play_sessions(memory: Any, sessions: list[list[str]], user_id: str) -> None:
    """Each list of turns is one session (``s1``, ``s2`` ...): every turn is recalled first, as an agent loop does
    before it answers, then recorded with a plain reply; each session is ended."""
    for n, turns in enumerate(sessions, 1):
        for text in turns:
            memory.recall(text, session_id=f"s{n}", user_id=user_id)
            memory.record_turn(text, "Okay.", session_id=f"s{n}", user_id=user_id)
        memory.end_session(f"s{n}", user_id=user_id)
