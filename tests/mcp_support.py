"""Helpers the MCP test modules share: the tool list and the SDK's in-memory client.

Import it after ``pytest.importorskip("mcp", ...)``: it imports the SDK.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp import Client

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
