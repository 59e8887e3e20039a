"""Intelligence on the write path: every conversation turn becomes the right memory operations.

Offline by default (:class:`HeuristicRouter`: rules, no model, deterministic), or with one model call
per turn (:class:`LLMRouter`). Every decision is a :class:`MemoryOp` in a :class:`ManageReport`;
:class:`OpExecutor` applies them through the typed managers. See docs/intelligence.md.

:class:`IntelligentMemory` (``kioko.MemoryLayer``: what ``kioko.connect()`` and ``kioko.intelligent()`` build) is
the core's :class:`~kioko_core.layer.memory_layer.MemoryLayer` with ``manage``, ``record_turn``, ``plan``,
``maintain`` ... as methods and the intelligence's hooks.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# imported at once: the layer with the intelligence's calls (surface.py keeps its own imports light)
from kioko_intelligence.surface import IntelligentMemory, enable, with_calls

if TYPE_CHECKING:
    from kioko_intelligence.brain import Intelligence, IntelligenceConfigError, build_intelligence
    from kioko_intelligence.events import LINKED, MANAGED, EventBus
    from kioko_intelligence.executor import OpExecutor
    from kioko_intelligence.heuristic import HeuristicRouter, RuleBasedExtractor
    from kioko_intelligence.llm import DEFAULT_MANAGE_PROMPT, LLMRouter, parse_operations
    from kioko_intelligence.maintenance import MaintenanceScheduler
    from kioko_intelligence.ops import OPERATIONS, ManageReport, MemoryOp, RouteResult
    from kioko_intelligence.pins import StablePrefix
    from kioko_intelligence.planner import LLMPlanner, QueryPlanner, RecallPlan
    from kioko_intelligence.providers import ChatModel, chat_model
    from kioko_intelligence.turn import MAX_TURN_CHARS, Turn

# Every other name loads its module on first use: a layer without intelligence, a CLI call, a serverless
# worker do not compile the router's and planner's rules (a few hundred regular expressions) they never run.
_LAZY = {
    **dict.fromkeys(("Intelligence", "IntelligenceConfigError", "build_intelligence"), "brain"),
    **dict.fromkeys(("LINKED", "MANAGED", "EventBus"), "events"),
    "OpExecutor": "executor",
    **dict.fromkeys(("HeuristicRouter", "RuleBasedExtractor"), "heuristic"),
    **dict.fromkeys(("DEFAULT_MANAGE_PROMPT", "LLMRouter", "parse_operations"), "llm"),
    "MaintenanceScheduler": "maintenance",
    **dict.fromkeys(("OPERATIONS", "ManageReport", "MemoryOp", "RouteResult"), "ops"),
    "StablePrefix": "pins",
    **dict.fromkeys(("LLMPlanner", "QueryPlanner", "RecallPlan"), "planner"),
    **dict.fromkeys(("ChatModel", "chat_model"), "providers"),
    **dict.fromkeys(("MAX_TURN_CHARS", "Turn"), "turn"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "ChatModel",
    "DEFAULT_MANAGE_PROMPT",
    "EventBus",
    "HeuristicRouter",
    "Intelligence",
    "IntelligenceConfigError",
    "LINKED",
    "LLMPlanner",
    "LLMRouter",
    "MANAGED",
    "MaintenanceScheduler",
    "StablePrefix",
    "MAX_TURN_CHARS",
    "ManageReport",
    "MemoryOp",
    "OPERATIONS",
    "OpExecutor",
    "IntelligentMemory",
    "QueryPlanner",
    "RecallPlan",
    "RouteResult",
    "RuleBasedExtractor",
    "Turn",
    "build_intelligence",
    "chat_model",
    "enable",
    "parse_operations",
    "with_calls",
]
