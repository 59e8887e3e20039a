"""Recall's reading of a change the router was not sure of: two memories that answer one question, the newer
saying the value changed, are shown as one change, the newer with "(was: <older>)".

When a turn states a newer value in words the router does not join to the older memory ("we're 65 people now."
after "The company has about 40 employees.": no word in common), both stay in force, and a question both answer
("How many people work at the company?") would show the old value as current beside the new one. The question
is the evidence that they hold one slot: for it, a pair is read as a change when

- both memories were found for the question itself (by its words or by the vector search, not only through a
  link, a pin or as the newest memories), each among the :data:`TOP` best of the context's searched memories,
  and with comparable strength on one signal (the weaker at least :data:`LEXICAL_SHARE` of the stronger's
  lexical score, or :data:`DENSE_SHARE` of its vector similarity);
- the newer one was said in a later turn (written later, the later of a memory's creation and last update: an
  event said today may be dated last month; in another session, or a minute later) and says a change
  (:data:`CHANGE`: "now", "these days", "anymore", "instead", "switched", "since September", "from this month",
  "started", "took over", "new", "this year" ...), in the clause the question's words found
  (:func:`change_answers`);
- nothing says the two are held together: no adding word in the newer ("also", "too", "another", "both",
  "other", "second", "plus" ...: :data:`ADDING`), no two subjects (:func:`.slot_subjects.different_subjects`:
  "my brother lives in Leeds" and "I live in York now"), and only one older memory so found (with two, which
  one changed is a guess);
- the question does not ask about the past or the change itself (:data:`ABOUT_BEFORE`: "Where did I live
  before?", "What did I use to drink?", "How has my routine changed?").

Then the newer memory is shown first with "(was: <older>)" and the older leaves that context
(:mod:`kioko_core.recall.shown_changes`). Nothing is written or marked: another question, which only the older
answers, still shows it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kioko_core.reading.analysis import analyze
from kioko_intelligence.slot_subjects import different_subjects

SEARCHED = frozenset({"memories", "decisions", "procedures", "skills", "lessons"})
"""The context's sections whose memories the question's search found (not goals, safety facts, pins)."""
TOP = 4
"""Both memories of a pair are among this many best of the context's searched memories."""
LEXICAL_SHARE = 0.5
DENSE_SHARE = 0.6
"""The weaker memory's share of the stronger one's lexical score or vector similarity: both answer as well."""

_MONTHS = (
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec"
)
_SEASONS = r"spring|summer|autumn|fall|winter|term|semester|season|year|month|week|quarter"
CHANGE = re.compile(
    r"\b(?:now|nowadays|these days|anymore|any more|no longer|no more|instead|"
    r"switch(?:ed|es|ing)|swapp?(?:ed|ing)|chang(?:ed|es|ing)|moved|converted|migrated|"
    rf"since\s+(?:(?:last|this)\s+)?(?:{_MONTHS}|{_SEASONS}|\d{{4}}|then)|"
    rf"from\s+(?:(?:this|next)\s+(?:{_SEASONS})|now\s+on|(?:{_MONTHS})\s+on)|as of|"
    r"start(?:ed|ing)|took over|taken over|new|in the end|ended up|"
    rf"this\s+(?:{_MONTHS}|{_SEASONS}))\b",
    re.IGNORECASE,
)
"""A memory that says its value changed: a word of now ("now", "these days"), of replacing ("instead",
"switched", "took over"), of a start ("since September", "from this month", "started", "new")."""
ADDING = re.compile(
    r"\b(?:also|as well|another|both|other|second|plus|in addition|additionally|besides|extra|still)\b"
    r"|\btoo(?=\s*(?:[,.;!?)]|$))",
    re.IGNORECASE,
)
"""A memory that adds a thing beside another rather than replacing it ("User also coaches the under-14s"), or
says the older one still holds ("Quit keto, now just eating normally, but still plenty of coffee")."""
ABOUT_BEFORE = re.compile(
    r"\b(?:before|used to|use to|previous(?:ly)?|original(?:ly)?|at first|former(?:ly)?|old|older|earlier|ago|"
    r"back then|in the past|history|was|were|chang(?:e|ed|es)|both|all|ever|first)\b",
    re.IGNORECASE,
)
"""A question about the past or about the change itself: both values answer it."""


