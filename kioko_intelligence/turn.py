"""The input of a router: one conversation turn, whose it is, and what the agent was given for it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable, Mapping

from kioko_core.privacy.secrets import redact
from kioko_core.store import InvalidRecordError, Record

MAX_TURN_CHARS = 100_000
"""A longer turn is refused before anything is decided: it is a document, not a conversation turn."""
TURN_KEY = "turn"
"""The metadata key of a managed turn's number in its scope's sequence (1, 2, 3 ...: the maintenance counters'
``turns``): every memory a turn adds, updates or sets carries it, so "said in a later turn" holds however fast the
turns came (an agent loop or an import writes a session's turns a fraction of a second apart)."""


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
    index: int | None = None
    """The turn's number in its scope's sequence (:data:`TURN_KEY`), None when nothing counts the scope's turns."""

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


def turn_of(record: Record) -> int | None:
    """The number of the managed turn that last said ``record`` (added, updated or set it), None when no turn did
    (a memory added through the API, written before turns were numbered, or by maintenance)."""
    value = record.metadata.get(TURN_KEY) if isinstance(record.metadata, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def turns_of(one: Record, other: Record) -> tuple[int, int] | None:
    """The turn numbers of two memories of one scope (one sequence counts them), or None when either has none."""
    if (one.user_id, one.agent_id) != (other.user_id, other.agent_id):
        return None
    a, b = turn_of(one), turn_of(other)
    return None if a is None or b is None else (a, b)


def same_turn(one: Record, other: Record) -> bool | None:
    """Whether two memories of one scope were said by one managed turn; None when either has no number."""
    numbered = turns_of(one, other)
    return None if numbered is None else numbered[0] == numbered[1]
