"""The memory tools an agent is given, as plain functions any framework can wrap: ``recall``,
``remember`` and ``forget``, bound to one user (the model never names a user)."""

from __future__ import annotations

from collections.abc import Callable

from kioko.integrations.memory import Memory
from kioko_core.errors import KiokoError, SecretDropped

__all__ = ["memory_tools"]


def memory_tools(memory: Memory, user_id: str, *, links: int = 3, limit: int = 8) -> list[Callable[..., str]]:
    """``recall``, ``remember`` and ``forget`` for an agent, acting for ``user_id`` only.

    A refusal (a secret in what was to be remembered, an id not of this user) comes back to the model as
    the tool's answer, so it can say so; nothing of another user is ever read or changed.
    """

    def recall(query: str) -> str:
        """Search the user's long-term memory. Returns the relevant memories, how they connect, and why.

        Args:
            query: What to look for, in the user's words.
        """
        context = memory.recall(query, user_id=user_id, links=links, limit=limit)
        lines = [context.text.strip() or "Nothing relevant remembered."]
        for recalled in context.memories:
            if "rrf" in recalled.signals or "linked" in recalled.signals:
                why = ", ".join(f"{name} {value:g}" for name, value in recalled.signals.items() if name != "rrf")
                lines.append(f"- [{recalled.record.id}] {recalled.record.content} ({why})")
        return "\n".join(lines)

    def remember(text: str, kind: str = "fact") -> str:
        """Store something worth remembering about the user or the work, for later conversations.

        Args:
            text: The memory, as one self-contained sentence.
            kind: fact, preference, decision, goal, procedure or episode.
        """
        try:
            record = memory.add(text, user_id=user_id, memory_type=kind)
        except SecretDropped as refused:
            return f"Not stored: {refused}"
        except KiokoError as error:
            return f"Not stored: {error}"
        return f"Remembered ({record.kind}) as {record.id}."

    def forget(memory_id: str) -> str:
        """Delete one memory of the user by its id (as recall shows it in brackets).

        Args:
            memory_id: The id of the memory to delete.
        """
        try:
            deleted = memory.delete(memory_id, user_id=user_id)
        except KiokoError as error:
            return f"Not deleted: {error}"
        return "Forgotten." if deleted else f"No memory {memory_id} of this user."

    return [recall, remember, forget]
