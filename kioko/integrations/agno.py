"""Kioko in Agno (``pip install 'kioko[agno]'``): :class:`KiokoTools`, a toolkit, and :func:`kioko.attach`.

Agno's own ``MemoryManager`` reads memories back by recency only; this toolkit (and ``attach``) keeps
Kioko's recall, with its links and reasons, between the agent and what it remembers.
"""

from __future__ import annotations

from typing import Any

from kioko.integrations.memory import Memory
from kioko.integrations.tools import memory_tools
from kioko_core.errors import MissingExtraError

try:
    from agno.tools import Toolkit
except ImportError as error:  # pragma: no cover - depends on the environment
    raise MissingExtraError(f"KiokoTools needs Agno: pip install 'kioko[agno]' ({error})") from None

__all__ = ["KiokoTools"]


class KiokoTools(Toolkit):  # type: ignore[misc]
    """``recall``, ``remember`` and ``forget`` for an Agno agent, acting for ``user_id`` only."""

    def __init__(self, memory: Memory, user_id: str, *, links: int = 3, limit: int = 8, **toolkit: Any) -> None:
        self.memory = memory
        self.user_id = user_id
        super().__init__(name="kioko_memory", tools=memory_tools(memory, user_id, links=links, limit=limit), **toolkit)
