"""The session's scratchpad follows the user when they move on to another thing of the same shape.

"Debugging on host web-03", then "web-03 looks healthy, the problem is on web-07, I'm on that box now":
the task is now about web-07. A scratchpad value (the task, a ticket, a file) holding an identifier is
rewritten with the turn's new identifier of the same shape (a path for a path, a code with the same letters
for a code) when the turn says the user moved on ("on to", "switched over to", "the problem is on",
"I'm on ... now"). Without such words another identifier is only mentioned ("there's also a related ticket
OPS-2998"): the scratchpad keeps what it holds, and when the session's task is about the identifier a slot
holds, a router's ``working.set`` of that slot to the merely mentioned one is skipped.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kioko_core.store import Scope
from kioko_intelligence.ops import SKIPPED, MemoryOp

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

MOVE_ON = re.compile(
    r"\b(?:on to|onto|moving on to|moved on to|switch(?:ed|ing)?(?:\s+over)?\s+to|jump(?:ed|ing)?(?:\s+over)?\s+to|"
    r"over to|now on|now (?:i'm|i am|we're|we are) on|(?:resolved|fixed|done|closed|sorted|finished|completed?)[,.]?\s+"
    r"(?:now|next)|next up is|"
    r"(?:i'm|i am|we're|we are)\s+on\b.*\bnow|(?:^|(?<=[.!?]\s))on\s+[^.!?]*?\bnow|"
    r"(?:the\s+)?(?:real\s+)?(?:problem|issue|bug|culprit|fault)\s+"
    r"(?:is|was)\s+(?:on|in|at)|now it's|it's actually)\b|\b(?:now|next)\s*:",
    re.IGNORECASE,
)
"""Words that say the user's attention moved to another thing."""
_TOKEN = re.compile(
    r"(?<![\w/.-])(?:[\w.-]*/[\w./-]*\w|[\w-]+\.[A-Za-z]{1,5}\b|[A-Za-z]+[-_]?\d[\w-]*|#\d+|"
    r"(?!(?:19|20)\d\d\b)\d{3,5}(?![\d%]|[.,:]\d)|\d{2,}-\d{3,})(?![\w/-])",
)
"""An identifier: a path, a file name, a code with letters and digits (web-03, OPS-3310, C2065), a #number,
a bare number of three to five digits that is no year ("cow 318", "room 412"), a number and a number of three digits
or more joined by a dash (an order or a job: "55-1930")."""
_COUNTED = re.compile(r"\b[A-Za-z]{3,}\s+\d{1,3}\b(?![%]|[.,:]\d)")
"""A thing and its small number ("chapter 7", "bay 3", "table 12"): the next one of a series is another such."""
_FINISHED = (
    r"(?:'s|\s+is|\s+was|\s+has been|\s+got)?\s+(?:now\s+|all\s+|finally\s+)?(?:fixed|done|closed|merged|resolved|"
    r"finished|sorted|shipped|deployed|completed?|handled|solved|out of the way|went fine|looks? (?:fine|healthy|ok))\b"
)
"""After an identifier: the user is done with it ("BUG-2211 fixed and merged", "db-02 went fine")."""


def _tokens(text: str) -> list[str]:
    """The identifiers of ``text`` and its numbered things ("chapter 7"), once each whatever their case."""
    found: dict[str, str] = {}
    for token in _TOKEN.findall(text) + _COUNTED.findall(text):
        found.setdefault(token.lower(), token)
    return list(found.values())


def _newer(old: str, value: str, said: list[str]) -> list[str]:
    """The identifiers ``said`` of ``old``'s shape that ``value`` does not hold already."""
    return [t for t in said if t.lower() != old.lower() and t.lower() not in value.lower() and _shape(t) == _shape(old)]


def _shape(token: str) -> tuple[str, str]:
    if " " in token:
        return ("counted", token.split()[0].lower())
    if "/" in token or re.search(r"\.[A-Za-z]{1,5}$", token):
        return ("path", "")
    if token.startswith("#"):
        return ("number", "")
    if token.isdigit():
        return ("bare", "")
    letters = re.match(r"[A-Za-z]+", token)
    return ("code", letters.group(0).lower() if letters else "")


