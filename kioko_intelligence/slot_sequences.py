"""Further along a sequence: "Reached lesson 20 of the Spanish course!" after "I'm at lesson 12".

A number after a noun usually names a thing (:mod:`.labels`: "line 2" and "line 1" are two conveyors). Some nouns
name a *place in a sequence* the user moves along instead: a lesson, a level, a chapter, a grade, a module, a
season. The user is at one place of such a sequence at a time, so a newer statement of the user's naming a later
place of the same noun ("Level 2 done at last!!" after "I've got my FA Level 1 coaching badge") is the newer value
of the older statement's slot, though the two share no other word: the older is superseded.

Only forward (a later number: "back to lesson 3" may be a revision, not where the user is), only the user's own
statements on both sides (not "my son is in year 5" after "I'm in year 4"), only when the older names one place of
the noun and the newer one too, and only when exactly one older memory fits. A place said of something the older
statement and the memories of its turn do not name ("lesson 20 of the cooking class" after the Spanish course's
lesson 12) is in another sequence. World statements ("Redid lesson 82 of JLPT N3") are left to the label rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from kioko_core.store import Filter, Record, Scope
from kioko_intelligence.slot_reading import read_slot, text_terms
from kioko_intelligence.slot_subjects import different_subjects
from kioko_intelligence.slot_topics import ADDING, USERS_OWN
from kioko_intelligence.turn import same_turn

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

SEQUENCE_NOUNS = (
    "lesson",
    "level",
    "chapter",
    "grade",
    "stage",
    "module",
    "unit",
    "season",
    "episode",
    "book",
    "volume",
    "part",
    "round",
    "phase",
)
"""Nouns whose number is a place along a sequence the user moves through, not a thing's name."""
_PLACE = re.compile(rf"\b({'|'.join(SEQUENCE_NOUNS)})\s+(\d{{1,3}})(?![\d:.,]\d|\s*%)\b", re.IGNORECASE)
_SOMEONE_ELSES = re.compile(
    r"\b(?:my|our|User's)\s+(?:wife|husband|partner|son|daughter|kids?|children|mum|mom|dad|brother|sister|friend|"
    r"colleague|boss|team|student|pupil)s?\b|\b(?:he|she|his|her)\b",
    re.IGNORECASE,
)
"""A statement of someone else's place ("my son is on level 4"): not the user's ("their" is the user's in a
statement rewritten about them: "User has got their FA Level 1 coaching badge")."""
_SAID_BY_USER = re.compile(
    rf"^\W*(?:(?:just|finally|now)\s+)?(?:[a-z]+ed|done|got|on|at|up to|onto|into|through|hit|made|began|"
    rf"(?:{'|'.join(SEQUENCE_NOUNS)})\s+\d)\b",
    re.IGNORECASE,
)
"""A statement without a subject ("Reached lesson 20 ...", "Level 2 done at last"): the user's own."""
_EARLIER = 60
"""How far back the earlier places of a noun the index keeps no term of are looked up by their numbers."""


def places(text: str) -> dict[str, set[int]]:
    """The places along sequences ``text`` names, by noun: "at lesson 12" -> {"lesson": {12}}."""
    found: dict[str, set[int]] = {}
    for match in _PLACE.finditer(text):
        found.setdefault(match.group(1).lower(), set()).add(int(match.group(2)))
    return found


def _qualifier(text: str, noun: str) -> set[str]:
    """The words that say whose sequence a place is in ("lesson 20 of the Spanish course" -> spanish, cours)."""
    found = re.search(rf"\b{noun}\s+\d+\s+(?:of|in|for|on|at)\s+([^,.;:!?]+)", text, re.IGNORECASE)
    if found is None:
        return set()
    slot = read_slot(found.group(1))
    return slot.frame | {w for name in slot.values.get("name", ()) for w in name.split()}


def _said_with(memory: MemoryLayer, scope: Scope, record: Record) -> list[str]:
    """The texts of the memories stored from the same turn as ``record`` (same session, within two seconds, of its
    turn number when both have one): they may hold what its place is of ("User is doing an online Spanish course"
    beside "User is at lesson 12")."""
    at = Filter(session_id=record.session_id, created_after=record.created_at - 2, created_before=record.created_at + 2)
    return [r.content for r in memory.store.scan(scope, at) if same_turn(r, record) is not False]


def further_along(
    memory: MemoryLayer,
    scope: Scope,
    holding: Callable[[list[str]], list[Record]],
    text: str,
    turn_text: str,
) -> list[Record]:
    """The one older memory of the user's whose place ``text`` (an op's text, from ``turn_text``) moves past, or
    none (``holding``: the user's current memories holding any of some terms)."""
    mine = places(text)
    if len(mine) != 1 or ADDING.search(turn_text) or _SOMEONE_ELSES.search(text):
        return []
    if not (USERS_OWN.search(text) or _SAID_BY_USER.match(text)):
        return []  # "The course's lesson 20 is on verbs" says where the course is, not the user
    noun, numbers = next(iter(mine.items()))
    if len(numbers) != 1:
        return []
    new = next(iter(numbers))
    # the noun as the term index keeps it, or (a noun it keeps no term of: "lesson") the earlier places' numbers
    terms = [t for t in text_terms(noun) if t.startswith("t:")] or [f"n:{n}" for n in range(1, min(new, _EARLIER))]
    fits = []
    for record in holding(terms):
        theirs = places(record.content).get(noun, set())
        if len(theirs) != 1 or next(iter(theirs)) >= new:
            continue
        if not USERS_OWN.search(record.content) or _SOMEONE_ELSES.search(record.content):
            continue
        if different_subjects(text, record.content):
            continue
        qualifier = _qualifier(text, noun)
        if qualifier:  # "lesson 20 of the cooking class" is another sequence than the Spanish course's
            said = read_slot(" ".join(_said_with(memory, scope, record)))
            if not qualifier & (said.frame | {w for name in said.values.get("name", ()) for w in name.split()}):
                continue
        fits.append(record)
    return fits if len(fits) == 1 else []
