"""AsyncRemoteMemory driven as asyncio code would (the shared behaviour is in tests/service/test_surface.py)."""

from __future__ import annotations

import asyncio

import pytest
from ports import free_port
from service_support import live_service

from kioko.remote.async_client import AsyncRemoteMemory
from kioko_core.store import ConnectionLostError, InvalidRecordError

U = "kumar"


def test_async_calls_iterators_and_views() -> None:
    async def scenario(url: str) -> None:
        async with AsyncRemoteMemory(url) as memory:
            first, second = await asyncio.gather(
                memory.add("Line 3 faults with error E-217.", user_id=U, memory_type="episodic", session_id="s1"),
                memory.add("The encoder cable on line 3 was loose.", user_id=U, memory_type="procedural"),
            )
            listed = [record.id async for record in memory.memories(user_id=U)]
            assert sorted(listed) == sorted([first.id, second.id])
            link = await memory.graph.link(second.id, first.id, "resolves", user_id=U)
            assert link.type == "resolves"
            kumar = memory.scoped(user_id=U)
            goal = await kumar.goals.add("Keep line 3 running")
            assert [g.id for g in await kumar.goals.open()] == [goal.id]
            with pytest.raises(InvalidRecordError):
                await kumar.get(goal.id, user_id="someone-else")
            lines = [line async for line in memory.export_lines(U)]
            assert any(first.id in line for line in lines)
            assert await memory.delete(first.id, user_id=U) is True
            assert await memory.delete(first.id, user_id=U) is False
            assert await memory.intelligence.enabled() is False

    with live_service("memory://") as (server, _):
        asyncio.run(scenario(server.url))


def test_an_unreachable_server_is_a_connection_lost_error() -> None:
    port = free_port()  # closed again below: nothing listens there

    async def call() -> None:
        async with AsyncRemoteMemory(f"http://127.0.0.1:{port}", retries=1, backoff=0.01, timeout=2) as memory:
            await memory.recall("anything", user_id=U)

    with pytest.raises(ConnectionLostError, match="did not answer"):
        asyncio.run(call())
