"""The Agno half of :mod:`kioko.integrations.scripted` (imported only when an Agno model is asked for)."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

from agno.models.base import Model
from agno.models.response import ModelResponse

from kioko.integrations._script import Call, Script, ToolCall, latest_user_text


@dataclass
class ScriptedAgnoModel(Model):
    """An Agno ``Model`` that answers by a script (see :mod:`kioko.integrations.scripted`)."""

    id: str = "kioko-scripted"
    name: str | None = "ScriptedAgnoModel"
    provider: str | None = "kioko"
    script: Script | None = None
    calls: list[Call] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__post_init__()
        self._ids = itertools.count(1)

    def invoke(self, messages: list[Any], assistant_message: Any = None, *args: Any, **kwargs: Any) -> ModelResponse:
        assert self.script is not None, "ScriptedAgnoModel needs a script"
        instructions = "\n".join(str(m.content) for m in messages if m.role == "system" and m.content)
        results: list[str] = []
        for m in messages:
            if m.role == "user":
                results = []
            elif m.role == "tool":
                results.append(str(m.content))
        user_text = latest_user_text(messages)
        self.calls.append(Call(instructions, user_text, tuple(results)))
        answer = self.script(instructions, user_text, results)
        if isinstance(answer, ToolCall):
            number = next(self._ids)
            call = {
                "id": f"call_{number}",
                "type": "function",
                "function": {"name": answer.name, "arguments": json.dumps(answer.arguments)},
            }
            return ModelResponse(role="assistant", content="", tool_calls=[call])
        return ModelResponse(role="assistant", content=str(answer))

    async def ainvoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return self.invoke(*args, **kwargs)

    def invoke_stream(self, *args: Any, **kwargs: Any) -> Iterator[ModelResponse]:
        yield self.invoke(*args, **kwargs)

    async def ainvoke_stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[ModelResponse]:
        yield self.invoke(*args, **kwargs)

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> ModelResponse:
        return response  # type: ignore[no-any-return]

    def _parse_provider_response_delta(self, response: Any) -> ModelResponse:
        return response  # type: ignore[no-any-return]
