"""The part of Kioko's memory surface the integrations call, as a Protocol.

:class:`kioko.MemoryLayer` and :class:`kioko.remote.RemoteMemory` both have it, so every integration
works on a local store and on a Kioko service alike. It names only what the integrations use.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any, Protocol

from kioko_core.errors import MissingExtraError


class Memory(Protocol):
    """What an integration may call on a memory (keyword arguments as Kioko's own)."""

    def add(
        self,
        content: str,
        *,
        user_id: str,
        session_id: str | None = ...,
        memory_type: str = ...,
        metadata: dict[str, Any] | None = ...,
        id: str | None = ...,
    ) -> Any: ...

    def get(self, memory_id: str, *, user_id: str) -> Any: ...

    def update(
        self, memory_id: str, *, user_id: str, content: str | None = ..., metadata: dict[str, Any] | None = ...
    ) -> Any: ...

    def delete(self, memory_id: str, *, user_id: str) -> bool: ...

    def recall(
        self,
        query: str,
        *,
        user_id: str,
        session_id: str | None = ...,
        links: int | None = ...,
        limit: int | None = ...,
        config: Any = ...,
        plan: Any = ...,
    ) -> Any: ...

    def memories(self, *, user_id: str, kinds: set[str] | None = ...) -> Iterable[Any]: ...

    def record_turn(self, user: str, reply: str | None = ..., *, user_id: str, session_id: str | None = ...) -> Any: ...


def require(module: str, extra: str) -> Any:
    """Import a framework's module, or say which extra brings it (a :class:`MissingExtraError`)."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingExtraError(f"{module} is not installed: pip install 'kioko[{extra}]' ({error})") from None
