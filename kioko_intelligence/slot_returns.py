"""A return to an earlier value: the memory that replaced it gives way.

"Please address me as Margaret", then "You may call me Maggie, we're friends now" (which replaced it), then "On
reflection I'd rather you went back to Margaret": the turn says *back to* a named value, an earlier memory of the
user that was replaced holds it, and the memory that replaced it (followed along ``superseded_by`` to the one in
force; ``conflicted_by`` too, for a change kept in a marked conflict) gives way, whether or not it names the earlier
value as the one it replaced ("Switched to Arc, Firefox felt slow", then "I'm back on Firefox"). The sentence is
then stored as the earlier memory's kind, superseding the one in force; the turn's other adds of the same sentence
give way. The router often keeps nothing of such a sentence (it is said to the assistant, or names the value
only), so without this the replacing value stayed current.

Only a named value (a word written with a capital, or one holding a digit: "back to Margaret", "back on Firefox",
"back to v2"), so that "back to work", "back to normal" and "go back to the first example" are no return; only
when exactly one memory in force replaced the earlier ones holding it; never when the turn's ops already change a
memory.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kioko_core.kinds.registry import KINDS
from kioko_core.recall.sections import replacer
from kioko_core.store import Record, Scope
from kioko_intelligence.holders import held_kinds, held_records
from kioko_intelligence.language import about_user, sentences
from kioko_intelligence.ops import SKIPPED, MemoryOp
from kioko_intelligence.slot_marks import current
from kioko_intelligence.slot_reading import text_terms

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

BACK_TO = re.compile(
    r"\bback\s+(?:to|on|with)\s+(?P<value>[^.,;:!?()]+)"
    # "Bex again, please", "I'm on Firefox again": a named value said again opens or ends its clause
    r"|\b(?:on|using|use|it's|its|it is)\s+(?P<again>(?-i:[A-Z0-9])[^\s.,;:!?()]*"
    r"(?:\s+(?-i:[A-Z0-9])[^\s.,;:!?()]*)?)\s+again\b"
    r"|^(?P<alone>(?-i:[A-Z0-9])[^\s.,;:!?()]*(?:\s+(?-i:[A-Z0-9])[^\s.,;:!?()]*)?)\s+again\s*(?:[,.!]|please\b|$)",
    re.IGNORECASE,
)
"""A return: "back to / on / with X", or a named value said "again" (every word of it written with a capital or a
digit): after "on", "using", "it's" ("I'm on Firefox again"; not "talked to Sam again"), or alone before the clause ends ("Bex
again, please"; not "Leeds again next week")."""
_TAIL = re.compile(
    r"\s+(?:again|now|for good|then|please|after all|in the end|instead|as before|like before|for (?:now|a while)|"
    r"from (?:now|here) on|going forward|if (?:you|that)\b)\b.*$",
    re.IGNORECASE,
)
_NAMED = re.compile(r"\b(?:[A-Z][\w'-]*|\w*\d\w*)\b")
"""A word of the value written with a capital or holding a digit."""
_OP_OF = {info.name: info.op for info in KINDS if info.restated and info.op}
"""Stored kind -> the operation a return to one of its values is written as."""
HOPS = 6
"""How far along ``superseded_by`` the memory in force may be."""


def _in_force(memory: MemoryLayer, scope: Scope, record: Record) -> Record | None:
    """The memory in force that replaced ``record``, along its ``superseded_by`` / ``conflicted_by`` marks, or
    None."""
    for _ in range(HOPS):
        nxt = replacer(record)
        if nxt is None:
            return record if current(record) else None
        found = held_records(memory, scope, [nxt])[0]
        if found is None:
            return None
        record = found
    return None


def returns(memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, turn_text: str) -> bool:
    """Add the op of a sentence that goes back to an earlier, replaced value (see the module); True when it did."""
    if any(op.target or op.fields.get("supersedes") or op.fields.get("conflicts_with") for op in ops):
        return False
    for said in sentences(turn_text):
        if said.rstrip().endswith("?"):
            continue
        for found in BACK_TO.finditer(said):
            value = _TAIL.sub("", found.group("value") or found.group("again") or found.group("alone") or "").strip()
            if not value or len(value.split()) > 4 or not _NAMED.search(value):
                continue
            op = _return(memory, scope, said, value)
            if op is not None:
                sentence_terms = set(text_terms(said))
                for other in ops:
                    mine = set(text_terms(str(other.fields.get("text") or "")))
                    if other.status == "planned" and other.action == "add" and mine and mine <= sentence_terms:
                        other.status, other.error = SKIPPED, "part of a return to an earlier value"
                ops.append(op)
                return True
    return False


def _return(memory: MemoryLayer, scope: Scope, said: str, value: str) -> MemoryOp | None:
    terms = set(text_terms(value))
    if not terms:
        return None
    earlier = [
        r for r in held_kinds(memory, scope, frozenset(_OP_OF)) if replacer(r) and terms <= set(text_terms(r.content))
    ]
    in_force: dict[str, tuple[Record, Record]] = {}
    for record in earlier:
        now = _in_force(memory, scope, record)
        if now is not None:  # it may name the value as the one it replaced: "Switched to Arc, Firefox felt slow"
            in_force.setdefault(now.id, (record, now))
    if len(in_force) != 1:
        return None
    old, now = next(iter(in_force.values()))
    return MemoryOp(
        f"{_OP_OF[old.kind]}.add",
        fields={"text": about_user(said.strip()), "supersedes": [now.id]},
        reason=f"a return to an earlier value ({value}): the memory that replaced it gives way",
        importance=0.7,
        confidence=0.6,
    )
