"""Scripted stand-in models: run an agent offline, for examples and tests, with no model and no network.

A script is a function ``script(instructions, user_text, tool_results) -> str | ToolCall``: it reads what
the agent was told (the instructions, where Kioko's recalled context goes), the user's latest words and
the tools' answers so far in this turn, and returns the reply, or a tool to call first. Every model call
is kept in ``calls`` (instructions and user text), so a test can check what the model was shown.

- :class:`ScriptedAgentsModel`: an OpenAI Agents SDK ``Model`` (``kioko[openai-agents]``).
"""

from __future__ import annotations

import itertools
import json
from typing import Any

# the values a script works with live in ._script, which the Agno half imports too (no circle through here)
from kioko.integrations._script import Call, Script, ToolCall, latest_user_text

__all__ = ["ToolCall", "Call", "ScriptedAgentsModel", "agno_model", "latest_user_text"]


def _tool_results_since_user(items: Any) -> list[str]:
    """The outputs of the tools called since the last user message (this turn's)."""
    found: list[str] = []
    for item in list(items or []) if not isinstance(items, str) else []:
        kind = item.get("type") if isinstance(item, dict) else None
        if isinstance(item, dict) and item.get("role") == "user":
            found = []
        elif kind == "function_call_output":
            found.append(str(item.get("output", "")))
    return found


try:
    from agents.items import ModelResponse
    from agents.models.interface import Model as _AgentsModel
    from agents.usage import Usage
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText
except ImportError:  # pragma: no cover - the SDK is an extra
    _AgentsModel = object  # type: ignore[assignment,misc]


class ScriptedAgentsModel(_AgentsModel):  # type: ignore[misc,valid-type]
    """An OpenAI Agents SDK ``Model`` that answers by ``script`` (pass it as ``Agent(model=...)``)."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.calls: list[Call] = []
        self._ids = itertools.count(1)

    async def get_response(
        self,
        system_instructions: str | None,
        input: Any,
        model_settings: Any,
        tools: Any,
        output_schema: Any,
        handoffs: Any,
        tracing: Any,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: Any = None,
        **_: Any,
    ) -> Any:
        """The next scripted answer, as the Agents SDK's model response."""
        user_text = latest_user_text(input)
        results = _tool_results_since_user(input)
        self.calls.append(Call(system_instructions or "", user_text, tuple(results)))
        answer = self.script(system_instructions or "", user_text, results)
        number = next(self._ids)
        if isinstance(answer, ToolCall):
            output: Any = ResponseFunctionToolCall(
                arguments=json.dumps(answer.arguments),
                call_id=f"call_{number}",
                name=answer.name,
                type="function_call",
                id=f"fc_{number}",
                status="completed",
            )
        else:
            output = ResponseOutputMessage(
                id=f"msg_{number}",
                content=[ResponseOutputText(text=str(answer), type="output_text", annotations=[])],
                role="assistant",
                status="completed",
                type="message",
            )
        return ModelResponse(output=[output], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        """Not scripted: this model answers ``Runner.run`` only."""
        raise NotImplementedError("ScriptedAgentsModel answers Runner.run, not Runner.run_streamed")


def agno_model(script: Script) -> Any:
    """An Agno ``Model`` answering by ``script`` (``kioko[agno]``); its calls are kept in ``model.calls``."""
    from kioko.integrations._agno_scripted import ScriptedAgnoModel

    return ScriptedAgnoModel(script=script)
