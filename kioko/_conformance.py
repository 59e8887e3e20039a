"""Checked by mypy, never run for its result: each surface is a :class:`kioko.Memory`, and every public name of the
three memories resolves to a declared method or property.

A change that makes one of them drift from the protocol (a keyword missing, a return type changed), or a manager
or an intelligence call that is no longer declared on a class (only attached at run time), fails ``mypy`` here;
tests/service/test_surface.py checks the same at run time.
"""

from __future__ import annotations

from typing import Any

from kioko.protocol import Entities, IntelligenceCalls, Memory, MemoryGraph
from kioko.remote.async_client import AsyncRemoteMemory
from kioko.remote.client import RemoteEntities, RemoteGraph, RemoteMemory
from kioko_core.graph.entities import EntityGraph, Triple
from kioko_core.graph.facade import Graph
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.linking.links import MemoryLink
from kioko_core.recall.hybrid import Context
from kioko_core.store import Record
from kioko_intelligence.ops import ManageReport
from kioko_intelligence.pins import StablePrefix
from kioko_intelligence.planner import RecallPlan
from kioko_intelligence.surface import IntelligentMemory


def layer_is_memory(layer: IntelligentMemory) -> Memory:
    """``kioko.MemoryLayer`` (what ``kioko.connect`` and ``kioko.intelligent`` build) is a Memory."""
    return layer


def remote_is_memory(remote: RemoteMemory) -> Memory:
    return remote


def graphs_are_memory_graphs(local: Graph, remote: RemoteGraph) -> tuple[MemoryGraph, MemoryGraph]:
    return local, remote


def entity_graphs_are_entities(local: EntityGraph, remote: RemoteEntities) -> tuple[Entities, Entities]:
    return local, remote


def intelligence_calls_are_typed(calls: IntelligentMemory) -> IntelligenceCalls:
    return calls


def core_layer_has_its_managers(layer: MemoryLayer) -> tuple[Record, list[Record], Record]:
    """The core's layer declares every manager (its intelligence calls are IntelligentMemory's, not its own)."""
    goal = layer.goals.add("ship the release", user_id="u", due="2026-12-31")
    lesson = layer.lessons.add("small releases go out on time", user_id="u")
    return goal, layer.decisions.current(user_id="u"), lesson


def managers_and_calls(memory: IntelligentMemory | RemoteMemory) -> tuple[Any, ...]:
    """Every manager and every intelligence call of the local layer and of RemoteMemory, with their return types."""
    goal: Record = memory.goals.add("ship the release", user_id="u", due="2026-12-31")
    memory.goals.progress(goal.id, 0.5, user_id="u")
    decision: Record = memory.decisions.add("use PostgreSQL", user_id="u")
    steps: Record = memory.procedures.add("deploy", ["build", "ship"], user_id="u")
    lesson: Record = memory.lessons.add("small releases go out on time", user_id="u")
    memory.strategies.list(user_id="u")
    memory.skills.add("writes SQL", user_id="u")
    memory.episodes.add("shipped 0.1", user_id="u")
    memory.facts.add("Kumar lives in Pune", user_id="u")
    memory.preferences.add("green tea", user_id="u")
    memory.knowledge.add("PostgreSQL has MVCC", user_id="u")
    memory.insights.add("releases slip on Fridays", user_id="u")
    memory.summaries.list(user_id="u")
    memory.instructions.add("answer briefly", user_id="u")
    memory.profile.set("name", "Kumar", user_id="u")
    memory.working.set("task", "release", user_id="u", session_id="s")
    managed: ManageReport = memory.manage("I prefer green tea", user_id="u", dry_run=True)
    turn: ManageReport = memory.record_turn("I live in Pune", "Noted", user_id="u", session_id="s")
    learned: ManageReport = memory.learn([{"role": "user", "content": "hi"}], user_id="u")
    plan: RecallPlan = memory.plan("what do I drink?", user_id="u")
    pinned: Record = memory.pin(goal.id, user_id="u")
    memory.unpin(goal.id, user_id="u")
    pins: list[Record] = memory.pinned(user_id="u")
    prefix: StablePrefix = memory.kv(user_id="u")
    episode: Record | None = memory.end_session("s", user_id="u")
    reflected: dict[str, Any] = memory.reflect(user_id="u")
    maintained: dict[str, Any] = memory.maintain(user_id="u", tasks=["tend"])
    callback = memory.on("memory.managed", print)
    memory.off("memory.managed", callback)
    return (
        goal,
        decision,
        steps,
        lesson,
        managed,
        turn,
        learned,
        plan,
        pinned,
        pins,
        prefix,
        episode,
        reflected,
        maintained,
    )


async def async_client_is_typed(memory: AsyncRemoteMemory) -> tuple[Any, ...]:
    """AsyncRemoteMemory's calls, its managers' and its graphs' have the library's parameters and, awaited, its
    return types (a drifted keyword or type, or a manager no longer declared, fails mypy here)."""
    goal: Record = await memory.goals.add("ship the release", user_id="u", due="2026-12-31")
    lesson: Record = await memory.lessons.add("small releases go out on time", user_id="u")
    await memory.working.set("task", "release", user_id="u", session_id="s")
    await memory.profile.set("name", "Kumar", user_id="u")
    link: MemoryLink = await memory.graph.link(goal.id, goal.id, "related_to", user_id="u")
    triples: list[Triple] = await memory.entities.relations("kioko", user_id="u", as_of=None)
    context: Context = await memory.recall("release", user_id="u", options=None)
    managed: ManageReport = await memory.manage("I prefer green tea", user_id="u", dry_run=True)
    turn: ManageReport = await memory.record_turn("I live in Pune", "Noted", user_id="u")
    plan: RecallPlan = await memory.plan("what do I drink?", user_id="u")
    prefix: StablePrefix = await memory.kv(user_id="u")
    maintained: dict[str, Any] = await memory.maintain(user_id="u")
    return goal, lesson, link, triples, context, managed, turn, plan, prefix, maintained
