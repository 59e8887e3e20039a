"""The MCP tools against the library they call, through the SDK's client: each tool's arguments are named as
the library's parameters (a tool or an argument with no counterpart fails here until it is declared), and on
memory://, SQLite and a Kioko service (RemoteMemory to a real server on loopback) each tool answers what the
memory it serves answers for the same call."""

from __future__ import annotations

import inspect
import io
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP tests need the mcp extra: pip install 'kioko[mcp]'")
from mcp import Client  # noqa: E402
from mcp_support import result, run  # noqa: E402

import kioko  # noqa: E402
from kioko.cli import run_quick_start  # noqa: E402
from kioko.mcp_server import create_server  # noqa: E402
from kioko.views import link_view, memory_view  # noqa: E402

# tool -> (the library call it makes, {tool argument: library parameter}); arguments listed under None are
# the tool's own (they shape its answer, the library has no such parameter)
CALLS: dict[str, tuple[str, dict[str, str | None]]] = {
    "add_memory": (
        "add",
        {"content": "content", "memory_type": "memory_type", "session_id": "session_id", "metadata": "metadata"},
    ),
    "get_memory": ("get", {"memory_id": "memory_id"}),
    "list_memories": ("memories", {"memory_type": "kinds", "session_id": None, "text": None, "limit": None}),
    "update_memory": ("update", {"memory_id": "memory_id", "content": "content", "metadata": "metadata"}),
    "pin_memory": ("pin", {"memory_id": "memory_id", "pinned": None}),
    "search_memories": ("search", {"query": "query", "limit": "limit"}),
    "get_memory_context": (
        "recall",
        {"query": "query", "limit": "limit", "links": "links", "session_id": "session_id", "budget": "budget"},
    ),
    "explore_memories": ("graph.related", {"query": None, "depth": "depth", "limit": "limit"}),
    "learn_from_conversation": ("learn", {"messages": "messages", "session_id": "session_id", "dry_run": "dry_run"}),
    "link_memories": (
        "graph.link",
        {"source_id": "a", "target_id": "b", "type": "type", "why": "why", "weight": "weight"},
    ),
    "forget_memory": ("delete", {"memory_id": "memory_id"}),
    "forget_about": ("forget_about", {"subject": "subject", "dry_run": "dry_run"}),
}


# library parameters no tool offers, and why; a parameter the library gains fails the test until it is here or
# offered by its tool (the user and agent are the server's, fixed when it starts, on every call)
NOT_OFFERED: dict[str, set[str]] = {
    "add": {"created_at", "id", "embedding"},  # the server stamps the time and the id and embeds the text
    "recall": {"include_shared", "config", "plan", "section_limits", "fill_recent", "options"},  # the server's tuning
    "graph.related": {"memory_id"},  # explore_memories starts from the best match to a query
}
SCOPE = {"user_id", "agent_id"}


def library_parameters(memory: Any, path: str) -> dict[str, inspect.Parameter]:
    target = memory
    for part in path.split("."):
        target = getattr(target, part)
    return dict(inspect.signature(target).parameters)


def test_every_tool_argument_is_a_library_parameter() -> None:
    with kioko.connect("memory://", auto_link=True) as memory:
        tools = {t.name: t for t in run(create_server(memory, "kumar"), lambda c: c.list_tools()).tools}
        assert set(tools) == set(CALLS)  # a new tool needs its line in CALLS
        for name, tool in tools.items():
            method, arguments = CALLS[name]
            given = tool.input_schema.get("properties", {})
            assert set(given) == set(arguments), name  # a new argument needs its mapping
            parameters = library_parameters(memory, method)
            offered = {p for p in arguments.values() if p is not None}
            assert set(parameters) - SCOPE - offered == NOT_OFFERED.get(method, set()), name
            for argument, parameter in arguments.items():
                if parameter is None:
                    continue
                assert parameter in parameters, (name, argument, method)
                default = parameters[parameter].default
                # where the tool says nothing, the library's default applies
                if argument not in tool.input_schema.get("required", []) and default is not inspect.Parameter.empty:
                    if name not in ("search_memories", "explore_memories"):  # their caps suit a model's context
                        assert given[argument].get("default") == default, (name, argument)


