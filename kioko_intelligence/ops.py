"""What the intelligence decides: the OPERATIONS table, one MemoryOp per decision, one ManageReport per turn.

A router reads a :class:`Turn` and returns a :class:`RouteResult` (the ops it proposes, or the reason
the turn was skipped); the executor then applies each op and fills in its status. Everything here is
plain data: ``to_dict()`` is JSON-safe, for logs, events and the REST API.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from kioko_core.kinds.registry import KINDS, OP_KINDS
from kioko_core.privacy.secrets import redact
from kioko_core.store import Record

OPERATIONS: dict[str, tuple[str, ...]] = {
    **{info.op: info.actions for info in KINDS if info.op},
    "relation": ("add", "remove"),
    "memory": ("update", "delete", "pin", "unpin"),
}
"""Kind -> the actions an operation of that kind may take (the spec's table "The operations"): a kind's from
its registry row, then the two that name no kind (a link, any memory by id)."""

KIND_OF_MEMORY: dict[str, str] = dict(OP_KINDS)
"""Operation kind -> the ``memory_type`` (``Record.kind``) its memories are stored as (the kind registry's
``op`` column)."""

PLANNED, APPLIED, SKIPPED, FAILED = "planned", "applied", "skipped", "failed"
STATUSES = (PLANNED, APPLIED, SKIPPED, FAILED)

ROUTER_HEURISTIC, ROUTER_LLM, ROUTER_FALLBACK = "heuristic", "llm", "llm->heuristic"


def split_op(op: str) -> tuple[str, str]:
    """``"goal.progress"`` -> ``("goal", "progress")``; ValueError when it is not in :data:`OPERATIONS`."""
    kind, _, action = op.partition(".") if isinstance(op, str) else ("", "", "")
    if action not in OPERATIONS.get(kind, ()):
        raise ValueError(f"unknown operation {op!r}; operations are kind.action, e.g. 'goal.progress'")
    return kind, action


def _json_safe(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_json_safe(v) for v in value]
    return str(value)


@dataclass
class MemoryOp:
    """One decision about memory: ``op`` (``"kind.action"``), its target, its fields, and what became of it.

    ``target`` is a memory id (or, for ``profile`` and ``working``, the slot key in ``fields``);
    ``fields`` holds what the manager needs (``text``, ``title``, ``progress``, ``steps`` ...).
    ``status`` is ``planned`` in a dry run, then ``applied``, ``skipped`` (with the reason in
    ``error``) or ``failed`` (with the error).
    """

    op: str
    fields: dict[str, Any] = field(default_factory=dict)
    target: str | None = None
    description: str = ""
    reason: str = ""
    importance: float | None = None
    confidence: float = 1.0
    status: str = PLANNED
    error: str | None = None
    memory_id: str | None = None
    """The memory the op wrote or changed, once applied."""
    linked: list[str] = field(default_factory=list)
    """``linked: ...`` lines: the links the op's write made."""

    def __post_init__(self) -> None:
        split_op(self.op)

    @property
    def kind(self) -> str:
        return self.op.split(".", 1)[0]

    @property
    def action(self) -> str:
        return self.op.split(".", 1)[1]

    def line(self) -> str:
        """``goal.progress "Stabilise line 3 by November 30" -> 60%``, with the status when not applied."""
        text = f"{self.op} {self.description}".rstrip()
        if self.status == SKIPPED:
            text += f"   <- skipped: {self.error}"
        elif self.status == FAILED:
            text += f"   <- failed: {self.error}"
        return text

    def to_dict(self) -> dict[str, Any]:
        safe: dict[str, Any] = _json_safe(
            {
                "op": self.op,
                "kind": self.kind,
                "action": self.action,
                "target": self.target,
                "fields": self.fields,
                "description": self.description,
                "reason": self.reason,
                "importance": self.importance,
                "confidence": self.confidence,
                "status": self.status,
                "error": self.error,
                "memory_id": self.memory_id,
                "linked": self.linked,
            }
        )
        return safe


@dataclass
class RouteResult:
    """What a router returns: the ops it proposes, or why it skipped the turn (``skipped``)."""

    ops: list[MemoryOp] = field(default_factory=list)
    skipped: str | None = None
    """Why nothing was routed ("small talk", "a question" ...); None when the turn was routed."""
    router: str = ROUTER_HEURISTIC
    model_calls: int = 0
    error: str | None = None
    """The model's failure, when a fallback decided."""


@dataclass
class ManageReport:
    """Everything decided and done for one turn: the ops with their status, the router, model calls."""

    ops: list[MemoryOp] = field(default_factory=list)
    router: str = ROUTER_HEURISTIC
    model_calls: int = 0
    skipped: str | None = None
    """Why the turn was skipped before any op was proposed; None when it was routed."""
    error: str | None = None
    """The model's failure when the fallback router decided (``router == "llm->heuristic"``)."""
    dry_run: bool = False
    user_id: str = ""
    agent_id: str | None = None
    session_id: str | None = None
    messages: list[dict[str, str]] = field(default_factory=list, repr=False, compare=False)
    """The turn's messages (not in :meth:`to_dict`): what the rolling session summary folds in."""

    @classmethod
    def of(
        cls, result: RouteResult, *, dry_run: bool, user_id: str, agent_id: str | None, session_id: str | None
    ) -> ManageReport:
        return cls(
            ops=list(result.ops),
            router=result.router,
            model_calls=result.model_calls,
            skipped=redact(result.skipped) if result.skipped else result.skipped,
            error=redact(result.error) if result.error else result.error,  # a model's error may quote its input
            dry_run=dry_run,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
        )

    def by_status(self, status: str) -> list[MemoryOp]:
        return [op for op in self.ops if op.status == status]

    @property
    def applied(self) -> list[MemoryOp]:
        return self.by_status(APPLIED)

    def summary(self) -> str:
        """The report as the console shows it: one line per op, the linked lines under it."""
        lines: list[str] = []
        if self.router != ROUTER_HEURISTIC or self.model_calls:
            lines.append(f"[{self.router}, {self.model_calls} LLM call(s)]")
        if self.skipped is not None and not self.ops:
            lines.append(
                f"skipped before calling the model: {self.skipped}"
                if self.router != ROUTER_HEURISTIC
                else f"nothing to remember ({self.skipped})"
            )
        elif not self.ops:
            lines.append("nothing to remember")
        for op in self.ops:
            lines.append(op.line())
            lines += [f"  linked: {line}" for line in op.linked]
        if self.error is not None:
            lines.append(f"the model failed ({self.error}); the offline router decided instead")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        safe: dict[str, Any] = _json_safe(
            {
                "router": self.router,
                "model_calls": self.model_calls,
                "skipped": self.skipped,
                "error": self.error,
                "dry_run": self.dry_run,
                "user_id": self.user_id,
                "agent_id": self.agent_id,
                "session_id": self.session_id,
                "ops": [op.to_dict() for op in self.ops],
            }
        )
        return safe

    def __str__(self) -> str:
        return self.summary()


def operation_names(ops: Iterable[MemoryOp]) -> list[str]:
    return [op.op for op in ops]


def value_replaced(record: Record, start: int, end: int, value: str, old: str, op: str, reason: str) -> MemoryOp:
    """``record`` again with ``value`` in place of its characters ``start:end`` (which said ``old``), as an
    ``op`` add that supersedes it: the memory keeps its wording and importance, only the value changes."""
    importance = record.metadata.get("importance")
    return MemoryOp(
        f"{op}.add",
        fields={
            "text": record.content[:start] + value + record.content[end:],
            "supersedes": [record.id],
            "old_values": [old],
        },
        reason=reason,
        importance=importance if isinstance(importance, float) else 0.6,
        confidence=0.7,
    )