def working_changes(
    memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, session_id: str | None, turn_text: str
) -> None:
    """Add a ``working.set`` rewriting each scratchpad value whose identifier the turn moved on from; without
    a move, skip one that would overwrite the identifier the session's task is about."""
    if not session_id:
        return
    pad = memory.working.all(user_id=scope.user_id, agent_id=scope.agent_id, session_id=session_id)
    _past_the_finished(ops, turn_text)
    if not MOVE_ON.search(turn_text) and not _held_finished(pad, turn_text):
        task = pad.get("task")
        for op in ops:
            key, held = op.fields.get("key"), pad.get(str(op.fields.get("key")))
            if op.op != "working.set" or op.status != "planned" or key == "task" or not isinstance(held, str):
                continue
            if isinstance(task, str) and held in task and op.fields.get("value") != held:
                op.status, op.error = SKIPPED, f"only mentioned: the session's task is still about {held}"
        for op in ops:
            if op.op == "working.set" and op.status == "planned" and op.fields.get("key") == "task":
                if goes_on(task, str(op.fields.get("value") or ""), turn_text):
                    op.status, op.error = SKIPPED, "the session's task goes on: the held task says more"
        return
    said = _tokens(turn_text)
    for op in ops:
        # the router's own "task = Moving on to db-05" says less than the held task with its identifier swapped
        held, value = pad.get(str(op.fields.get("key"))), op.fields.get("value")
        if op.op != "working.set" or op.status != "planned" or not isinstance(held, str) or not isinstance(value, str):
            continue
        if len(value.split()) <= 6 and MOVE_ON.search(value):
            swapped = _swapped(held, said)
            if swapped is not None:
                op.fields["value"] = swapped
    planned = {op.fields.get("key") for op in ops if op.op == "working.set" and op.status == "planned"}
    for key, value in pad.items():
        if key in planned or not isinstance(value, str):
            continue
        for old in _tokens(value):
            newer = _newer(old, value, said)
            if len(newer) != 1:
                continue  # none, or not sure which one the user moved to
            ops.append(
                MemoryOp(
                    "working.set",
                    fields={"key": key, "value": value.replace(old, newer[0])},
                    reason="the user moved on to another thing of the same kind",
                    confidence=0.7,
                )
            )
            break


_STILL = re.compile(r"\b(?:still|yet again|carrying on|keep(?:ing)? going)\b", re.IGNORECASE)
"""Words that say the task at hand goes on ("Still going through the PR comments")."""
_WORD = re.compile(r"[A-Za-z][\w'-]{1,}|\d+")
_SMALL = frozenset("the a an and or of on in at to for with while through still going doing my our its".split())


def goes_on(held: object, value: str, turn_text: str) -> bool:
    """Does the turn say the session's task ``held`` goes on ("Still going through the PR comments" after "Reviewing
    PR 881 while the schema migration runs on staging"): a word of going on (:data:`_STILL`) and a word of the held
    task in the new one? The held task, which says more, stays (the migration it names is still running); the new
    value is a part of it, not a move to another thing (a move is read by :data:`MOVE_ON`)."""
    if not isinstance(held, str) or not value or not _STILL.search(turn_text):
        return False
    mine = {w.lower() for w in _WORD.findall(value)} - _SMALL
    theirs = {w.lower() for w in _WORD.findall(held)} - _SMALL
    return bool(mine & theirs) and not theirs <= mine


def _held_finished(pad: dict[str, object], turn_text: str) -> bool:
    """Does the turn say an identifier the scratchpad holds is done, by the whole code or by its number alone
    ("1182 is merged. Grabbing PAY-1190 next" while the ticket is PAY-1182)? The user has then moved on, as with
    :data:`MOVE_ON`'s words."""
    for value in pad.values():
        if not isinstance(value, str):
            continue
        for token in _tokens(value):
            number = re.search(r"\d{3,}$", token) if _shape(token)[0] == "code" else None
            if finished(turn_text, token) or (number is not None and finished(turn_text, number.group(0))):
                return True
    return False


def _swapped(value: str, said: list[str]) -> str | None:
    """``value`` with its identifier replaced by the one new identifier of the same shape ``said`` names."""
    for old in _tokens(value):
        newer = _newer(old, value, said)
        if len(newer) == 1:
            return value.replace(old, newer[0])
    return None


def finished(turn_text: str, token: str) -> bool:
    """Does the turn say the user is done with ``token`` ("BUG-2211 fixed and merged")?"""
    return re.search(rf"(?<![\w-]){re.escape(token)}{_FINISHED}", turn_text, re.IGNORECASE) is not None


def _past_the_finished(ops: list[MemoryOp], turn_text: str) -> None:
    """A router's ``working.set`` of an identifier the turn says is done takes the turn's one other identifier
    of the same shape: "BUG-2211 fixed and merged. now: BUG-2240 flaky retry test" -> ticket BUG-2240."""
    said = list(dict.fromkeys(_TOKEN.findall(turn_text)))
    for op in ops:
        value = op.fields.get("value")
        if op.op != "working.set" or op.status != "planned" or not isinstance(value, str):
            continue
        for old in _TOKEN.findall(value):
            if not finished(turn_text, old):
                continue
            newer = [t for t in said if t != old and _shape(t) == _shape(old) and not finished(turn_text, t)]
            if len(newer) == 1:
                op.fields["value"] = value.replace(old, newer[0])
                op.reason = f"{old} is done; the user moved on to {newer[0]}"
            break
