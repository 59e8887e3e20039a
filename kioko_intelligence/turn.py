"""The input of a router: one conversation turn, whose it is, and what the agent was given for it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable, Mapping

from kioko_core.privacy.secrets import redact
from kioko_core.store import InvalidRecordError, Record

MAX_TURN_CHARS = 100_000
"""A longer turn is refused before anything is decided: it is a document, not a conversation turn."""


@dataclass
class Turn:
    """``messages`` (``{"role": "user" | "assistant", "content": str}``), the scope, and ``served``.

    ``served`` are the procedures, skills and lessons the last ``recall()`` of this session gave the
    agent: the candidates for "that worked" feedback and the LLM prompt's ``p1 ...`` refs.
    """

    messages: list[dict[str, str]]
    user_id: str
    agent_id: str | None = None
    session_id: str | None = None
    served: list[Record] = field(default_factory=list)
    previous_reply: str = ""
    """The agent's reply of the session's previous managed turn: the answer that used what was served."""
    now: datetime = field(default_factory=datetime.now)

    def texts(self, role: str = "user") -> list[str]:
        """The contents of the messages of ``role``, in order."""
        return [m["content"] for m in self.messages if m["role"] == role]

    def text(self, role: str = "user") -> str:
        return "\n".join(t for t in self.texts(role) if t.strip())


def messages_of(value: Any) -> list[dict[str, str]]:
    """Normalise what a caller passes as a turn: a string (the user's words) or a list of messages.

    Raises :class:`InvalidRecordError` for anything else, and for a turn longer than
    :data:`MAX_TURN_CHARS`, before anything is decided or written.
    """
    if isinstance(value, str):
        messages = [{"role": "user", "content": value}]
    elif isinstance(value, Iterable) and not isinstance(value, (bytes, Mapping)):
        messages = [_message(m) for m in value]
    else:
        raise InvalidRecordError(
            f"a turn is a string or a list of {{'role': ..., 'content': ...}} messages, got {type(value).__name__}"
        )
    size = sum(len(m["content"]) for m in messages)
    if size > MAX_TURN_CHARS:
        raise InvalidRecordError(
            f"the turn has {size:,} characters; at most {MAX_TURN_CHARS:,} are managed per turn. "
            "Split it, or store a long text with memory.knowledge.add(...) instead"
        )
    return messages


def redacted_messages(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """The turn as Kioko keeps and shows it: every secret in it replaced by ``[redacted: kind]``.

    A router (and the model behind it) reads this, so an op can only quote the marker, and the executor
    refuses an op holding one as it refuses a secret; the session log, the summary, the agent's last reply
    and the report's events are made from it too. The secret itself is never stored, sent or shown.
    """
    return [{**message, "content": redact(message["content"])} for message in messages]


def _message(value: Any) -> dict[str, str]:
    if isinstance(value, Mapping):
        role, content = value.get("role", "user"), value.get("content")
    else:
        role, content = getattr(value, "role", None), getattr(value, "content", None)
    if role not in ("user", "assistant", "system", "tool"):
        raise InvalidRecordError(f"a message's role must be 'user' or 'assistant', got {role!r}")
    if not isinstance(content, str):
        raise InvalidRecordError(f"a message's content must be a string, got {type(content).__name__}")
    return {"role": role, "content": content}
