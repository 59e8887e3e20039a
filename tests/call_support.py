"""Counting calls to chosen functions while an action runs, for tests that bound how often a path reads.

An interpreter profile hook (``sys.setprofile``) sees every call of a watched code object, however a module
imported the function, and the functions run as they always do: nothing is patched.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Mapping
from types import CodeType, FrameType
from typing import Any


def calls_during(watched: Mapping[CodeType, str], action: Callable[[], Any]) -> tuple[Any, Counter[str]]:
    """What ``action`` returns, and how often it called each watched code object (counted under its name)."""
    calls: Counter[str] = Counter()

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in watched:
            calls[watched[frame.f_code]] += 1

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        result = action()
    finally:
        sys.setprofile(previous)
    return result, calls
