"""A change of role or level said as what happened: "Made partner at Hart & Doyle", "Passed my B2 Spanish exam".

The user's standing is often stated as a state ("I'm a senior associate at Hart & Doyle", "My Spanish is beginner
level", "I'm a staff nurse on the cardiology ward") and changed by an event: the user *became*, *made*, *passed*,
*was promoted to*, *moved to*, *qualified as* something. Such an event names no old value and often no value of a
type, so the slot rules of :mod:`.slots` do not see it; yet it is the newest word on the user's standing there.

A *transition* is a statement of the user (or with its subject left out) whose verb is one of becoming or
attaining (:data:`_TRANSITION`), or a title said with the time it starts and no verb ("Ward sister from the first of
the month", :data:`_TITLE_FROM`); a *state* is a short memory saying what the user is ("User is a ...", "User is
in ...", "User's Spanish is ..."). A transition replaces the user's states that share a topic word with it (not
a common one: "partner at Hart & Doyle" and "senior associate at Hart & Doyle" share the firm; "B2 Spanish exam"
and "Spanish is beginner level" the language; "still nursing" and "staff nurse" the work). Anything else is left
to the slot rules.
"""

from __future__ import annotations

import re
from typing import Callable

from kioko_core.store import Record
from kioko_intelligence.slot_reading import read_slot, text_terms

_TRANSITION = re.compile(
    r"^\W*(?:(?:so|and|finally|just|officially|today|i|i've|i have|user|user has|we)\s+)*"
    r"(?:made|became|become|got promoted to|been promoted to|was promoted to|promoted to|passed|moved (?:up )?to|"
    r"transferred to|qualified as|graduated|got my(?![^,.;!?]*\bback\b)|earned my|moved up|stepped up to|am now|'m now|is now)\b",
    re.IGNORECASE,
)
"""A verb of becoming or attaining at the start of the user's statement (its subject may be left out); "got my ...
back" ("Got my own phone back from the repair shop") is a thing returned, no attainment."""
_WHEN = (
    r"(?:(?:this|next)\s+(?:week|month|year|term|season|spring|summer|autumn|winter)|today|tomorrow|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|"
    r"november|december|(?:the\s+)?(?:first|1st|start|beginning|end)\s+of\s+(?:the\s+|next\s+|this\s+)?\w+)"
)
_TITLE_FROM = re.compile(
    rf"^\W*(?P<title>(?!(?:i|we|it|this|that|the|my|our|there|he|she|they)\b)[A-Za-z][\w-]*(?:\s+[\w-]+){{0,3}}?)\s+"
    rf"(?:as of|from|starting|effective(?: from)?)\s+{_WHEN}\b[^,;.!?]*(?:[,;].*|[.!])?$",
    re.IGNORECASE,
)
"""A standing said as a title and the time it starts, with no verb: "Ward sister from the first of the month", "Sous
chef as of this week", "Dubai-based from next month" (the user became it then)."""
_VERB = re.compile(
    r"\b(?:is|are|was|were|be|been|am|'m|'re|'s|has|have|had|will|would|can|could|do|does|did|going|gets?|got)\b",
    re.IGNORECASE,
)
_STATE = re.compile(
    r"^(?:User|I)(?:'s\s+[\w-]+(?:\s+[\w-]+)?)?\s+(?:is|am|'m)\s+(?:a|an|in|on|at|currently|still|now)?\b",
    re.IGNORECASE,
)
"""A memory saying what the user is: "User is a senior associate ...", "User's Spanish is beginner level"."""
MAX_WORDS = 16
"""A state is one short statement; a longer memory is more than the user's standing."""
_COMMON = frozenset("user year time day week month thing lot way work job".split())


def transitions(holding: Callable[[list[str]], list[Record]], text: str) -> list[Record]:
    """The user's current states (from ``holding``, current memories holding any of the terms) that the transition
    ``text`` changes; none when ``text`` is no transition."""
    titled = _TITLE_FROM.match(text.strip())
    if not _TRANSITION.search(text) and (titled is None or _VERB.search(titled.group("title"))):
        return []
    said = read_slot(text)
    words = said.frame - _COMMON
    names = {w for name in said.values.get("name", ()) for w in name.split()}
    terms = sorted({t for t in text_terms(text) if t.startswith("t:") and t[2:] not in _COMMON})
    found = []
    for record in holding(terms):
        if not _STATE.match(record.content) or len(record.content.split()) > MAX_WORDS:
            continue
        theirs = read_slot(record.content)
        their_names = {w for name in theirs.values.get("name", ()) for w in name.split()}
        if (theirs.frame - _COMMON) & words or their_names & names:
            found.append(record)
    return found