@pytest.fixture(params=["memory", "sqlite", "service"])
def seeded(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """The store the MCP server serves: a layer, or (``kioko mcp --store http://...``) a Kioko service's
    client talking to a real server on loopback."""
    if request.param == "service":
        from kioko.http import create_app
        from kioko.http.live import LiveServer
        from kioko.remote.client import RemoteMemory

        layer = kioko.connect("memory://", auto_link=True)
        with LiveServer(create_app(layer)) as live, RemoteMemory(live.url) as remote:
            yield remote, run_quick_start(remote, "kumar", out=io.StringIO())
        layer.close()
        return
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'parity.db'}"
    memory = kioko.connect(url, auto_link=True)
    ids = run_quick_start(memory, "kumar", out=io.StringIO())
    yield memory, ids
    memory.close()


def test_each_tool_answers_what_the_library_answers(seeded: Any) -> None:
    memory, ids = seeded
    me = {"user_id": "kumar"}

    async def reads(c: Client) -> dict[str, Any]:
        return {
            "get": result(await c.call_tool("get_memory", {"memory_id": ids["fault"]})),
            "list": result(await c.call_tool("list_memories", {"limit": 100})),
            "search": result(await c.call_tool("search_memories", {"query": "conveyor jam line 3", "limit": 4})),
            "context": result(await c.call_tool("get_memory_context", {"query": "E-217 on line 3", "links": 2})),
            "explore": result(await c.call_tool("explore_memories", {"query": "encoder cable", "depth": 2})),
        }

    server = create_server(memory, "kumar")
    got = run(server, reads)
    assert got["get"] == memory_view(memory.get(ids["fault"], **me), links=memory.graph.links(ids["fault"], **me))
    listed = sorted(memory.memories(**me), key=lambda r: (-r.created_at, r.id))
    assert got["list"] == [memory_view(r) for r in listed]
    assert [m["id"] for m in got["search"]] == [r.id for r in memory.search("conveyor jam line 3", limit=4, **me)]
    assert got["context"] == memory.recall("E-217 on line 3", links=2, **me).text
    best = memory.search("encoder cable", limit=1, **me)[0]
    assert got["explore"]["match"]["id"] == best.id
    assert got["explore"]["links"] == [link_view(k) for k in memory.graph.links(best.id, **me)]
    related = memory.graph.related(best.id, depth=2, limit=8, **me)
    assert [r["id"] for r in got["explore"]["related"]] == [item.record.id for item in related]

    async def writes(c: Client) -> dict[str, Any]:
        return {
            "add": result(
                await c.call_tool(
                    "add_memory",
                    {
                        "content": "Always lock out the drive before opening the guard.",
                        "memory_type": "lesson",
                        "metadata": {"source": "shift log", "shift": 2},
                    },
                )
            ),
            "update": result(await c.call_tool("update_memory", {"memory_id": ids["tea"], "metadata": {"cups": 3}})),
            "pin": result(await c.call_tool("pin_memory", {"memory_id": ids["plc"]})),
            "link": result(
                await c.call_tool(
                    "link_memories", {"source_id": ids["procedure"], "target_id": ids["plc"], "type": "concerns"}
                )
            ),
            "forget": result(await c.call_tool("forget_memory", {"memory_id": ids["jam"]})),
        }

    done = run(server, writes)
    added = memory.get(done["add"]["id"], **me)
    assert added.kind == "strategy"  # the alias, stored as the library does
    assert done["add"]["kind"] == "strategy"
    assert done["add"] == memory_view(added, links=memory.graph.links(added.id, **me))
    assert added.metadata.get("source") == "shift log"
    assert done["add"]["metadata"] == {
        "source": "shift log",
        "shift": 2,
    }
    assert done["update"] == memory_view(memory.get(ids["tea"], **me), links=memory.graph.links(ids["tea"], **me))
    assert done["update"]["metadata"] == {"cups": 3}
    assert done["pin"]["pinned"] == [r.id for r in memory.pinned(**me)] == [ids["plc"]]
    assert any(k.type == "concerns" and k.by == "manual" for k in memory.graph.links(ids["procedure"], **me))
    assert done["forget"] == {"deleted": ids["jam"]}
    assert ids["jam"] not in {r.id for r in memory.memories(**me)}
