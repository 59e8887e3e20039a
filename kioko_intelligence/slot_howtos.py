"""How-tos among a user's memories: a task said with its steps ("To descale the coffee machine, ...", a procedure's
title), and whether a turn says the task is now done differently. What :mod:`.slots` asks before it lets a newer
statement replace a how-to; nothing here reads the store."""

from __future__ import annotations

import re

from kioko_core.kinds import Procedures
from kioko_core.store import Record
from kioko_intelligence.slot_reading import read_slot

_HOWTO = re.compile(
    r"^\s*(?:(?:to|how to)\s+([^,:;]+)[,:;]|(?:when|whenever|if)\s+([^,:;]+),\s*"
    r"(?!(?:i|we|he|she|they|it|there|my|our|his|her|their|the|a|an|this|that)\b)[a-z])",
    re.IGNORECASE,
)
"""A how-to: "To descale the coffee machine, ...", or a task said as a condition and an order ("When the label
printer jams, open the lid ..."; not "When I was a kid, I lived in Rome")."""
_PLAN_TITLE = re.compile(r"^\s*([^:]{3,60}):")
HOWTO_CHANGE = re.compile(
    r"\b(?:different|differently|changed|new (?:way|process|procedure|steps|routine)|better way|no longer|anymore|any more|now|"
    r"instead|replaced|correction|actually|from now on)\b",
    re.IGNORECASE,
)
"""Words that say how something is done changed (a plain "new" is not enough: "my new machine works")."""


def howto_changed(record: Record, frame: set[str], turn_text: str) -> bool:
    """Does the turn say, with a change word, how the task a how-to memory is about ("To descale the coffee
    machine, ...", a procedure's title) is done now? Half the task's words must be in the new text."""
    if not HOWTO_CHANGE.search(turn_text):
        return False
    title = howto_title(record)
    if title is None:
        return False
    words = read_slot(next((g for g in title.groups() if g), "")).frame
    return bool(words) and 2 * len(words & frame) >= len(words) and len(words & frame) >= 1


def stepwise(text: str) -> bool:
    """Does ``text`` give steps: a title, a colon and three or more items ("bread method: knead 10 min, prove 2
    hours, bake at 220"), or "first ..., then ..., then ..."?"""
    head, colon, rest = text.partition(":")
    if colon and len(head) <= 60 and len([p for p in re.split(r",|;|\bthen\b", rest) if p.strip()]) >= 3:
        return True
    return len(re.findall(r"\bthen\b", text, re.IGNORECASE)) >= 2


ADDED_STEP = re.compile(r"\b(?:also|as well|additionally|too|don't forget|do not forget)\b", re.IGNORECASE)
"""A turn adding a step to a how-to rather than saying it anew ("you also need to press the feed button")."""


def howto_title(record: Record) -> re.Match[str] | None:
    return _HOWTO.match(record.content) or (
        _PLAN_TITLE.match(record.content) if record.kind == Procedures.kind else None
    )
