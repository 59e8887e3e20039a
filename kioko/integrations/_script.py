"""What a scripted stand-in model works with: the tool call a script may return, one recorded model call,
the script's type and the user's latest words. Shared by :mod:`kioko.integrations.scripted` and its Agno
half, so neither imports the other for them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Call", "Script", "ToolCall", "latest_user_text"]


@dataclass(frozen=True)
class ToolCall:
    """What a script returns to call a tool before replying."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Call:
    """One model call as the script saw it."""

    instructions: str
    user_text: str
    tool_results: tuple[str, ...]


Script = Callable[[str, str, list[str]], "str | ToolCall"]


def latest_user_text(items: Any) -> str:
    """The text of the last user message of an input (a string or a list of items / message objects)."""
    if isinstance(items, str):
        return items
    for item in reversed(list(items or [])):
        role = item.get("role") if isinstance(item, dict) else getattr(item, "role", None)
        if role != "user":
            continue
        content = item.get("content") if isinstance(item, dict) else getattr(item, "content", None)
        if isinstance(content, list):
            return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        return "" if content is None else str(content)
    return ""
