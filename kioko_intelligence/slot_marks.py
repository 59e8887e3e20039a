"""After a turn's ops applied: mark what each replaced, and drop from session summaries the values it replaced.

:mod:`.slots` finds, before the ops apply, what each ``add`` replaces (``fields["supersedes"]``, sure;
``fields["conflicts_with"]``, unsure) and which old values it names (``old_values``); here the old memories are
marked ``superseded_by`` (they leave every context and stay in the history), or the conflict is noted on both
sides (the new one shown first with "(was: ...)").
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable

from kioko_core.kinds import Summaries
from kioko_core.kinds.registry import KINDS
from kioko_core.store import Record, Scope
from kioko_core.telemetry import count
from kioko_intelligence.ops import APPLIED, MemoryOp
from kioko_intelligence.plan_changes import rewritten
from kioko_intelligence.slot_reading import text_terms
from kioko_intelligence.summaries import summary_content
from kioko_intelligence.turn import TURN_KEY

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

CANDIDATES = 40
"""At most this many memories per term are read as candidates for one slot (or one summary holding a value)."""
VALUE_KINDS = frozenset(info.name for info in KINDS if info.holds_value)
"""Kinds of memory that hold a current value (a newer value of their slot supersedes them)."""
WAS_CHARS = 120
"""How much of the old memory a "(was: ...)" note quotes."""


def current(record: Record | None) -> bool:
    return (
        record is not None
        and record.kind in VALUE_KINDS
        and not record.metadata.get("superseded_by")
        and not record.metadata.get("session_summary")
        and record.metadata.get("status", "open") not in ("done", "dropped")
    )


MAX_CONFLICTS = 2
"""An unsure match with more memories than this names no one slot (a slot holds one current value): "the drive
shows error E-200 on line 1" looked like a new value of sixteen fault reports of other lines. Such a statement is
stored plainly, with no "(was: ...)" and no memory marked."""


def apply(memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, turn: int | None = None) -> None:
    """After the ops applied: mark what each replaced (``superseded_by`` / ``conflicts_with`` and ``was``). A
    memory rewritten in place ("plant potatoes in March" in the plan) is said by this turn, numbered ``turn``."""
    who: dict[str, Any] = {"user_id": scope.user_id, "agent_id": scope.agent_id}
    gone = _forgotten(memory, ops, scope)
    for op in ops:
        if op.status != APPLIED or not op.memory_id or op.memory_id in gone:
            continue
        f = op.fields
        old_ids = [i for i in f.get("supersedes", []) if isinstance(i, str) and i not in gone]
        for rid, old, new in f.get("rewrites", []):
            record = memory.store.get(scope, [rid])[0]
            if record is not None and current(record):
                content, changed = rewritten(record, old, new)
                said = {TURN_KEY: turn} if turn is not None else {}
                memory.update(rid, content=content, metadata={**changed, **said} or None, **who)
        unsure = [i for i in f.get("conflicts_with", []) if isinstance(i, str) and i not in gone]
        new_id = op.memory_id
        for rid in old_ids:
            if rid != new_id:
                # a mark already there (a concurrent supersede) is kept: the first replacement is the one in force
                memory._update(rid, scope, _marking(new_id))
                count("memories_superseded_total")
        if old_ids:
            memory.update(op.memory_id, metadata={"supersedes": old_ids[0]}, **who)
        values = [v for v in f.get("old_values", []) if isinstance(v, str) and v.strip()]
        if values and (old_ids or f.get("rewrites")):
            stale_summaries(memory, scope, values)
        if 0 < len(unsure) <= MAX_CONFLICTS:
            olds = [r for r in memory.store.get(scope, unsure) if r is not None and r.id != op.memory_id]
            if olds:
                was = "; ".join(r.content[:WAS_CHARS] for r in olds)
                memory.update(op.memory_id, metadata={"conflicts_with": [r.id for r in olds], "was": was}, **who)
                for r in olds:
                    memory.update(r.id, metadata={"conflicted_by": op.memory_id}, **who)


def _forgotten(memory: MemoryLayer, ops: list[MemoryOp], scope: Scope) -> set[str]:
    """The memories the turn's ops name that its own forget removed: "The Bruges tour is off. Forget all of it"
    stores the first sentence, then the forget of Bruges sweeps it away; it is not marked after that. Read only
    when the turn forgot something (one get)."""
    if not any(op.action == "delete" and op.status == APPLIED for op in ops):
        return set()
    named = {op.memory_id for op in ops if op.status == APPLIED and op.memory_id}
    for op in ops:
        for key in ("supersedes", "conflicts_with"):
            named.update(i for i in op.fields.get(key, []) if isinstance(i, str))
    ids = sorted(i for i in named if i)
    return {i for i, record in zip(ids, memory.store.get(scope, ids)) if record is None}


def stale_summaries(memory: MemoryLayer, scope: Scope, values: list[str]) -> int:
    """Drop from the user's session summaries the points that state a value a newer session replaced; a
    summary left with no point is deleted. Returns how many summaries changed."""
    changed = 0
    for value in values:
        pattern = re.compile(r"(?<!\w)" + re.escape(value) + r"(?!\w)", re.IGNORECASE)
        for record in _summaries_holding(memory, scope, text_terms(value)):
            points = [p for p in record.metadata.get("points", []) if isinstance(p, str)]
            kept = [p for p in points if not pattern.search(p)]
            if kept == points and not pattern.search(str(record.metadata.get("summary", ""))):
                continue
            changed += 1
            if not kept:
                memory.delete(record.id, user_id=scope.user_id, agent_id=scope.agent_id)
                continue
            memory._update(record.id, scope, _rewriting(str(record.session_id or ""), kept))
    return changed


def _rewriting(session: str, kept: list[str]) -> Callable[[Record], tuple[str | None, dict[str, Any] | None]]:
    def change(_: Record) -> tuple[str | None, dict[str, Any] | None]:
        body = " ".join(kept)
        return summary_content(session, body), {"points": kept, "summary": body}

    return change


def _summaries_holding(memory: MemoryLayer, scope: Scope, terms: list[str]) -> list[Record]:
    if not terms:
        return []
    postings = memory.store.postings(scope, terms, CANDIDATES)
    ids = set.intersection(*[set(postings.ids.get(t, ())) for t in terms])
    found = memory.store.get(scope, sorted(ids)) if ids else []
    return [r for r in found if r is not None and r.kind == Summaries.kind and r.metadata.get("session_summary")]


def _marking(new_id: str) -> Callable[[Record], tuple[str | None, dict[str, Any] | None]]:
    def change(fresh: Record) -> tuple[str | None, dict[str, Any] | None]:
        return None, {} if fresh.metadata.get("superseded_by") else {"superseded_by": new_id}

    return change
