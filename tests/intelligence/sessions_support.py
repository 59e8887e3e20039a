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


def semantic_layer(store: str, path: Any) -> Any:
    """An intelligent layer with the semantic embedder (the default where it is installed; the suite's default is
    the offline one) on ``store`` ("memory", or a SQLite file under ``path``)."""
    import kioko

    url = "memory://" if store == "memory" else f"sqlite:///{path / 'semantic.db'}"
    return kioko.intelligent(url + "?embedder=semantic")


def lines_with(text: str, word: str) -> list[str]:
    """The lines of a context ``text`` that hold ``word``."""
    return [line for line in text.splitlines() if word in line]
