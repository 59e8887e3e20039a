"""Agno: KiokoTools gives an Agno agent recall / remember / forget for one user.

    python examples/cookbook/13_agno.py                    (pip install 'kioko[agno]')

A scripted stand-in plays the model (offline); give the Agent your model instead.
"""

import os

os.environ.setdefault("AGNO_TELEMETRY", "false")

from agno.agent import Agent  # noqa: E402

import kioko  # noqa: E402
from kioko.integrations.agno import KiokoTools  # noqa: E402
from kioko.integrations.scripted import ToolCall, agno_model  # noqa: E402

memory = kioko.connect("memory://", auto_link=True)


def model(instructions: str, user_text: str, tool_results: list[str]):
    if not tool_results and user_text.startswith("Remember"):
        return ToolCall("remember", {"text": user_text.removeprefix("Remember: "), "kind": "preference"})
    if not tool_results:
        return ToolCall("recall", {"query": user_text})
    return tool_results[-1]


agent = Agent(model=agno_model(model), tools=[KiokoTools(memory, "kumar")], telemetry=False)
print(agent.run("Remember: Kumar likes dark mode in every tool").content)
answer = agent.run("What does Kumar like in every tool?").content
print(answer)
assert "dark mode" in answer
