"""Issue 21's MCP part, through the SDK's own client: get, list, update and pin a memory; the kind names and
aliases of the registry; a refused call answers one sentence; an empty store answers a sentence; the two
prompts; descriptions a client can show as they are."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP tests need the mcp extra: pip install 'kioko[mcp]'")
from mcp import Client  # noqa: E402
from mcp_support import result, run  # noqa: E402

import kioko  # noqa: E402
from kioko.cli import run_quick_start  # noqa: E402
from kioko.mcp_server import create_server  # noqa: E402


@pytest.fixture
def seeded() -> Any:
    memory = kioko.connect("memory://", auto_link=True)
    ids = run_quick_start(memory, "kumar", out=io.StringIO())
    yield memory, ids
    memory.close()


def text_of(call: Any) -> str:
    assert call.is_error, call
    (content,) = call.content
    return str(content.text)


def test_get_list_update_and_pin_a_memory(seeded: Any) -> None:
    memory, ids = seeded
    memory.add("Kumar's badge number is 4471.", user_id="someone-else")

    async def script(c: Client) -> dict[str, Any]:
        return {
            "get": result(await c.call_tool("get_memory", {"memory_id": ids["fix"]})),
            "all": result(await c.call_tool("list_memories", {})),
            "events": result(await c.call_tool("list_memories", {"memory_type": ["episode"], "limit": 2})),
            "lessons": result(await c.call_tool("list_memories", {"memory_type": ["lesson", "fact"]})),
            "session": result(await c.call_tool("list_memories", {"session_id": "s1"})),
            "text": result(await c.call_tool("list_memories", {"text": "LINE 3"})),
            "badge": result(await c.call_tool("list_memories", {"text": "badge"})),
            "update": result(
                await c.call_tool(
                    "update_memory",
                    {"memory_id": ids["tea"], "content": "User likes jasmine tea.", "metadata": {"since": 2024}},
                )
            ),
            "nothing": await c.call_tool("update_memory", {"memory_id": ids["tea"]}),
            "pin": result(await c.call_tool("pin_memory", {"memory_id": ids["plc"]})),
            "context": result(await c.call_tool("get_memory_context", {"query": "conveyor jam"})),
            "unpin": result(await c.call_tool("pin_memory", {"memory_id": ids["plc"], "pinned": False})),
        }

    out = run(create_server(memory, "kumar"), script)
    assert out["get"]["id"] == ids["fix"]
    assert ids["fault"] in {k["target"] for k in out["get"]["links"]}
    assert all(k["why"] for k in out["get"]["links"])
    everything = [m["id"] for m in out["all"]]
    assert set(everything) == set(ids.values())  # newest first
    assert everything[0] == ids["plc"]
    assert [m["id"] for m in out["events"]] == [ids["fix"], ids["fault"]]
    assert {m["id"] for m in out["lessons"]} == {ids["lesson"], ids["plc"]}  # aliases as the CLI takes them
    assert {m["id"] for m in out["session"]} == {ids["jam"], ids["fault"], ids["fix"]}
    assert {m["id"] for m in out["text"]} == {ids["jam"], ids["fault"], ids["fix"], ids["procedure"]}
    assert out["badge"] == []  # another user's memory is never listed
    assert out["update"]["id"] == ids["tea"]
    assert out["update"]["version"] == 2
    assert out["update"]["metadata"]["since"] == 2024
    assert memory.get(ids["tea"], user_id="kumar").content == "User likes jasmine tea."
    assert text_of(out["nothing"]) == "nothing to change: give content and/or metadata"
    assert out["pin"]["pinned"] == [ids["plc"]]
    assert "10.20.0.0/16" in out["context"]
    assert out["unpin"]["pinned"] == []


def test_a_refused_call_is_one_sentence_without_the_validators_address(seeded: Any) -> None:
    memory, ids = seeded
    before = sorted(r.id for r in memory.memories(user_id="kumar"))

    async def script(c: Client) -> list[str]:
        return [
            text_of(await c.call_tool(name, arguments))
            for name, arguments in (
                ("add_memory", {"content": "x", "memory_type": "rumour"}),
                ("add_memory", {}),
                ("add_memory", {"content": ""}),
                ("list_memories", {"limit": 0}),
                ("list_memories", {"memory_type": ["gossip"]}),
                ("update_memory", {"memory_id": ids["tea"], "content": 5}),
                ("pin_memory", {"memory_id": "nope"}),
                ("get_memory", {"memory_id": "nope"}),
                ("learn_from_conversation", {"messages": [{"role": "bot", "content": "hi"}]}),
            )
        ]

    answers = run(create_server(memory, "kumar"), script)
    for answer in answers:
        assert "pydantic" not in answer, answer
        assert "http" not in answer, answer
        assert "\n" not in answer, answer
        assert "Error executing tool" not in answer, answer
        assert "validation error" not in answer, answer
        assert answer.endswith((".", "'")), answer
    assert answers[0].startswith("add_memory was called with bad arguments: memory_type: input should be")
    assert "'lesson'" in answers[0]  # the choices, never the value given
    assert "'rumour'" not in answers[0]
    assert answers[1] == "add_memory was called with bad arguments: content is required."
    assert "limit" in answers[3]
    assert "greater than or equal to 1" in answers[3]
    assert answers[6] == "no memory 'nope' for user 'kumar'"
    assert answers[7] == answers[6]
    assert "messages" in answers[8]
    assert sorted(r.id for r in memory.memories(user_id="kumar")) == before


def test_an_empty_store_answers_a_sentence() -> None:
    with kioko.connect("memory://", auto_link=True) as memory:

        async def script(c: Client) -> Any:
            return result(await c.call_tool("get_memory_context", {"query": "what is my favourite tea?"}))

        answer = run(create_server(memory, "kumar"), script)
    assert answer == "Nothing relevant is remembered for this yet."


def test_the_prompts_remember_a_conversation_and_tell_what_is_known(seeded: Any) -> None:
    memory, ids = seeded

    async def script(c: Client) -> Any:
        listed = {p.name: p for p in (await c.list_prompts()).prompts}
        remember = await c.get_prompt("remember_conversation", {"session_id": "s9"})
        known = await c.get_prompt("what_do_you_know", {"topic": "the line 3 conveyor"})
        return listed, remember, known

    listed, remember, known = run(create_server(memory, "kumar"), script)
    assert set(listed) == {"remember_conversation", "what_do_you_know"}
    assert [a.name for a in listed["what_do_you_know"].arguments] == ["topic"]
    assert listed["what_do_you_know"].arguments[0].required
    (message,) = remember.messages
    assert message.role == "user"
    assert "learn_from_conversation" in message.content.text
    assert 'session_id "s9"' in message.content.text
    (message,) = known.messages
    assert "Clear a conveyor jam on line 3" in message.content.text  # the recall itself, not a pointer to it
    with kioko.connect("memory://") as empty:
        nothing = run(create_server(empty, "kumar"), lambda c: c.get_prompt("what_do_you_know", {"topic": "tea"}))
    assert nothing.messages[0].content.text.endswith("Nothing relevant is remembered for this yet.")


def test_no_description_has_runs_of_spaces_or_line_breaks(seeded: Any) -> None:
    memory, _ = seeded

    async def script(c: Client) -> Any:
        return (await c.list_tools()).tools, (await c.list_prompts()).prompts

    tools, prompts = run(create_server(memory, "kumar"), script)
    texts: list[tuple[str, str]] = []
    for tool in tools:
        texts.append((tool.name, tool.description or ""))

        def walk(node: Any, where: str) -> None:
            if isinstance(node, dict):
                for key, value in node.items():
                    if key == "description" and isinstance(value, str):
                        texts.append((where, value))
                    walk(value, f"{where}.{key}")
            elif isinstance(node, list):
                for item in node:
                    walk(item, where)

        walk(tool.input_schema, tool.name)
    texts += [(p.name, p.description or "") for p in prompts]
    assert len(texts) > 20
    for where, text in texts:
        assert text, (where, text)
        assert not re.search(r"\s{2,}|\n", text), (where, text)
        assert text == text.strip(), (where, text)
