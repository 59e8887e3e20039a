"""Helpers the MCP test modules share: the tool list, the SDK's in-memory client, and ``ToolMemory`` (the calls of
``kioko.Memory`` that MCP offers, as tool calls: the surface suite's MCP surface).

Import it after ``pytest.importorskip("mcp", ...)``: it imports the SDK.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import anyio
from mcp import Client

from kioko.api.wire import link_in, record_in
from kioko.mcp_server import create_server
from kioko.remote.calls import report
from kioko_core.errors import KiokoError
from kioko_core.linking.links import MemoryLink
from kioko_core.store import Record

TOOLS = {
    "add_memory",
    "get_memory",
    "list_memories",
    "update_memory",
    "pin_memory",
    "search_memories",
    "get_memory_context",
    "explore_memories",
    "learn_from_conversation",
    "link_memories",
    "forget_memory",
    "forget_about",
}


def run(server: Any, script: Any) -> Any:
    """Run ``script(client)`` against ``server`` with the SDK's in-memory client."""

    async def main() -> Any:
        async with Client(server) as client:
            return await script(client)

    return anyio.run(main)


def result(call: Any) -> Any:
    """A tool's structured result (the SDK wraps a list or a string as {"result": ...})."""
    assert not call.is_error, call.content[0].text
    data = call.structured_content
    return data["result"] if isinstance(data, dict) and set(data) == {"result"} else data


class ToolRefused(KiokoError):
    """A tool's error as the client receives it: MCP carries the sentence, not the error's type."""


class ToolGraph:
    """``memory.graph`` as far as the tools reach: ``link`` (``link_memories``)."""

    def __init__(self, tools: ToolMemory) -> None:
        self._tools = tools

    def link(
        self, a: str, b: str, type: str = "related_to", weight: float = 1.0, why: str = "", *, user_id: str
    ) -> MemoryLink:
        answer = self._tools.call(user_id, "link_memories", source_id=a, target_id=b, type=type, why=why, weight=weight)
        return link_in(answer)


class ToolMemory:
    """The calls of ``kioko.Memory`` that Kioko's MCP server offers, made as tool calls through the SDK's client
    (an in-memory session per call) to ``create_server(memory, user_id)``: one server per user, since a server
    acts for the user it was started for. Answers are decoded as RemoteMemory decodes the same JSON; a call with
    no tool is an AttributeError, so a surface test that needs one cannot run here by mistake."""

    refused = ToolRefused

    def __init__(self, memory: Any) -> None:
        self._memory = memory
        self._servers: dict[str, Any] = {}
        self.graph = ToolGraph(self)

    def call(self, user_id: str, tool: str, **arguments: Any) -> Any:
        server = self._servers.get(user_id)
        if server is None:
            server = self._servers[user_id] = create_server(self._memory, user_id)
        given = {k: v for k, v in arguments.items() if v is not None}
        answer = run(server, lambda client: client.call_tool(tool, given))
        if answer.is_error:
            raise ToolRefused(answer.content[0].text)
        if answer.structured_content is None:  # a tool answering text (get_memory_context)
            return answer.content[0].text
        return result(answer)

    def add(
        self,
        content: str,
        *,
        user_id: str,
        memory_type: str | None = None,
        session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Record:
        kind = memory_type
        return record_in(
            self.call(
                user_id, "add_memory", content=content, memory_type=kind, session_id=session_id, metadata=metadata
            )
        )

    def get(self, memory_id: str, *, user_id: str) -> Record:
        return record_in(self.call(user_id, "get_memory", memory_id=memory_id))

    def update(
        self, memory_id: str, *, user_id: str, content: str | None = None, metadata: dict[str, Any] | None = None
    ) -> Record:
        return record_in(self.call(user_id, "update_memory", memory_id=memory_id, content=content, metadata=metadata))

    def delete(self, memory_id: str, *, user_id: str) -> bool:
        return self.call(user_id, "forget_memory", memory_id=memory_id) == {"deleted": memory_id}

    def memories(self, *, user_id: str, kinds: set[str] | None = None) -> Iterator[Record]:
        found = self.call(user_id, "list_memories", memory_type=sorted(kinds) if kinds else None, limit=100)
        return iter([record_in(item) for item in found])

    def search(self, query: str, *, user_id: str, limit: int = 5) -> list[Record]:
        return [record_in(item) for item in self.call(user_id, "search_memories", query=query, limit=limit)]

    def recall(
        self,
        query: str,
        *,
        user_id: str,
        session_id: str | None = None,
        limit: int | None = None,
        links: int | None = None,
    ) -> Any:
        """Only the context's text travels (``get_memory_context`` answers text)."""
        text = self.call(user_id, "get_memory_context", query=query, session_id=session_id, limit=limit, links=links)
        return SimpleNamespace(text=text)

    def pin(self, memory_id: str, *, user_id: str) -> Record:
        return record_in(self.call(user_id, "pin_memory", memory_id=memory_id))

    def unpin(self, memory_id: str, *, user_id: str) -> Record:
        return record_in(self.call(user_id, "pin_memory", memory_id=memory_id, pinned=False))

    def learn(self, messages: Any, *, user_id: str, session_id: str | None = None, dry_run: bool = False) -> Any:
        return report(
            self.call(user_id, "learn_from_conversation", messages=messages, session_id=session_id, dry_run=dry_run)
        )

    def close(self) -> None:
        self._servers.clear()
