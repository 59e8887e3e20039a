"""memory.scoped(user_id=..., agent_id=...): the layer's calls with the scope bound."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from .store import Scope

if TYPE_CHECKING:
    from .layer import MemoryLayer

_SCOPED_CALLS = ("add", "get", "update", "delete", "recall", "context", "search", "feedback", "memories")
_SCOPED_GRAPH_CALLS = ("links", "explain", "link", "unlink", "connect", "prune", "merge", "related", "trace",
                       "memories")
_USER_ONLY_GRAPH_CALLS = ("add", "relations", "neighbors", "path")


class _Bound:
    def __init__(self, target: Any, names: tuple[str, ...], user_only: tuple[str, ...], scope: Scope) -> None:
        self._target, self._names, self._user_only, self._scope = target, names, user_only, scope

    def __getattr__(self, name: str) -> Any:
        call = getattr(self._target, name)
        if name in self._names:
            return functools.partial(call, user_id=self._scope.user_id, agent_id=self._scope.agent_id)
        if name in self._user_only:
            return functools.partial(call, user_id=self._scope.user_id)
        return call


class ScopedMemory(_Bound):
    """A MemoryLayer view for one user (and agent): every call takes its scope from here."""

    def __init__(self, layer: MemoryLayer, scope: Scope) -> None:
        super().__init__(layer, _SCOPED_CALLS, (), scope)
        self.graph = _Bound(layer.graph, _SCOPED_GRAPH_CALLS, _USER_ONLY_GRAPH_CALLS, scope)

    @property
    def scope(self) -> Scope:
        return self._scope

    def __repr__(self) -> str:
        return f"ScopedMemory({self._scope.user_id!r}, agent_id={self._scope.agent_id!r})"
