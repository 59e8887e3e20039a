"""Intelligence on the write path: every conversation turn becomes the right memory operations.

Offline by default (:class:`HeuristicRouter`: rules, no model, deterministic), or with one model call
per turn (:class:`LLMRouter`). Every decision is a :class:`MemoryOp` in a :class:`ManageReport`;
:class:`OpExecutor` applies them through the typed managers. See docs/intelligence.md.

Importing this package registers :func:`.surface.install` with the core (:mod:`kioko_core.hooks`): every
:class:`~kioko_core.layer.MemoryLayer` built afterwards gets ``manage``, ``record_turn``, ``plan``,
``maintain`` ... and the intelligence's hooks by composition.
"""

from .brain import Intelligence, IntelligenceConfigError, build_intelligence
from .events import LINKED, MANAGED, EventBus
from .executor import OpExecutor
from .heuristic import HeuristicRouter, RuleBasedExtractor
from .llm import DEFAULT_MANAGE_PROMPT, LLMRouter, parse_operations
from .maintenance import MaintenanceScheduler
from .ops import OPERATIONS, ManageReport, MemoryOp, RouteResult
from .pins import StablePrefix
from .planner import LLMPlanner, QueryPlanner, RecallPlan
from .providers import ChatModel, chat_model
from .surface import IntelligentMemory, enable
from .turn import MAX_TURN_CHARS, Turn

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
]
