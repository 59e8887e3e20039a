"""The JSON depth a request body may have: :data:`MAX_JSON_DEPTH` arrays and objects inside each other.

Python's JSON parser recurses once per level: a body nested 1,000 deep raised RecursionError before any
route's validation, a 500 for a few kilobytes of brackets. The depth is measured on the bytes before they
are parsed (strings taken out first, so a ``[`` in a text does not count), and a deeper body is a 422.
"""

from __future__ import annotations

import re

MAX_JSON_DEPTH = 64
"""Arrays and objects inside each other in one request body (or one line of an import)."""

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_BRACKET = re.compile(rb"[\[\]{}]")


def too_deep(body: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when ``body`` (JSON text, or JSON lines) nests arrays and objects more than ``limit`` deep."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False  # the common case: too few brackets to nest that deep
    depth = 0
    for bracket in _BRACKET.finditer(_STRING.sub(b'""', body)):
        if bracket[0] in (b"[", b"{"):
            depth += 1
            if depth > limit:
                return True
        else:
            depth = max(0, depth - 1)
    return False


def message(limit: int = MAX_JSON_DEPTH) -> str:
    """What a body nested deeper than ``limit`` is refused with."""
    return f"the JSON body nests arrays and objects more than {limit} deep"
