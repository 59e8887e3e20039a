"""OpenAI Agents SDK: a KiokoSession for the conversation, kioko_tools for long-term memory.

    python examples/cookbook/12_openai_agents.py          (pip install 'kioko[openai-agents]')

A scripted stand-in plays the model (offline); give the Agent your model instead.
"""

import asyncio

from agents import Agent, Runner, set_tracing_disabled

import kioko
from kioko.integrations.openai_agents import KiokoSession, kioko_tools
from kioko.integrations.scripted import ScriptedAgentsModel, ToolCall

set_tracing_disabled(True)
memory = kioko.connect("memory://", auto_link=True)


def model(instructions: str, user_text: str, tool_results: list[str]):
    if not tool_results and user_text.startswith("Remember"):
        return ToolCall("remember", {"text": user_text.removeprefix("Remember: "), "kind": "decision"})
    if not tool_results:
        return ToolCall("recall", {"query": user_text})
    return tool_results[-1]


agent = Agent(
    name="assistant", instructions="Be brief.", model=ScriptedAgentsModel(model), tools=kioko_tools(memory, "kumar")
)


async def main() -> None:
    monday = KiokoSession("monday", memory, user_id="kumar")
    print((await Runner.run(agent, "Remember: we use PostgreSQL for billing", session=monday)).final_output)
    tuesday = KiokoSession("tuesday", memory, user_id="kumar")
    answer = (await Runner.run(agent, "Which database for billing?", session=tuesday)).final_output
    print(answer)
    print("tuesday's session:", [item.get("type", item.get("role")) for item in await tuesday.get_items()])
    assert "PostgreSQL" in answer


asyncio.run(main())
