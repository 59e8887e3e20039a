"""Checked by mypy, never run for its result: each surface is a :class:`kioko.Memory`.

A change that makes one of them drift from the protocol (a keyword missing, a return type changed) fails
``mypy`` here; tests/service/test_surface.py checks the same at run time.
"""

from __future__ import annotations

from kioko.protocol import Entities, IntelligenceCalls, Memory, MemoryGraph
from kioko.remote.async_client import AsyncRemoteMemory
from kioko.remote.client import RemoteEntities, RemoteGraph, RemoteMemory
from kioko_core.graph.entities import EntityGraph, Triple
from kioko_core.graph.facade import Graph
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.linking.links import MemoryLink
from kioko_core.recall.hybrid import Context
from kioko_core.store import Record
from kioko_intelligence.surface import IntelligentMemory


def layer_is_memory(layer: MemoryLayer) -> Memory:
    return layer


def remote_is_memory(remote: RemoteMemory) -> Memory:
    return remote


def graphs_are_memory_graphs(local: Graph, remote: RemoteGraph) -> tuple[MemoryGraph, MemoryGraph]:
    return local, remote


def entity_graphs_are_entities(local: EntityGraph, remote: RemoteEntities) -> tuple[Entities, Entities]:
    return local, remote


def intelligence_calls_are_typed(calls: IntelligentMemory) -> IntelligenceCalls:
    """The layer declares the calls the intelligence installs as ``Callable[..., Any]`` (they are bound at run
    time); their implementation is checked here, signature by signature."""
    return calls


async def async_client_is_typed(memory: AsyncRemoteMemory) -> tuple[Record, MemoryLink, list[Triple], Context]:
    """AsyncRemoteMemory's calls, its managers' and its graphs' have the library's parameters and, awaited, its
    return types (a drifted keyword or type fails mypy here)."""
    goal = await memory.goals.add("ship the release", user_id="u", due="2026-12-31")
    link = await memory.graph.link(goal.id, goal.id, "related_to", user_id="u")
    triples = await memory.entities.relations("kioko", user_id="u", as_of=None)
    context = await memory.recall("release", user_id="u", options=None)
    return goal, link, triples, context
