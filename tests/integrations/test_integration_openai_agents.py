"""KiokoSession and kioko_tools in the OpenAI Agents SDK, end to end through its Runner with a scripted
Model (no network): the Session protocol, secrets kept out, one user's memories only."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from agents import Agent, Runner, set_tracing_disabled
from agents.memory import Session

import kioko
from kioko.integrations.openai_agents import KiokoSession, kioko_tools
from kioko.integrations.scripted import ScriptedAgentsModel, ToolCall

set_tracing_disabled(True)  # the SDK would otherwise try to export traces to its vendor


@pytest.fixture
def layer():
    with kioko.connect("memory://", auto_link=True) as memory:
        yield memory


def message(role: str, text: str) -> dict:
    return {"role": role, "content": text}


def test_the_session_protocol(layer) -> None:
    async def scenario() -> None:
        session = KiokoSession("chat-1", layer, user_id="kumar")
        assert isinstance(session, Session)
        assert await session.get_items() == []
        assert await session.pop_item() is None
        await session.add_items([message("user", "hi"), message("assistant", "hello"), message("user", "bye")])
        assert await session.get_items() == [
            message("user", "hi"),
            message("assistant", "hello"),
            message("user", "bye"),
        ]
        assert await session.get_items(limit=2) == [message("assistant", "hello"), message("user", "bye")]
        assert await session.get_items(limit=0) == []
        assert await session.pop_item() == message("user", "bye")
        await session.add_items([message("user", "again")])
        assert [i["content"] for i in await session.get_items()] == ["hi", "hello", "again"]
        other = KiokoSession("chat-2", layer, user_id="kumar")
        stranger = KiokoSession("chat-1", layer, user_id="ana")  # same session name, another user
        assert await other.get_items() == []
        assert await stranger.get_items() == []
        await session.clear_session()
        assert await session.get_items() == []
        # the items never reach recall as the user's knowledge
        await session.add_items([message("user", "my favourite colour is teal")])
        assert layer.recall("favourite colour teal", user_id="kumar").memories == []

    asyncio.run(scenario())


def test_secrets_are_never_kept(layer) -> None:
    async def scenario() -> None:
        session = KiokoSession("chat", layer, user_id="kumar")
        await session.add_items(
            [
                message("user", "my key is AKIAIOSFODNN7EXAMPLE, deploy please"),
                {"type": "function_call", "name": "login", "call_id": "c1", "arguments": '{"password": "hunter2x!"}'},
            ]
        )
        items = await session.get_items()
        assert items[0] == message("user", "my key is [redacted: aws_access_key], deploy please")
        assert "hunter2x!" not in str(items[1])
        assert items[1]["call_id"] == "c1"
        stored = " ".join(f"{r.content} {r.metadata}" for r in layer.memories(user_id="kumar"))
        assert "AKIAIOSFODNN7EXAMPLE" not in stored
        assert "hunter2x!" not in stored

    asyncio.run(scenario())


def test_a_session_on_sqlite_outlives_the_process_objects(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'chat.db'}"
    with kioko.connect(url) as first:
        asyncio.run(KiokoSession("s", first, user_id="u").add_items([message("user", "remember me")]))
    with kioko.connect(url) as again:
        assert asyncio.run(KiokoSession("s", again, user_id="u").get_items()) == [message("user", "remember me")]


def decide_then_ask(instructions: str, user: str, results: list[str]) -> str | ToolCall:
    """The stand-in model: stores a decision when told one, recalls when asked, answers from the tools."""
    if user.startswith("We decided") and not results:
        return ToolCall("remember", {"text": user.removeprefix("We decided to ").rstrip("."), "kind": "decision"})
    if user.startswith("Which") and not results:
        return ToolCall("recall", {"query": user})
    if results and "Decisions in force" in results[-1]:
        return "From memory: " + results[-1].split("Decisions in force:\n- ")[1].split("\n")[0]
    if results and results[-1].startswith("Remembered"):
        return "Noted."
    return "I do not know."


def test_runner_end_to_end_remembers_and_recalls_through_the_tools(layer) -> None:
    model = ScriptedAgentsModel(decide_then_ask)
    agent = Agent(name="assistant", instructions="Be brief.", model=model, tools=kioko_tools(layer, "kumar"))
    stranger = Agent(name="assistant", instructions="Be brief.", model=model, tools=kioko_tools(layer, "ana"))

    async def scenario() -> None:
        session = KiokoSession("monday", layer, user_id="kumar")
        first = await Runner.run(agent, "We decided to use PostgreSQL for billing.", session=session)
        assert first.final_output == "Noted."
        [decision] = [r for r in layer.memories(user_id="kumar") if r.kind == "decision"]
        assert decision.content == "use PostgreSQL for billing"
        later = await Runner.run(
            agent, "Which database does billing use?", session=KiokoSession("tuesday", layer, user_id="kumar")
        )
        assert later.final_output == "From memory: use PostgreSQL for billing"
        assert (await Runner.run(stranger, "Which database does billing use?")).final_output == "I do not know."
        history = await session.get_items()
        assert [i.get("type", "message") for i in history] == [
            "message",
            "function_call",
            "function_call_output",
            "message",
        ]

    asyncio.run(scenario())


def test_tools_refuse_secrets_and_other_users_ids(layer) -> None:
    recall, remember, forget = (tool.on_invoke_tool for tool in kioko_tools(layer, "kumar"))
    ana = layer.add("Ana's private note", user_id="ana")

    async def call(tool, args: str) -> str:
        from agents.tool_context import ToolContext

        return await tool(ToolContext(context=None, tool_name="t", tool_call_id="c", tool_arguments=args), args)

    async def scenario() -> None:
        refused = await call(remember, '{"text": "the token is AKIAIOSFODNN7EXAMPLE", "kind": "fact"}')
        assert refused.startswith("Not stored: refused to store a secret")
        assert "No memory" in await call(forget, f'{{"memory_id": "{ana.id}"}}')
        assert layer.get(ana.id, user_id="ana").content == "Ana's private note"
        assert "Ana" not in await call(recall, '{"query": "private note"}')

    asyncio.run(scenario())
