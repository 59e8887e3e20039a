"""A newer value of a profile slot the user already has, said in a clause the router read as something else.

"I'm a pastry chef now, finished my training in May" is one sentence to the router (an event); its first
clause, without its change words, is the profile statement "I'm a pastry chef" that the router's own
profile rows read as a job title. "New email address: jo@fastpost.io", "I report to Dev Patel now" and
"I switched careers to insurance" name the slot itself (its words, or the relation that sets it). Only a
slot the user **already has** is changed this way: a turn that states a slot for the first time is the
router's to read, so nothing here can write a slot out of small talk.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kioko_core.store import Filter, Scope
from kioko_intelligence.language import bare
from kioko_intelligence.ops import MemoryOp
from kioko_intelligence.rules import NAME_WORDS, PROFILE, SLOTS, TAIL, first, plain

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

_GROUP_SLOT = {
    "name": "name",
    "location": "location",
    "age": "age",
    "employer": "employer",
    "job": "job_title",
    "team": "team",
    "team2": "team",
    "hometown": "hometown",
    "language": "language",
}
"""The router's profile rows' groups, by the slot each sets."""
_MORE_WORDS = {"job_title": ("career", "profession", "occupation", "position"), "manager": ("line manager",)}
_WORDS: dict[str, tuple[str, ...]] = {}
for _word, _slot in SLOTS.items():
    _WORDS[_slot] = (*_WORDS.get(_slot, ()), _word)
for _slot, _extra in _MORE_WORDS.items():
    _WORDS[_slot] = (*_WORDS.get(_slot, ()), *_extra)
RELATIONS = {
    "manager": re.compile(
        rf"\b(?i:i|we)\s+(?i:now\s+)?(?i:report(?:ing)?)\s+(?i:directly\s+)?(?i:to)\s+(?P<v>{NAME_WORDS})"
    ),
}
"""A slot set by a relation rather than named: "I report to Dev Patel" (a manager)."""
_CHANGE_LEAD = re.compile(
    r"^(?:(?:actually|correction|update|big news|news|so|well|oh|and|but|also|now|these days|nowadays)\W+)+",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def _said_slot(clause: str, slot: str) -> str | None:
    """The value a clause gives ``slot`` by naming it: "new email address: X", "my job is now X",
    "switched careers to X"."""
    words = "|".join(re.escape(w) for w in sorted(_WORDS.get(slot, (slot.replace("_", " "),)), key=len, reverse=True))
    found = re.search(
        rf"\b(?:{words})s?\s*(?:is\s+now\s+|is\s+|are\s+now\s+|:\s*|=\s*|changed\s+to\s+)(?P<v>[^,;!?]+)",
        clause,
        re.IGNORECASE,
    ) or re.search(
        rf"\b(?:switched|changed|moved)\s+(?:my\s+)?(?:{words})s?\s+(?:to|into)\s+(?P<v>[^,;!?]+)",
        clause,
        re.IGNORECASE,
    )
    if found is None:
        return None
    value = TAIL.sub("", bare(found.group("v")))
    if slot == "email":
        email = _EMAIL.search(value)
        return email.group(0) if email else None
    if slot == "phone_number" and len(re.findall(r"\d", value)) < 5:
        return None
    return value if 0 < len(value) <= 60 and len(value.split()) <= 6 else None


def stated(clause: str) -> list[tuple[str, str]]:
    """The profile slots a clause states through the router's own rows, change words cut ("I'm a pastry chef
    now" -> job_title), or through a relation ("I report to Dev Patel")."""
    text = TAIL.sub("", bare(plain(_CHANGE_LEAD.sub("", clause.strip()))))
    found = first(PROFILE, text)
    slots: list[tuple[str, str]] = []
    if found:
        for group, value in found[1].groupdict().items():
            if value and group in _GROUP_SLOT:
                slots.append((_GROUP_SLOT[group], bare(value)))
    for slot, pattern in RELATIONS.items():
        relation = pattern.search(clause)
        if relation:
            slots.append((slot, bare(relation.group("v"))))
    return slots


def _clauses(turn_text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+|,\s*|;\s*|\s+and\s+(?=(?:i|we|my|our)\b)", turn_text, flags=re.IGNORECASE)
    return [p for p in parts if p and p.strip()]


def profile_changes(memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, turn_text: str) -> None:
    """Add a ``profile.set`` for each slot the user has that a clause of the turn gives another value."""
    have = {
        r.metadata["slot"]: r
        for r in memory.store.scan(scope, Filter(kinds=frozenset({"profile"})))
        if isinstance(r.metadata.get("slot"), str) and not r.metadata.get("superseded_by")
    }
    if not have:
        return
    setting = {op.fields.get("key") for op in ops if op.op == "profile.set" and op.status == "planned"}
    for clause in _clauses(turn_text):
        found = stated(clause) + [(slot, value) for slot in have if (value := _said_slot(clause, slot))]
        for slot, value in found:
            if slot not in have or slot in setting:
                continue
            old = str(have[slot].metadata.get("value", ""))
            if not value or value.lower() == old.lower() or value.lower() in old.lower():
                continue
            ops.append(
                MemoryOp(
                    "profile.set",
                    fields={"key": slot, "value": value},
                    reason="a newer value of a profile slot the user has",
                    confidence=0.7,
                )
            )
            setting.add(slot)
