"""The parts of a layer the algorithms use, as Protocols: recall, the sections, feedback, relinking, the graph
and the typed managers take one of these instead of the whole :class:`~kioko_core.layer.memory_layer.MemoryLayer`.

So none of them imports the layer back (the layer imports them), and each says what it touches:
:class:`LayerParts` is the store and the caches over it (read and link), :class:`ScopedParts` adds the
layer's scope resolution and its secret screen, :class:`KindsHost` adds the layer's writes, which the
typed managers go through so that linking, isolation and the checks stay in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from kioko_core.embedding.embedders import Embedder
    from kioko_core.graph.entities import EntityGraph
    from kioko_core.linking.index import IndexCache
    from kioko_core.linking.linker import MemoryLinker
    from kioko_core.linking.links import MemoryLink
    from kioko_core.privacy.secrets import DropSecrets
    from kioko_core.store import Record, Scope, Store


class LayerParts(Protocol):
    """The store and what the layer keeps over it: what retrieval, linking and feedback read."""

    @property
    def store(self) -> Store: ...

    @property
    def index(self) -> IndexCache: ...

    @property
    def linker(self) -> MemoryLinker: ...

    @property
    def entities(self) -> EntityGraph: ...

    @property
    def embedder(self) -> Embedder: ...

    def get(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Record:
        """The memory, or :class:`~kioko_core.errors.MemoryNotFound` if it is not in this scope."""
        ...


class ScopedParts(LayerParts, Protocol):
    """:class:`LayerParts` and the layer's scope resolution (a scoped view's user) and secret screen."""

    @property
    def secrets(self) -> DropSecrets: ...

    def _scope(self, user_id: str | None, agent_id: str | None) -> Scope: ...


class KindsHost(ScopedParts, Protocol):
    """What a typed manager writes through: the layer's own add, update, delete and feedback."""

    def add(
        self,
        content: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        memory_type: str = "factual",
        metadata: dict[str, Any] | None = None,
        created_at: float | datetime | None = None,
        id: str | None = None,
        embedding: Any = None,
    ) -> Record: ...

    def _add(
        self,
        content: str,
        *,
        user_id: str | None,
        agent_id: str | None,
        session_id: str | None,
        memory_type: str,
        metadata: dict[str, Any] | None,
        created_at: float | datetime | None,
        id: str | None,
        embedding: Any,
        replace: bool,
    ) -> Record: ...

    def _update(
        self, memory_id: str, scope: Scope, change: Callable[[Record], tuple[str | None, dict[str, Any] | None]]
    ) -> Record: ...

    def delete(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> bool: ...

    def _purging_once(self, maintaining: bool = False) -> AbstractContextManager[None]: ...

    def feedback(
        self,
        worked: bool = True,
        *,
        user_id: str | None = None,
        credited: str | None = None,
        session_id: str | None = None,
        context: Any = None,
        agent_id: str | None = None,
        now: float | None = None,
    ) -> list[MemoryLink]: ...


__all__ = ["KindsHost", "LayerParts", "ScopedParts"]
