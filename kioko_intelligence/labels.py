"""Numbers that name a thing rather than measure it: "line 3", "press 2", "cell 1", "station 12", "room 4".

Supersede by slot reads a newer number in the same frame as a newer value ("we have 3 kids" -> "now we have
4 kids"). But a number right after a noun is often the thing's name: "The line 1 conveyor jammed" and "The line
2 conveyor jammed" are two conveyors, not one conveyor's old and new state. Without a word of change in the
turn, two statements whose labels differ are about different things, and neither replaces the other; so are two
that each name things by labels and share no label word ("Cut scrap on press 4 by 31 %" is no newer value of
"cut scrap on line 5 by 5 %": the numbers measure two presses' scrap).
"""

from __future__ import annotations

import re

_LABELLED = re.compile(
    r"\b([A-Za-z][A-Za-z-]+)\s+#?(\d+[A-Za-z]?)\b"
    r"(?!\s*(?:%|percent|kg|kilos?|km|miles?|(?!(?:was|is|has|does|goes|says|this|its|his|us|plus|less)\b)[a-z]+s\b))"
)
"""A word, then a number not followed by a unit or a plural noun ("3 kids" counts; "line 3 conveyor" names; "batch
150 was harvested" names too: "was" is a verb, not a plural)."""
_ARTICLE_LABELLED = re.compile(
    r"\b(?:the|a|an|my|our|your|their|its|this|that)\s+([A-Za-z][A-Za-z-]+)\s+#?(\d+[A-Za-z]?)\b"
    r"(?!\s*(?:%|percent|kg|kilos?|km|miles?)\b)",
    re.IGNORECASE,
)
"""After an article, a word and a number name a thing even before a plural noun: "the line 3 dashboards" (a count
has the article next to its number: "the 3 dashboards")."""

_NOT_A_NAME = frozenset(
    "have has had got get own owns is are was were am be been about around at by to of for with in on than over "
    "under only just now nearly almost roughly lose lost gain gained weigh weighs weighed run ran need needs want "
    "wants make makes made earn earns pay pays paid sleep slept drink drank eat ate take takes took do does did "
    "the a an my our your their his her its every each after before since until till from into per and or but "
    "last next first this that these those some any all no re ve ll "
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec "
    "monday tuesday wednesday thursday friday saturday sunday".split()
)
"""Words after which a number is an amount, a date, a time or a position in a list, not a thing's name."""


def labels(text: str) -> dict[str, set[str]]:
    """The labelled numbers of ``text``: label word (lower case) -> the numbers it names ("line" -> {"3"})."""
    found: dict[str, set[str]] = {}
    for word, number in _LABELLED.findall(text) + _ARTICLE_LABELLED.findall(text):
        if word.lower() not in _NOT_A_NAME:
            found.setdefault(word.lower(), set()).add(number.lower())
    return found


def different_things(new_text: str, old_text: str) -> bool:
    """Do the two texts name a thing by the same label word with different numbers, and nothing by both labels?
    Or do both name things by label words and share none ("server 3" against "cell 5 ... port 204")?

    "The line 2 conveyor jammed" against "The line 1 conveyor jammed": yes. "Move the standup to room 4" against
    "The standup is in room 3": yes too, which is why the caller asks only when the turn says no word of change
    ("now", "moved", "instead" ...): with one, the newer label is the newer value.
    """
    new, old = labels(new_text), labels(old_text)
    shared = set(new) & set(old)
    if new and old and not shared:
        return True  # "cut scrap on press 4" and "cut scrap on line 5": each names its own thing, none the other's
    return any(not (new[word] & old[word]) for word in shared)
