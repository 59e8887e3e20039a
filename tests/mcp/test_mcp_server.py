"""The MCP server through the SDK's own client (in-process): its tools, resources, errors and isolation."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp", reason="the MCP tests need the mcp extra: pip install 'kioko[mcp]'")
from mcp import Client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp_support import TOOLS, result, run  # noqa: E402

import kioko  # noqa: E402
from kioko.cli import run_quick_start  # noqa: E402
from kioko.mcp_server import LinkType, MemoryType, create_server  # noqa: E402
from kioko_core.kinds.registry import KINDS, MEMORY_TYPES  # noqa: E402
from kioko_core.linking import links  # noqa: E402

ALIASES = [alias for info in KINDS for alias in info.aliases]


@pytest.fixture
def seeded() -> Any:
    memory = kioko.connect("memory://", auto_link=True)
    ids = run_quick_start(memory, "kumar", out=io.StringIO())
    yield memory, ids
    memory.close()


def test_the_typed_choices_match_the_core() -> None:
    # every kind and alias of the registry (keyed kinds have their own calls), as the CLI accepts them
    assert set(MemoryType.__args__) == (MEMORY_TYPES | set(ALIASES)) - {"profile", "working"}
    assert {"lesson", "fact", "knowledge"} <= set(MemoryType.__args__)
    assert set(LinkType.__args__) == set(links.LINK_TYPES)


def test_tools_are_listed_with_schemas_and_no_way_to_name_a_user(seeded: Any) -> None:
    memory, _ = seeded
    tools = run(create_server(memory, "kumar"), lambda c: c.list_tools()).tools
    assert {t.name for t in tools} == TOOLS
    for tool in tools:
        assert tool.description
        assert not {"user_id", "user", "agent_id"} & set(tool.input_schema.get("properties", {})), tool.name
    add = next(t for t in tools if t.name == "add_memory")
    assert "decision" in add.input_schema["properties"]["memory_type"]["enum"]


def test_every_tool_called(seeded: Any) -> None:
    memory, ids = seeded

    async def script(c: Client) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["add"] = result(
            await c.call_tool(
                "add_memory",
                {
                    "content": "The E-217 fault on line 3 went away after replacing the encoder cable.",
                    "memory_type": "episodic",
                    "session_id": "s1",
                },
            )
        )
        out["search"] = result(await c.call_tool("search_memories", {"query": "encoder cable", "limit": 3}))
        out["context"] = result(await c.call_tool("get_memory_context", {"query": "line 3 is faulting with E-217"}))
        out["explore"] = result(await c.call_tool("explore_memories", {"query": "encoder cable loose"}))
        out["learn"] = result(
            await c.call_tool(
                "learn_from_conversation",
                {
                    "messages": [
                        {"role": "user", "content": "The spare encoder cables are in cabinet B."},
                        {"role": "assistant", "content": "Noted."},
                    ],
                    "session_id": "s2",
                },
            )
        )
        out["link"] = result(
            await c.call_tool(
                "link_memories",
                {"source_id": ids["procedure"], "target_id": ids["fault"], "type": "applies_to", "why": "same line"},
            )
        )
        out["forget"] = result(await c.call_tool("forget_memory", {"memory_id": ids["tea"]}))
        out["forget_again"] = await c.call_tool("forget_memory", {"memory_id": ids["tea"]})
        return out

    out = run(create_server(memory, "kumar"), script)
    added = out["add"]
    assert added["kind"] == "episodic"
    assert added["user_id"] == "kumar"
    assert added["links"]  # linked at write time, with the evidence
    assert all(k["why"] for k in added["links"])
    assert memory.get(added["id"], user_id="kumar").content.startswith("The E-217 fault")
    assert ids["fix"] in [m["id"] for m in out["search"]]
    assert len(out["search"]) <= 3
    assert "Line 3 keeps faulting with error E-217" in out["context"]
    assert "How these memories connect:" in out["context"]
    explore = out["explore"]
    assert explore["match"]["id"] == ids["fix"]
    assert {k["target"] for k in explore["links"]} >= {ids["fault"], ids["jam"]}
    assert all(k["why"] and k["line"] for k in explore["links"])
    assert explore["related"]
    assert all(r["path"] for r in explore["related"])
    learned = out["learn"]
    assert learned["router"] == "plain"
    assert [op["status"] for op in learned["ops"]] == ["applied"]
    assert any(
        r.content == "The spare encoder cables are in cabinet B." and r.session_id == "s2"
        for r in memory.memories(user_id="kumar")
    )
    assert out["link"]["by"] == "manual"
    assert out["link"]["type"] == "applies_to"
    assert any(
        k.target == ids["fault"] and k.by == "manual" for k in memory.graph.links(ids["procedure"], user_id="kumar")
    )
    assert out["forget"] == {"deleted": ids["tea"]}
    assert out["forget_again"].is_error
    assert out["forget_again"].content[0].text == f"no memory {ids['tea']!r}"  # said once, not nested in itself


def test_learning_goes_through_the_intelligence_when_it_is_on() -> None:
    from kioko.mcp_server import open_memory

    plain = open_memory("memory://")
    assert plain.auto_link
    assert plain.intelligence is None
    plain.close()
    with open_memory("memory://", intelligence=True) as memory:  # what `kioko mcp --intelligence` serves
        report = run(
            create_server(memory, "kumar"),
            lambda c: c.call_tool("learn_from_conversation", {"messages": "I'm Kumar, I live in Pune."}),
        )
        ops = result(report)["ops"]
        assert result(report)["router"] != "plain"
        assert [op["op"] for op in ops if op["op"] == "profile.set"] == ["profile.set", "profile.set"]
        assert memory.profile.all(user_id="kumar") == {"name": "Kumar", "location": "Pune"}


def test_context_follows_the_recall_plan_when_intelligence_is_on() -> None:
    from kioko.mcp_server import open_memory

    with open_memory("memory://", intelligence=True) as memory:
        run_quick_start(memory, "kumar", out=io.StringIO())
        server = create_server(memory, "kumar")
        for query in ("thanks!", "how do I fix fault E-217 on line 3?", "why did we choose Qdrant?"):
            planned = memory.recall(query, user_id="kumar")
            assert planned.plan is not None
            text = result(run(server, lambda c, q=query: c.call_tool("get_memory_context", {"query": q})))
            assert text == planned.text
        # a decision question: the plan fills the decision section, which an unplanned recall leaves out
        why = "why did we choose Qdrant?"
        assert memory.recall(why, user_id="kumar").text != memory.recall(why, user_id="kumar", plan=False).text


def test_bad_input_is_a_tool_error_and_writes_nothing(seeded: Any) -> None:
    memory, ids = seeded
    before = len(list(memory.memories(user_id="kumar")))

    async def script(c: Client) -> list[Any]:
        return [
            await c.call_tool("add_memory", {"content": "x", "memory_type": "rumour"}),
            await c.call_tool("add_memory", {"content": ""}),
            await c.call_tool("add_memory", {"content": "my password is hunter2-Secret!"}),
            await c.call_tool("link_memories", {"source_id": ids["fix"], "target_id": "nope"}),
            await c.call_tool("link_memories", {"source_id": ids["fix"], "target_id": ids["fault"], "type": "likes"}),
            await c.call_tool("search_memories", {"query": "cable", "limit": 0}),
            await c.call_tool("no_such_tool", {}),
        ]

    calls = run(create_server(memory, "kumar"), script)
    assert all(call.is_error for call in calls)
    assert "no memory 'nope'" in calls[3].content[0].text
    assert len(list(memory.memories(user_id="kumar"))) == before


def test_resources_a_memory_and_the_goals(seeded: Any) -> None:
    memory, ids = seeded

    async def script(c: Client) -> Any:
        one = await c.read_resource(f"kioko://memories/{ids['fix']}")
        goals = await c.read_resource("kioko://goals")
        with pytest.raises(MCPError, match="no memory"):
            await c.read_resource("kioko://memories/not-an-id")
        return json.loads(one.contents[0].text), json.loads(goals.contents[0].text)

    one, goals = run(create_server(memory, "kumar"), script)
    assert one["id"] == ids["fix"]
    assert one["links"]
    assert "embedding" not in one
    assert [g["id"] for g in goals] == [ids["goal"]]


def test_two_users_servers_on_one_store_never_see_each_other(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    with kioko.connect(url, auto_link=True) as memory:
        alice = memory.add("Alice's locker code is kept in the blue binder.", user_id="alice")
        alice_goal = memory.goals.add("Finish the Q3 audit", user_id="alice")
        bob = create_server(memory, "bob")

        async def script(c: Client) -> dict[str, Any]:
            out = {
                "search": result(await c.call_tool("search_memories", {"query": "locker code blue binder"})),
                "context": result(await c.call_tool("get_memory_context", {"query": "Alice locker code"})),
                "explore": result(await c.call_tool("explore_memories", {"query": "locker code"})),
                "goals": json.loads((await c.read_resource("kioko://goals")).contents[0].text),
                "forget": await c.call_tool("forget_memory", {"memory_id": alice.id}),
                "link": await c.call_tool("link_memories", {"source_id": alice.id, "target_id": alice_goal.id}),
                "smuggled": await c.call_tool("search_memories", {"query": "locker", "user_id": "alice"}),
            }
            with pytest.raises(MCPError):
                await c.read_resource(f"kioko://memories/{alice.id}")
            return out

        out = run(bob, script)
        assert out["search"] == []
        assert out["explore"]["match"] is None
        assert out["goals"] == []
        assert "locker" not in out["context"]
        assert out["forget"].is_error
        assert out["link"].is_error
        # an extra argument naming a user is refused by the schema or ignored; it never switches user
        smuggled = out["smuggled"]
        assert smuggled.is_error or result(smuggled) == []
        assert memory.get(alice.id, user_id="alice").content.startswith("Alice's locker")
        assert memory.graph.links(alice.id, user_id="alice") == []


def test_kioko_mcp_over_stdio_serves_the_user_it_was_started_for(tmp_path: Path) -> None:
    """`kioko mcp` in its own process, driven by the SDK's stdio client, as a desktop client would."""
    import sys

    from mcp import StdioServerParameters

    url = f"sqlite:///{tmp_path / 'stdio.db'}"
    with kioko.connect(url, auto_link=True) as memory:
        memory.add("Alice keeps the spare keys in the red box.", user_id="alice")
    command = StdioServerParameters(
        command=sys.executable,
        cwd=str(Path(__file__).resolve().parents[2]),
        args=["-m", "kioko", "mcp", "--store", url, "--user", "kumar"],
    )

    async def script(c: Client) -> Any:
        added = result(
            await c.call_tool(
                "add_memory", {"content": "Kumar keeps the spare keys in the blue box.", "memory_type": "factual"}
            )
        )
        found = result(await c.call_tool("search_memories", {"query": "spare keys box"}))
        return added, found

    added, found = run(command, script)
    assert added["user_id"] == "kumar"
    assert [m["content"] for m in found] == ["Kumar keeps the spare keys in the blue box."]
    with kioko.connect(url) as memory:
        assert memory.get(added["id"], user_id="kumar").content.startswith("Kumar keeps")
