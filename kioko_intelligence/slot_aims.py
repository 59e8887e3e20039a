"""A goal said as the user's aim *now*: "so my objective is now to walk the 10 km in June", "New aim: teach my
grandson to helm".

A goal is one of the slots a user holds one value of at a time, but the words of a new aim seldom repeat the
old one's ("run the half marathon of Lyon in April" -> "walk the 10 km in June"), so the frame rules of
:mod:`.slots` find nothing to replace. What says the aim changed is the aim word itself said as new or as now:
"my goal is now ...", "now my target is ...", "my new goal is ...", "New aim: ...". When the user has exactly one
open goal, that goal is the one the new aim replaces: superseded when the turn says so plainly ("is now", "has
changed", a word of change or of giving up beside a new aim), else a marked conflict (the router is not sure:
the new goal is shown first with "(was: ...)"). With two or more open goals nothing is guessed; a goal the turn
names by its words is the frame rules' and :mod:`.goal_reading`'s.
"""

from __future__ import annotations

import re

from kioko_core.store import Record
from kioko_intelligence.slot_reading import CUE

_AIM = r"(?:goal|target|aim|objective)"
_AIM_NOW = re.compile(
    rf"\b(?:my|our|the)\s+{_AIM}\s+(?:is\s+now|now\s+is|has\s+changed|changed|is\s+different)\b|"
    rf"\bnow\s+(?:my|our|the)\s+{_AIM}\s+is\b",
    re.IGNORECASE,
)
"""The aim said as the one in force now: the turn says plainly it replaces the old one."""
_NEW_AIM = re.compile(rf"\b(?:new|next)\s+{_AIM}\s*(?::|\bis\b|-)", re.IGNORECASE)
"""The aim said as new or next ("New aim: ...", "my new goal is ...", "Next target is ..."): most often in place of
the old one."""
_GIVEN_UP = re.compile(
    r"\b(?:given up|gave up|won't have it|not going to happen|unrealistic|too much|can't|cannot|no longer|injur\w*)\b",
    re.IGNORECASE,
)
"""Words that say the old aim is out of reach beside a new one ("Knees won't have it. New aim: ...")."""
_REACHED = re.compile(
    r"\b(?:passed|done|finished|achieved|completed|reached|nailed|smashed|made it|ticked off)\b", re.IGNORECASE
)
"""Words that say the old aim is reached beside the next one ("CBT passed this morning! Next target is ...")."""


def aim_changed(turn_text: str) -> bool | None:
    """True when the turn says its aim is the one in force now (sure), False when it says only that its aim is
    new (unsure), None when it says neither."""
    if _AIM_NOW.search(turn_text):
        return True
    if _NEW_AIM.search(turn_text):
        rest = _NEW_AIM.sub(" ", turn_text)
        return bool(CUE.search(rest) or _GIVEN_UP.search(turn_text) or _REACHED.search(rest))
    return None


def replaced_aim(open_goals: list[Record], turn_text: str) -> tuple[Record, bool] | None:
    """The one open goal a new aim replaces and whether surely, or None (no aim said anew, or not one goal open)."""
    sure = aim_changed(turn_text)
    if sure is None or len(open_goals) != 1:
        return None
    return open_goals[0], sure
