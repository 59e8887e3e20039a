"""A scripted stand-in for a model, importable by name (``{"$import": "intelligence_models:ask"}``).

It answers by the user's words in the prompt's conversation section, so a test can say what "the
model" proposes for each turn and count how often it was asked.
"""

from __future__ import annotations

import json
import re
from typing import Any

SCRIPT: dict[str, Any] = {}
"""User words -> the answer: a dict (sent as JSON), a string (sent as is) or an exception (raised)."""
CALLS: list[str] = []
"""Every prompt the stand-in was given."""


def said(prompt: str) -> str:
    """The user's words of the turn in ``prompt``."""
    found = re.findall(r"^user: (.*)$", prompt, flags=re.MULTILINE)
    return found[-1] if found else ""


def ask(prompt: str) -> str:
    CALLS.append(prompt)
    answer = SCRIPT.get(said(prompt), {"operations": []})
    if isinstance(answer, BaseException):
        raise answer
    return answer if isinstance(answer, str) else json.dumps(answer)