TURN_GAP = 60.0
"""Seconds between two memories of one session that make them two turns (one turn's clauses are written at once)."""
_CLAUSE = re.compile(
    r";\s+|,\s+(?:and|but|so|while|though|although|whereas)\s+|\s+(?:but|while|whereas)\s+", re.IGNORECASE
)
"""Where one memory joins two statements: a semicolon, a conjunction after a comma, "but", "while" (a title's colon
and a comma alone do not: "Flat 3: laminate floor going in instead", "MAQS pads in late summer, done this year")."""


def said_at(record: Any) -> float:
    """When a memory was last written: its update, or its creation when that is later (an event may be dated)."""
    return max(float(record.created_at or 0.0), float(record.updated_at or 0.0))


def later_turn(new: Any, old: Any) -> bool:
    """Whether the record ``new`` was said in a later turn than ``old``: written later, in another session or
    :data:`TURN_GAP` later (the clauses of one turn, "new work email, and they gave me a Pixel", change nothing of
    each other)."""
    if said_at(new) <= said_at(old):
        return False
    if new.session_id and old.session_id and new.session_id != old.session_id:
        return True
    return said_at(new) - said_at(old) >= TURN_GAP


def change_answers(text: str, asked: set[str]) -> bool:
    """Whether the change ``text`` says is what a question with the words ``asked`` found: of a memory of several
    clauses, a clause with a change word holds one of those words ("Moved base to Exeter this month, and Nell's
    had three pups" answers "What's the news with Nell?" by its second clause, which changes nothing). A memory
    the question found by meaning alone (no word of it) or of one clause is taken as it is."""
    parts = [part for part in _CLAUSE.split(text) if part.strip()]
    if len(parts) < 2:
        return True
    matched = asked & set(analyze(text).terms)
    if not matched:
        return True
    return any(CHANGE.search(part) and matched & set(analyze(part).terms) for part in parts)


def _found(memory: Any) -> bool:
    signals = memory.signals
    return memory.section in SEARCHED and "rrf" in signals and (signals.get("lexical") or signals.get("dense"))


def comparable(one: Any, other: Any) -> bool:
    """Whether two memories answer the question as well on one signal (see :data:`LEXICAL_SHARE`)."""
    for signal, share in (("lexical", LEXICAL_SHARE), ("dense", DENSE_SHARE)):
        a, b = float(one.signals.get(signal) or 0.0), float(other.signals.get(signal) or 0.0)
        if a > 0 and b > 0 and min(a, b) >= share * max(a, b):
            return True
    return False


def says_change(text: str) -> bool:
    """A change word and no adding word (see :data:`CHANGE`, :data:`ADDING`)."""
    return CHANGE.search(text) is not None and ADDING.search(text) is None


def changed_pairs(question: str, memories: Sequence[Any]) -> dict[str, str]:
    """{newer id: older id} for the pairs of ``memories`` (a context's, each with ``record``, ``score``,
    ``signals``, ``section``) to show as one change for ``question`` (see the module's rules)."""
    if ABOUT_BEFORE.search(question):
        return {}
    reading = getattr(question, "analysis", None)
    asked = set((reading if reading is not None else analyze(question)).terms)
    found = sorted((m for m in memories if _found(m)), key=lambda m: (-m.score, m.record.id))[:TOP]
    if len(found) < 2:
        return {}
    pairs: dict[str, str] = {}
    taken: set[str] = set()
    for new in sorted(found, key=lambda m: -said_at(m.record)):
        if new.record.id in taken or not says_change(new.record.content):
            continue
        if not change_answers(new.record.content, asked):
            continue
        older = [
            m
            for m in found
            if m.record.id != new.record.id
            and m.record.id not in taken
            and later_turn(new.record, m.record)
            and comparable(new, m)
            and not different_subjects(new.record.content, m.record.content)
        ]
        if len(older) != 1:
            continue
        pairs[new.record.id] = older[0].record.id
        taken |= {new.record.id, older[0].record.id}
    return pairs


__all__ = [
    "ABOUT_BEFORE",
    "ADDING",
    "CHANGE",
    "change_answers",
    "changed_pairs",
    "comparable",
    "later_turn",
    "said_at",
    "says_change",
]
