"""A newer value said without a change word: recall's second reading of a pair that may be one slot.

:mod:`.change_pairs` reads a pair as a change when the newer memory says so ("now", "instead", "switched" ...).
People as often just state the new value: "Head office brought the stock audit forward to this Friday" after "The
stock audit for the pharmacy is due at the end of the month"; "We relocated to Marseille last autumn" after "Home
for me is Lyon"; "Consultant's booked a caesarean for the 3rd" after a birth plan of a water birth. Every other
rule of a pair holds (both found for the question, comparable, said in later turns, no two subjects, no added
thing); in place of the change word, the two must say the same thing in meaning, and nothing may say they are two:

- the layer's semantic embedder puts them within :data:`SAME_THING` in cosine (at least that near) (a lexical embedder relates
  no two texts that share no word, so with it nothing is read here);
- the newer does not hold the older's value: not every number the older says (a memory the older's own turn edited
  to agree with it, "Stock: roast the bones, simmer 2 hours" after "Pressure cooker from now on, 2 hours does it",
  is no newer value of it);
- the newer states something of its own: a content word the older does not hold ("Right, the studio wifi
  password.", "Regarding the vestry key safe." name a topic again, they give no value);
- no adding word (:data:`ANOTHER`: "also", "its own", "one more", "forgot a bit"), no two numbered things of one
  noun ("line 3" and "line 4"), no two parts of the year or week ("Summers we're at my wife's family place in
  Crete" beside "We live in Bristol during the school year": a year holds both), no two places the two open with
  ("Up at the farm apiary there are three hives" beside "At home I've got five hives"), and no user's doing paired
  with a named thing's value ("I'm studying for JLPT N3 listening" beside "The API listens on port 201");
- an older procedure (or a memory listing steps after a title: :data:`LISTED`) is not changed by a step
  (:data:`STEP`: "after bleeding always top the pressure up", "before the alarm, the machine goes on standby"): a
  step is added to it.

What is not read: two values of one slot that the embedder does not put near (short, elliptical statements: "171
in the end." after "93 lambs on the ground so far"), and a newer value the question's search does not find.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kioko_intelligence.language import content_words
from kioko_intelligence.slot_additions import other_places, thing_and_user

SAME_THING = 0.4
"""The least cosine (the layer's semantic embedder, all-MiniLM-L6-v2 here) of two memories read as one slot's
values without a change word. Chosen on the dev halves (0.4 and 0.5 tried; 0.4 kept more right)."""
_FILLERS = frozenset(
    "right ok okay so well anyway yeah yes oh um erm hey listen look actually now then regard concern re about pleas "
    "kind".split()
)
"""Words that open a turn or name its topic and say nothing of a value ("Right, the studio wifi password.",
"Regarding the vestry key safe.", "Please, about my Ghana Card."), as :func:`.language.content_words` stems them."""

ANOTHER = re.compile(r"\b(?:(?:its|their|his|her) own|one more|forgot)\b", re.IGNORECASE)
"""Besides :data:`.change_pairs.ADDING` (which the caller reads), words of a thing added beside another ("the
storeroom has its own code", "forgot a bit on the radiators", "one more thing")."""
STEP = re.compile(
    r"\b(?:before|after|always|first|then|make sure|has to|have to|must|never|don't forget|remember to)\b",
    re.IGNORECASE,
)
"""A step of a procedure: when it happens in the procedure, or a rule of doing it."""
RECURRING = re.compile(
    r"\b(?:summers|winters|springs|autumns|(?:school |summer |christmas |easter )?holidays|term[- ]time|"
    r"(?:the )?school year|during the (?:week|school year|term|season|summer|winter|holidays)|weekends|weekdays)\b",
    re.IGNORECASE,
)
"""A part of the year or week a statement holds for ("Summers", "during the school year", "weekends"): a person may
live, work or do one thing in one and another in the other."""
LISTED = re.compile(r":\s*[^.:]+?(?:,|;|\bthen\b)[^.:]+?(?:,|;|\bthen\b)")
"""A memory of steps said as a list after a title ("Closing the café at night: cash up, mop the floor, set the
alarm"), kept as a plain memory rather than a procedure."""
_NUMBERED = re.compile(r"\b([a-z]+)\s+#?(\d+[a-z]?)\b", re.IGNORECASE)

Near = Callable[[str, str], float]


def _numbered(text: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for noun, number in _NUMBERED.findall(text):
        found.setdefault(noun.lower(), set()).add(number.lower())
    return found


def two_numbered(new: str, old: str) -> bool:
    """Do the two name one noun with two numbers ("line 3" / "line 4", "room 12" / "room 14")?"""
    mine, theirs = _numbered(new), _numbered(old)
    return any(mine[noun].isdisjoint(theirs[noun]) for noun in mine.keys() & theirs.keys())


def other_recurring(new: str, old: str) -> bool:
    """Do both say a part of the year or week they hold for, and different ones?"""
    mine = {m.group(0).lower() for m in RECURRING.finditer(new)}
    theirs = {m.group(0).lower() for m in RECURRING.finditer(old)}
    return bool(mine and theirs) and mine.isdisjoint(theirs)


_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def agree(new: str, old: str) -> bool:
    """Does the newer say every number the older says ("Stock: roast the bones, simmer 2 hours" and "Pressure
    cooker for stock from now on, 2 hours does it")? Then it holds the older's value, not a newer one."""
    numbers = set(_NUMBER.findall(old))
    return bool(numbers) and numbers <= set(_NUMBER.findall(new))


def restated(new: Any, old: Any, near: Near) -> bool:
    """Whether the recalled memory ``new`` (later said) states the newer value of what ``old`` states, without a
    change word (see the module); ``near`` is the layer's semantic embedder's cosine."""
    text, before = new.record.content, old.record.content
    if agree(text, before):
        return False
    if ANOTHER.search(text) or two_numbered(text, before) or other_recurring(text, before):
        return False
    if other_places(text, before) or thing_and_user(text, before):
        return False  # "Up at the farm apiary there are three hives" beside "At home I've got five hives"
    if (old.section == "procedures" or LISTED.search(before)) and STEP.search(text):
        return False
    held = set(content_words(before))
    if not [w for w in content_words(text) if w not in held and w not in _FILLERS]:
        return False  # a topic named again ("Right, the studio wifi password."), no value of its own
    return near(text, before) >= SAME_THING


__all__ = [
    "ANOTHER",
    "agree",
    "RECURRING",
    "SAME_THING",
    "STEP",
    "LISTED",
    "other_recurring",
    "restated",
    "two_numbered",
]
