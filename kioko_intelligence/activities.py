"""What the user is doing right now, said without a verb of work: the session's task.

The task rows of :mod:`~kioko_intelligence.rules` read the activities of a desk ("debugging", "reviewing") and an
activity said with a time ("... today", "... right now"). People on a shift say what they are doing as a bare
participle, with any verb: "Juggling an Easyjet with a hydraulic warning on final", "Checking the methadone doses
for the morning collections", "Now I am translating chapter 7 of the manual", "next up: audio desync in cutscene
3". Such a clause is the session's task when it is

- a fragment that opens with a verb in -ing (no subject) and states nothing else (no "is", "has", "every" ...), in a
  sentence that says "now" or "currently", or after a sentence that closed the last thing ("Barolo's out. Opening
  the magnum of Krug for table 4"); never in a sentence with a colon ("Onboarding new hires: HR sends ..." names a
  topic), or
- "I'm / we're" with a verb in -ing in a sentence that opens with "now", "currently", "right now" or "at the
  moment" ("I'm now running the Leeds office" is a job, not this session's task: "now" inside is not enough), or
- what follows "next up" or "now:" ("fixed, next up: audio desync").

The verb must be an activity: not a thing ("morning"), a state ("feeling"), an aim ("trying", "hoping",
"planning": goals), a way of living ("working", "living", "learning", "studying", "training": lasting facts).
"""

from __future__ import annotations

import re

import kioko_intelligence.rules as rules

NOT_ACTIVITIES = (
    "nothing|something|anything|everything|morning|evening|thing|during|bring|string|spring|wedding|ceiling|building|"
    "meeting|king|ring|sing|feeling|being|having|loving|liking|hating|enjoying|hoping|thinking|wondering|missing|"
    "wishing|getting|going|coming|moving|trying|planning|learning|studying|training|working|living|staying|using|"
    "saving|aiming|considering|starting|running|looking|seeing|dating|expecting|waiting|leaving|teaching|"
    "wearing|sleeping|eating|drinking|reading|writing|playing|watching|listening|keeping|sharing|renting|owning"
)
_ACTIVITY = rf"(?!(?:{NOT_ACTIVITIES})\b)[a-z]{{2,}}ing\b"
_FRAGMENT = re.compile(rf"^(?:currently\s+|still\s+|now\s+|just\s+)*(?P<task>{_ACTIVITY}\s+\S.*)$", re.IGNORECASE)
_SUBJECT = re.compile(
    rf"^(?:i'm|i am|we're|we are)\s+(?:now\s+|currently\s+|just\s+)*(?P<task>{_ACTIVITY}\s+\S.*)$", re.I
)
_NOW_FIRST = re.compile(r"^\W*(?:now|currently|right now|at the moment)\b", re.IGNORECASE)
_NOW = re.compile(r"\b(?:now|currently|right now|at the moment)\b(?!\s*:)", re.IGNORECASE)
_DONE_BEFORE = re.compile(
    r"\b(?:out|done|finished|sorted|fixed|over|complete|completed|cleared|served|safe|away)\s*[.!;]\s*$", re.I
)
"""A sentence just before that closes the last thing ("Barolo's out.", "Speedbird's down safe."): the next
participle is what the user turned to."""
_NEXT_UP = re.compile(r"(?:\bnext up|(?:^|[,;.!)]\s*)now)\s*:\s+(?P<task>[^:.;!?]*[^\W_][^.;!?]*)", re.IGNORECASE)
"""What the user turns to, after "next up:" or a "now:" of its own ("fixed. now: the flaky retry test"), not the
"now:" closing a heading ("Releases work differently now: ...")."""
_MODAL = re.compile(r"\b(?:can|could|should|must|does|did|do)\b", re.IGNORECASE)


def activity(clause: str, whole: str, turn: str) -> str | None:
    """The task ``clause`` says the user is doing now (``whole`` is its sentence as written, ``turn`` the turn's
    text), or None."""
    if rules.HABIT.search(clause) or rules.STATED.search(clause) or _MODAL.search(clause) or "?" in whole:
        return None
    found = _NEXT_UP.search(whole)
    if found and found.group("task").strip().lower() in clause.lower():
        return found.group("task").strip()
    if ":" in whole or _after_colon(clause, turn):
        return None  # a heading ("Onboarding new hires: HR sends ..."), a gerund that names a topic
    if _NOW_FIRST.match(whole):
        found = _FRAGMENT.match(clause) or _SUBJECT.match(clause)
    elif _NOW.search(whole) or _DONE_BEFORE.search(turn.split(whole, 1)[0] if whole in turn else ""):
        found = _FRAGMENT.match(clause)
    else:
        return None
    if found is None or len(found.group("task").split()) < 3:
        return None
    return found.group("task").strip()


def _after_colon(clause: str, turn: str) -> bool:
    """Does ``clause`` follow a colon in ``turn`` ("Releases work differently now: pushing the tag triggers CI")?"""
    at = turn.lower().find(clause[:24].lower())
    return at > 0 and turn[:at].rstrip().endswith(":")
