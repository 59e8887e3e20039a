"""The integrations on a Kioko service (RemoteMemory over loopback) as on a local layer: the retriever,
the Agents SDK session and tools, and attach."""

from __future__ import annotations

import asyncio

from agents import Agent, Runner, set_tracing_disabled
from service_support import live_service

import kioko
from kioko.integrations.langchain import KiokoRetriever
from kioko.integrations.openai_agents import KiokoSession, kioko_tools
from kioko.integrations.scripted import ScriptedAgentsModel, ToolCall

set_tracing_disabled(True)


def test_retriever_session_tools_and_attach_on_a_service() -> None:
    with live_service("memory://") as (server, layer), kioko.connect(server.url) as remote:
        remote.add("Kumar chose PostgreSQL for the billing service", user_id="kumar", memory_type="decision")
        remote.add("Kumar drinks green tea", user_id="kumar")

        docs = KiokoRetriever(memory=remote, user_id="kumar", k=1).invoke("billing database")
        assert [d.page_content for d in docs] == ["Kumar chose PostgreSQL for the billing service"]
        assert docs[0].metadata["kind"] == "decision"
        assert docs[0].metadata["signals"]["lexical"] > 0

        def model(instructions: str, user: str, results: list[str]):
            return results[-1] if results else ToolCall("recall", {"query": user})

        agent = Agent(name="a", model=ScriptedAgentsModel(model), tools=kioko_tools(remote, "kumar"))
        session = KiokoSession("chat", remote, user_id="kumar")
        answer = asyncio.run(Runner.run(agent, "Which database for billing?", session=session)).final_output
        assert "PostgreSQL" in answer
        items = asyncio.run(session.get_items())
        assert items[0] == {"role": "user", "content": "Which database for billing?"}
        assert len(items) == 4
        assert asyncio.run(session.pop_item())["type"] == "message"
        asyncio.run(session.clear_session())
        assert asyncio.run(session.get_items()) == []

        echo = ScriptedAgentsModel(lambda instructions, user, results: instructions)
        attached = kioko.attach(Agent(name="b", instructions="Be brief.", model=echo), remote, user_id="kumar")
        told = asyncio.run(Runner.run(attached, "Which database for billing?")).final_output
        assert "Kumar chose PostgreSQL for the billing service" in told
        assert any(r.kind == "episodic" for r in layer.memories(user_id="kumar"))  # the turn was recorded
