"""The session's task moves on: a bare activity said in a session that has a task is the new task.

People on a shift, at a desk or at a bench say what they turn to as a fragment: "Cutting the car chase in reel 3
right now", then "Car chase locked. Colour grading the opening titles now", "Sales claims signed off. Starting on
marketing's claims", "Login test fixed. Next: the memory leak in the image resizer", "Found it in the dog's bed.
Now it's Max's water bottle that's vanished". The router reads the activities of a desk and an activity said with
"now" (:mod:`.activities`); what it keeps of the others is a piece of knowledge (or nothing), and the session's
task, still the first thing, is shown as what the user is doing. This reads the session, not a phrasing: when the
session's scratchpad holds a task and the turn sets none, the turn's first sentence that

- is an activity fragment: it opens with a verb in -ing (or a noun and one, "colour grading ...", or "I'm" and
  one) and states nothing else, or
- names what comes next ("Next: ...", "Now: ..."), or opens with "now" ("Now it's ...")

is the new task (``working.set task``), and the router's ``add`` of it is skipped; not when the sentence says the
held task goes on (:func:`.working_changes.goes_on`: "Still going through the PR comments" after "Reviewing PR 881
while the schema migration runs on staging"). A short sentence of the same
turn about the task it leaves ("Car chase locked.", "212 is quiet now.", "Clause 9 is finished.": a word of the
old task the new one lacks) is how that one ended and is not kept as a lasting fact beside the new task (the
session's log keeps the turn).

Never an aim ("trying", "planning"), a state ("feeling"), a way of living ("working at", "living in"), a habit
("every Friday"), a time to come ("tomorrow", "next week", "on Monday") or a heading ("Onboarding: HR sends ...").
A session with no task yet is left to the router: a first fragment ("Hunting for Ella's left shoe") made the task
by this rule was shown as stale when the next turn moved on in a shape nothing reads (measured: one never-read
probe lost).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import kioko_intelligence.rules as rules
from kioko_core.store import Filter, Record, Scope
from kioko_intelligence.activities import NOT_ACTIVITIES
from kioko_intelligence.language import capitalise, sentences
from kioko_intelligence.ops import KIND_OF_MEMORY, SKIPPED, MemoryOp
from kioko_intelligence.slot_marks import current
from kioko_intelligence.slot_reading import text_terms
from kioko_intelligence.turn import same_turn
from kioko_intelligence.working_changes import goes_on

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

_LOOSE_OPS = frozenset({"knowledge.add", "episode.add", "fact.add"})
"""What the router keeps of a sentence it did not read as a kind of its own."""
_LEAD = re.compile(r"^(?:(?:and|so|ok|okay|right|now|currently|then|still|just|also)\b[\s,]*)+", re.IGNORECASE)
_LABEL = re.compile(r"^(?:next(?:\s+up)?|now|up next|then)\s*:\s*(?P<task>\S.*)$", re.IGNORECASE)
_ATTENDING = r"(?:going\s+(?:through|over)|looking\s+(?:at|into|through)|working\s+(?:on|through)|starting\s+on)\b"
"""Verbs the router leaves out as lasting ("working at", "going to Paris") that take the thing in hand."""
_GERUND = rf"(?:{_ATTENDING}|(?!(?:{NOT_ACTIVITIES})\b)[a-z]{{3,}}ing\b)"
_FRAGMENT = re.compile(rf"^(?P<task>(?:[a-z]{{3,}}\s+)?{_GERUND}\s+\S.*)$", re.IGNORECASE)
_NOT_MODIFIERS = re.compile(
    r"^(?:the|a|an|my|our|your|his|her|their|its|this|that|i|we|you|he|she|they|it|is|are|was|not|no|been|be|"
    r"keep|stop|start|enjoy|love|like|hate|finish|quit|avoid|mind|try|about|for|with|of|in|on|at|by|from|to|after|"
    r"before|without|while|when|since|how|what|who)\s",
    re.IGNORECASE,
)
"""A word before the -ing word that makes it no compound activity ("the meeting", "stop smoking", "keep going")."""
_TO_COME = re.compile(
    r"\b(?:tomorrow|tonight|later|soon|next\s+(?:week|month|year|\w+day)|this\s+(?:weekend|afternoon|evening)|"
    r"on\s+\w+days?|in\s+(?:the\s+)?(?:spring|summer|autumn|winter|\w+ary|march|april|may|june|july|august|"
    r"september|october|november|december))\b",
    re.IGNORECASE,
)
_NOW_FIRST = re.compile(r"^(?:and\s+|so\s+)?(?:right\s+)?now\b,?\s+(?!(?:I|I'm|we|we're)\b)", re.IGNORECASE)
"""A sentence that opens with "now" in a session with a task says where the user's attention is ("Found it.
Now it's Max's water bottle that's vanished"); "Now I ..." is the router's to read."""
_PROGRESSIVE = re.compile(r"^(?:I'm|I am|we're|we are)\s+(?:(?:now|currently|just|also)\s+)*(?=[a-z]+ing\b)", re.I)
_TRAILING_NOW = re.compile(r"(?:,?\s+(?:right\s+)?now|,?\s+at the moment|,?\s+currently)\s*[.!]*$", re.IGNORECASE)
_CLOSING_WORDS = 10


def doing(sentence: str) -> str | None:
    """The task ``sentence``, said in a session that has a task, says the user is doing now, or None."""
    said = sentence.strip().rstrip(".!").strip()
    if not said or "?" in said or rules.HABIT.search(said) or _TO_COME.search(said):
        return None
    label = _LABEL.match(said)
    if label:
        return _task(label.group("task"))
    now = _NOW_FIRST.match(said)
    if now and len(said[now.end() :].split()) >= 3:
        return _task(said[now.end() :])
    if ":" in said:
        return None  # a heading ("Onboarding new hires: HR sends ...")
    bare = _LEAD.sub("", said)
    bare = _PROGRESSIVE.sub("", bare)  # "I'm restocking the bar": the user moved on
    found = _FRAGMENT.match(bare)
    if found is None or rules.STATED.search(bare) or _modified_badly(bare):
        return None
    if len(found.group("task").split()) < 3 or re.search(r"\b(?:I|I'm|we|we're)\b", bare):
        return None
    return _task(found.group("task"))


def _modified_badly(text: str) -> bool:
    """Is the word before the -ing word one that makes it no compound activity ("Stop smoking ...")?"""
    first = text.split(maxsplit=1)[0].lower()
    return not first.endswith("ing") and (_NOT_MODIFIERS.match(text) is not None or not first.isalpha())


def _task(text: str) -> str:
    return capitalise(_TRAILING_NOW.sub("", text.strip().rstrip(".!").strip()))


def task_moves(memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, session_id: str | None, turn_text: str) -> None:
    """Turn the router's ``add`` of a bare activity into the session's task; leave out what closed the last one."""
    if not session_id:
        return
    pad = memory.working.all(user_id=scope.user_id, agent_id=scope.agent_id, session_id=session_id)
    held = pad.get("task") if isinstance(pad.get("task"), str) else None
    setting = [op for op in ops if _sets_task(op)]
    if held is not None and not setting:
        for sentence in sentences(turn_text):
            kept = [op for op in ops if _loose(op) and _within(str(op.fields.get("text") or ""), sentence)]
            task = doing(sentence) or next((t for op in kept if (t := doing(str(op.fields.get("text") or "")))), None)
            if task is None:
                continue
            if goes_on(held, task, sentence):
                break  # "Still going through the PR comments": the held task goes on, it did not move
            for op in kept:
                op.status, op.error = SKIPPED, "kept as the session's task instead"
            setting.append(
                MemoryOp(
                    "working.set",
                    fields={"key": "task", "value": task},
                    reason="what the user is doing now: the session's task moved on",
                    confidence=0.7,
                )
            )
            ops.append(setting[-1])
            break
    if held is None or not setting:
        return
    new = " ".join(str(op.fields.get("value") or "") for op in setting)
    for op in ops:
        if _loose(op) and _closes(str(op.fields.get("text") or ""), held, new):
            op.status, op.error = SKIPPED, "says how the session's last task ended: the task moved on"


def _sets_task(op: MemoryOp) -> bool:
    return op.status == "planned" and op.op == "working.set" and op.fields.get("key") == "task"


def _loose(op: MemoryOp) -> bool:
    return op.status == "planned" and op.op in _LOOSE_OPS


def _within(text: str, sentence: str) -> bool:
    """Was ``text`` kept from ``sentence`` ("The memory leak ..." from "Next: the memory leak ...")?"""
    said = text.strip().rstrip(".!").lower()
    return bool(said) and said in sentence.lower()


def _closes(text: str, held: str, new: str) -> bool:
    """Is ``text`` a short sentence about the task the session leaves (a word of it that the new task lacks)?"""
    if not text or len(text.split()) > _CLOSING_WORDS or re.search(r"\b(?:I|I'm|we|we're)\b", text):
        return False
    said = set(text_terms(text))
    return bool(said & (set(text_terms(held)) - set(text_terms(new))))


_ENDED_KINDS = frozenset(KIND_OF_MEMORY[k] for k in ("knowledge", "episode", "fact"))
"""The kinds the router keeps an activity of the moment as (a piece of knowledge, an event, a fact)."""
_ACTIVE_NOW = re.compile(
    rf"\b(?!(?:{NOT_ACTIVITIES})\b)[a-z]{{3,}}ing\b[^.;,!?]*?\b(?:right\s+now|now|currently|at\s+the\s+moment)\b",
    re.IGNORECASE,
)
"""An activity said with its time of now, anywhere in a memory ("Table 12 is waiting on the Barolo, decanting it
now")."""
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def ended_activities(
    memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, session_id: str | None, turn_text: str
) -> None:
    """The task at hand replaces the activity an earlier turn of the session stated, when this turn closes it.

    A turn that sets the session's task (``working.set task``) after a short sentence about what the user was
    doing ("Methadone's done. Doing the care home trays for Rosemount now": a word of the old activity the new task
    lacks, no "I" or "we") ends an earlier turn's memory of this session that holds that word and was

    - an activity of the moment: a bare activity ("Checking the methadone doses for the morning collections") or
      one said with "now" ("Table 12 is waiting on the Barolo, decanting it now"), or
    - said in the turn that set the scratchpad value this turn replaces ("wip: BUG-2211 null deref in the
      exporter" beside the ticket BUG-2211; "she's calving, might be a long night" beside the task "Seeing to cow
      318", closed by "318's calved fine"): by the turns' numbers (:data:`.turn.TURN_KEY`), never by time, as a
      session's turns may come a fraction of a second apart.

    The task's op supersedes it, and the router's ``add`` of the closing sentence is left out ("Fridge is sorted."
    says how the activity ended; the session's log keeps the turn). A memory of another session, one with nothing
    of the moment ("The walk-in fridge is from 2009" stays when "Fridge is sorted. Doing the stock count now."), or
    a turn that sets no task, is left alone."""
    if not session_id:
        return
    setting = [op for op in ops if _sets_task(op) and isinstance(op.fields.get("value"), str)]
    # no task set: the turn's bare activity is the task when it follows the close of an earlier one
    pending = None if setting else _next_activity(memory, ops, scope, session_id, turn_text)
    if pending is not None:
        setting = [pending[0]]
    if not setting:
        return
    new = set(text_terms(" ".join(str(op.fields.get("value")) for op in [*ops, *setting] if _sets_value(op))))
    closing = {
        sentence.strip(): set(text_terms(sentence)) - new
        for sentence in _SENTENCE.split(turn_text)
        if len(sentence.split()) <= _CLOSING_WORDS and not re.search(r"\b(?:I|I'm|we|we're)\b", sentence)
    }
    closing = {sentence: words for sentence, words in closing.items() if words}
    if not closing:
        return
    replaced = _replaced_values(memory, scope, session_id, ops)
    ended, closed = [], set()
    for record in memory.store.scan(scope, Filter(kinds=_ENDED_KINDS, session_id=session_id)):
        if not current(record):
            continue
        of_the_moment = doing(record.content) is not None or _ACTIVE_NOW.search(record.content) is not None
        if not (of_the_moment or any(same_turn(record, held) for held in replaced)):
            continue
        words = set(text_terms(record.content))
        closers = [sentence for sentence, said in closing.items() if words & said]
        if closers:
            ended.append(record.id)
            closed.update(closers)
    if not ended:
        return
    if pending is not None:
        ops.append(pending[0])
        for kept in pending[1]:
            kept.status, kept.error = SKIPPED, "kept as the session's task instead"
    op = setting[0]
    op.fields["supersedes"] = [*op.fields.get("supersedes", []), *ended]
    op.reason = (op.reason + "; " if op.reason else "") + "the task at hand replaces the activity it closed"
    for other in ops:
        if _loose(other) and any(_within(str(other.fields.get("text") or ""), sentence) for sentence in closed):
            other.status, other.error = SKIPPED, "says how an activity of the session ended: the task moved on"


def _next_activity(
    memory: MemoryLayer, ops: list[MemoryOp], scope: Scope, session_id: str, turn_text: str
) -> tuple[MemoryOp, list[MemoryOp]] | None:
    """The task a turn that sets none says as a bare activity (:func:`doing`: "Now on the Kemp probate file"), in a
    session with no task, and the router's adds of it; None when there is none (see :func:`task_moves`)."""
    pad = memory.working.all(user_id=scope.user_id, agent_id=scope.agent_id, session_id=session_id)
    if "task" in pad:
        return None
    for sentence in _SENTENCE.split(turn_text):
        kept = [op for op in ops if _loose(op) and _within(str(op.fields.get("text") or ""), sentence)]
        task = doing(sentence) or next((t for op in kept if (t := doing(str(op.fields.get("text") or "")))), None)
        if task is not None:
            op = MemoryOp(
                "working.set",
                fields={"key": "task", "value": task},
                reason="what the user is doing now, after closing what they were doing",
                confidence=0.7,
            )
            return op, kept
    return None


def _sets_value(op: MemoryOp) -> bool:
    return op.status == "planned" and op.op == "working.set"


def _replaced_values(memory: MemoryLayer, scope: Scope, session_id: str, ops: list[MemoryOp]) -> list[Record]:
    """The session's scratchpad values the turn's ``working.set`` ops give a new value."""
    changing = {str(op.fields.get("key")): str(op.fields.get("value")) for op in ops if _sets_value(op)}
    return [
        r
        for r in memory.store.scan(scope, Filter(kinds=frozenset({"working"}), session_id=session_id))
        if str(r.metadata.get("key")) in changing
        and str(r.metadata.get("value")) != changing[str(r.metadata.get("key"))]
    ]
