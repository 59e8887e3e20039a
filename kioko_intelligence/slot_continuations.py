"""A turn that goes on from the last statement without naming its slot: "so two now", "rebooked it for 19 June".

"We own three bikes", then "Someone nicked one from the shed, so two now": the second turn names no bike, so no
frame word leads to the first, yet its bare number is the bikes' new count. "My driving test is on 8 May", then
"They cancelled it, rebooked for 19 June": "it" is the test. A speaker leaves the slot out only when it is the one
just spoken of, so the slot is the user's latest memory holding a value of the same type, and only it:

- a *bare number* is a count whose thing is left out: a number closing its clause, or followed only by "now",
  "left", "remaining", "in total" ("so two now", "down to 5", "only 3 left", "that makes 7");
- a *date said of "it"*: a clause with "it", "that" or "this" and a date, in a turn with a word of change
  ("rebooked", "moved", "pushed" ...): "They cancelled it, rebooked for 19 June", "it's been moved to Friday".

The latest memory (of the last :data:`RECENT` memories of the user, stored within :data:`WINDOW_SECONDS`) holding
exactly one value of that type gets a newer version: its text with the new value, of its kind, superseding it
("We own two bikes."). A turn that names a slot of its own is left to :mod:`.slots`; nothing is guessed when no
recent memory holds a value of the type.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

from kioko_core.store import Filter, Record, Scope
from kioko_intelligence.ops import MemoryOp, value_replaced
from kioko_intelligence.slot_marks import current
from kioko_intelligence.slot_reading import CUE, read_slot

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

RECENT = 3
"""How many of the user's newest memories a continuation may go on from (the newest holding the type wins)."""
WINDOW_SECONDS = 6 * 3600
"""A continuation goes on from a memory stored this recently, within the same conversation."""

_NUMBER_WORD = r"\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty"
_BARE_NUMBER = re.compile(
    rf"(?:^|[,;:]\s*|\b(?:so|now|only|just|down to|up to|makes|making|that's|thats|leaves|leaving)\s+(?:it\s+|us\s+|me\s+)?)"
    rf"({_NUMBER_WORD})(?:\s+(?:now|left|remaining|in total|total|altogether|all told|then))?\s*(?:[.,;!]|$)",
    re.IGNORECASE,
)
"""A number with no noun after it, closing its clause: the count of the thing just spoken of."""
_SO = re.compile(r"\W*(?:so|down to|only|makes|making|that's|thats|leaves|leaving)\b", re.IGNORECASE)
"""Words that make a bare number the outcome of what came before ("so two", "that makes 7")."""
_IT = re.compile(r"\b(?:it|it's|that|this)\b", re.IGNORECASE)


def continued_value(turn_text: str) -> tuple[str, str] | None:
    """The type and the value of a turn that goes on from the last statement ("so two now" -> ("number", "two")),
    or None when the turn names its own slot or no bare value."""
    found = _BARE_NUMBER.search(turn_text)
    if found is not None and (CUE.search(turn_text) or _SO.match(found.group(0))):
        return "number", found.group(1).lower()
    for clause in re.split(r"[.;!?]\s*", turn_text):
        dates = read_slot(clause).values.get("date", set())
        if len(dates) == 1 and _IT.search(clause) and CUE.search(turn_text):
            return "date", next(iter(dates))
    return None


def latest_holding(memory: MemoryLayer, scope: Scope, kind: str) -> Record | None:
    """The newest of the user's last :data:`RECENT` current memories holding exactly one value of ``kind``."""
    since = time.time() - WINDOW_SECONDS
    recent = sorted(
        (r for r in memory.store.scan(scope, Filter(created_after=since)) if current(r)),
        key=lambda r: (r.created_at, r.id),
        reverse=True,
    )[:RECENT]
    for record in recent:
        values = read_slot(record.content).values.get(kind, set())
        if values:
            return record if len(values) == 1 else None
    return None


def continuation(
    memory: MemoryLayer,
    ops: list[MemoryOp],
    scope: Scope,
    turn_text: str,
    op_of: dict[str, str],
) -> MemoryOp | None:
    """The newer version of the memory the turn goes on from, as an op of its kind superseding it (or None)."""
    said = continued_value(turn_text)
    if said is None or any(op.fields.get("supersedes") or op.fields.get("conflicts_with") for op in ops):
        return None
    kind, value = said
    record = latest_holding(memory, scope, kind)
    if record is None or record.kind not in op_of:
        return None
    old = next(iter(read_slot(record.content).values[kind]))
    found = re.search(rf"(?<!\w){re.escape(old)}(?!\w)", record.content, re.IGNORECASE)
    if found is None or old == value:
        return None
    shown = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", turn_text, re.IGNORECASE)
    reason = "goes on from the last statement: its slot with a new value"
    return value_replaced(
        record, found.start(), found.end(), shown.group(0) if shown else value, old, op_of[record.kind], reason
    )


def carry_rewrites(ops: list[MemoryOp], made: MemoryOp) -> None:
    """Two values of one memory changed in one turn: "Flu took out three couples so we're at fifteen, and the
    showcase got pushed to 16 March" after "User's improvers' class has 18 couples and the showcase is on 2 March".
    The date's op rewrites the memory in place (2 -> 16 March) while the count's newer version (``made``, the
    memory's text with fifteen) supersedes it, and that text was read before the rewrite: it said 2 March again. The
    turn's rewrites of a memory ``made`` supersedes are made in ``made``'s text instead (and dropped from their op:
    the memory they would rewrite leaves the context)."""
    replaced = set(made.fields.get("supersedes") or [])
    text = made.fields.get("text")
    if not replaced or not isinstance(text, str):
        return
    for op in ops:
        if op is made or not op.fields.get("rewrites"):
            continue
        kept = []
        for rewrite in op.fields["rewrites"]:
            rid, old, new = rewrite
            found = re.search(rf"(?<!\w){re.escape(old)}(?!\w)", text, re.IGNORECASE) if rid in replaced else None
            if found is None:
                kept.append(rewrite)
                continue
            text = text[: found.start()] + new + text[found.end() :]
            made.fields.setdefault("old_values", []).append(old)
        if kept:
            op.fields["rewrites"] = kept
        else:
            del op.fields["rewrites"]
    made.fields["text"] = text
