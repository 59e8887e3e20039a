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
  "my brother lives in Leeds" and "I live in York now"), the newer not another thing beside the older
  (:mod:`.slot_additions`: "User goes to a bridge club on Fridays now" and "User goes to Mass on Sunday mornings"),
  and only one older memory so found (with two, which one changed is a guess);
- the question does not ask about the past or the change itself (:data:`ABOUT_BEFORE`: "Where did I live
  before?", "What did I use to drink?", "How has my routine changed?").

Then the newer memory is shown first with "(was: <older>)" and the older leaves that context
(:mod:`kioko_core.recall.shown_changes`). Nothing is written or marked: another question, which only the older
answers, still shows it.

The older side may be a profile slot or an instruction, which every context shows unsearched ("User's location
is Lyon." beside "I habit in Grenoble, near the mountains, since September"), when the question is about it
(:func:`asks_about`: "Where do I live?" and the location slot, "What's my rank?" and the job title, "How should you
refer to children in reports?" and an instruction sharing its words) and it is the only one so asked about, and a
newer memory that passes every rule above has no older searched memory to pair with. A slot's newer memory must be
about the user ("I", "my", "User") and not restate the slot's value; an instruction's must be said to the assistant
("you", "please", "from now on": :data:`TO_YOU`). Then the slot's or instruction's line leaves that context's
section and is the newer one's "(was: ...)".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kioko_core.embedding.embedders import embed_many, relates_unshared_words
from kioko_core.reading.analysis import analyze
from kioko_intelligence.slot_additions import added, two_named_kinds
from kioko_intelligence.slot_subjects import different_subjects, someone_elses
from kioko_intelligence.turn import same_turn, turn_of, turns_of
from kioko_intelligence.unworded_changes import restated

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
    """Whether the record ``new`` was said in a later turn than ``old``: by the numbers of the managed turns that
    said them (:func:`.turn.turns_of`), else written later, in another session or :data:`TURN_GAP` later (the
    clauses of one turn, "new work email, and they gave me a Pixel", change nothing of each other)."""
    numbered = turns_of(new, old)
    if numbered is not None:
        return numbered[0] > numbered[1]
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


STABLE = frozenset({"profile", "instructions"})
"""The sections every context shows unsearched whose lines may be the older side of a pair."""
_MY = r"\bmy\s+(?:current\s+|present\s+)?(?:{words})\b(?!'s|\s+(?:is|was)\s+(?:called|named))"
SLOT_QUESTIONS = {
    "location": r"\bwhere\b.*\b(?:i|we)\s+(?:live|living|based|reside|staying)\b|\bwhere(?:'s| is)\s+home\b",
    "job_title": r"\bwhat\s+(?:do|am)\s+i\s+(?:do\s+for\s+(?:a\s+living|work)|work(?:ing)?\s+as)\b",
    "manager": r"\bwho\s+(?:do|am)\s+i\s+report(?:ing)?\s+to\b",
    "employer": r"\b(?:who|where)\s+(?:do|am)\s+i\s+work(?:ing)?(?:\s+(?:for|at))?\b",
}
"""A question about a profile slot in other words than its name ("Where do I live?": the location)."""
_SLOT_WORDS = {
    "location": ("location", "city", "home town"),
    "job_title": ("job", "job title", "title", "role", "rank", "position", "occupation", "profession", "career"),
    "manager": ("manager", "line manager", "boss", "supervisor"),
    "employer": ("employer", "company"),
    "team": ("team",),
    "name": ("name", "full name", "surname"),
    "email": ("email", "email address", "e-mail"),
    "phone_number": ("phone", "phone number", "mobile", "mobile number"),
    "timezone": ("timezone", "time zone"),
    "address": ("address", "home address"),
    "language": ("language", "native language", "first language"),
    "hometown": ("hometown",),
    "country": ("country",),
}
"""A question naming a slot as the user's own ("What's my rank?", "Who's my boss?"), not another's ("my dog's name")."""
SLOT_ASKED = {
    slot: re.compile(
        "|".join(
            part
            for part in (
                SLOT_QUESTIONS.get(slot),
                _MY.format(words="|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))),
            )
            if part
        ),
        re.IGNORECASE,
    )
    for slot, words in _SLOT_WORDS.items()
}
ABOUT_USER = re.compile(r"\b(?:i|i'm|i've|i'd|me|my|we|we're|our|user|user's)\b", re.IGNORECASE)
"""A newer memory that may change one of the user's profile slots says it of the user."""
TO_YOU = re.compile(r"\b(?:you|your|please|from now on)\b", re.IGNORECASE)
"""A newer memory that may change an instruction is said to the assistant."""


_NOT_A_PLACE = (
    r"(?!(?:January|February|March|April|May|June|July|August|September|October|November|December|Monday|Tuesday|"
    r"Wednesday|Thursday|Friday|Saturday|Sunday|English|French|Spanish|German|Italian)\b)"
)
HOLDS = {
    "location": re.compile(rf"\b(?i:in|to|near)\s+{_NOT_A_PLACE}[A-Z][\w-]+"),
    "employer": re.compile(rf"\b(?i:at|for|joined|joining)\s+{_NOT_A_PLACE}[A-Z][\w&-]+"),
    "manager": re.compile(r"\b(?i:report(?:ing)?\s+to|manager|boss)\s+(?i:is\s+)?[A-Z][a-z]+"),
    "job_title": re.compile(
        r"\b(?i:i'm|i am|user is|became|become|promoted to)\s+(?i:now\s+)?(?i:a|an)\s+[\w-]+", re.IGNORECASE
    ),
}
"""A value of the slot's own shape, for a memory only the newest memories brought: a place after "in" or "to" (not
a month, a day or a language), an employer after "at" or "joined", a manager by name, a job as "I'm a/an ..."."""
NEAR = 0.2
"""The least cosine (the layer's semantic embedder) of such a memory with the question or the slot's line."""


def asks_about(question: str, asked: set[str], memory: Any) -> bool:
    """Whether ``question`` (its index terms ``asked``) is about the profile slot or instruction ``memory``: the
    slot named as the user's or asked in its own words (:data:`SLOT_ASKED`), an instruction sharing a word with it."""
    record = memory.record
    if memory.section == "profile":
        pattern = SLOT_ASKED.get(str(record.metadata.get("slot", "")))
        return pattern is not None and pattern.search(question) is not None
    return bool(asked & {t for t in analyze(record.content).terms if t.startswith("t:")})


def _may_change(new: Any, stable: Any) -> bool:
    """Whether the searched memory ``new`` may say a change of the slot or instruction ``stable`` (see the module)."""
    text = new.record.content
    if not later_turn(new.record, stable.record):
        return False
    if stable.section == "instructions":
        return TO_YOU.search(text) is not None
    value = str(stable.record.metadata.get("value") or "").strip().lower()
    if value and value in text.lower():
        return False  # the slot's value said again
    if someone_elses(text, stable.record.content):
        return False  # "User's parents moved to Whitby now" is no newer location of the user's
    return ABOUT_USER.search(text) is not None and not different_subjects(text, stable.record.content)


def _recent_change(question: str, memories: Sequence[Any], slot: Any, near: Near | None) -> Any | None:
    """The one memory among those a context shows as the user's newest (the search found none for the question)
    that says a change of the profile ``slot``: every rule a found memory passes, a value of the slot's shape
    (:data:`HOLDS`) and a cosine of :data:`NEAR` with the question or the slot's line; None when none or two."""
    shape = HOLDS.get(str(slot.record.metadata.get("slot", "")))
    if near is None or shape is None or slot.section != "profile":
        return None
    chosen = [
        m
        for m in memories
        if m.section == "memories"
        and m.signals.get("recent")
        and says_change(m.record.content)
        and shape.search(m.record.content)
        and _may_change(m, slot)
    ]
    chosen = [
        m
        for m in chosen
        if max(near(str(question), m.record.content), near(slot.record.content, m.record.content)) >= NEAR
    ]
    return chosen[0] if len(chosen) == 1 else None


Near = Callable[[str, str], float]
"""(one text, another) -> the cosine of their vectors by a semantic embedder."""


def cosine_of(layer: Any) -> Near | None:
    """The cosine of two texts by ``layer``'s embedder when it is a semantic one, else None (a lexical embedder
    relates no two texts that share no word)."""
    embedder: Any = getattr(layer, "embedder", None)
    if not relates_unshared_words(embedder):
        return None

    def near(one: str, other: str) -> float:
        a, b = embed_many(embedder, [one, other])
        return float(np.dot(np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)))

    return near


def _another_thing(new: str, old: str) -> bool:
    """Is the newer memory another thing beside the older, not its newer value (:mod:`.slot_additions`: a pastime
    added or a recurring thing at another time with nothing said to end, a slot named and not held, two named
    things of two kinds)? "User goes to a bridge club on Fridays now" changes nothing of "User goes to Mass on
    Sunday mornings", whatever question finds both."""
    return added(new, old) or two_named_kinds(new, old)


ENDED = re.compile(
    r"\b(?:cut|cancel+ed|scrap(?:ped)?|(?:is|are|'s|'re|was|were)\s+dead|fell\s+through|overruled|pulled\s+(?:me\s+|us\s+)?off|called\s+off|"
    r"dropped|axed|ditched|(?:is|are|'s|'re)\s+off|no\s+longer|not\s+\w+(?:\s+\w+)?\s+any\s?more)\b",
    re.IGNORECASE,
)
"""A turn that ends what was said before ("The STM has cut my line", "Second van idea is dead", "the head of design
overruled me", "June's off", "not Markham anymore"): its other memory may hold the value that replaces it. "Dead"
only as what something is ("the idea is dead"), not a thing's state ("Line 4 has a dead handset")."""


def brought_by_turn(memory: Any) -> bool:
    """Whether recall brought ``memory`` as a turn-mate of a found memory (:mod:`kioko_core.recall.turn_mates`)."""
    return "turn" in memory.signals


def turn_says_change(new: Any, memories: Sequence[Any]) -> bool:
    """Whether the turn that said ``new`` says a change in any of its memories of this context: a change word
    (:func:`says_change`) or an ending (:data:`ENDED`). "Our head of design overruled me in the all-hands." says the
    change that "Everyone moves to Penpot from Monday." holds the value of. Never for a memory with an adding word
    ("We also booked the barn for the ceilidh": another thing beside the older, not its value)."""
    if turn_of(new.record) is None or ADDING.search(new.record.content):
        return False
    said = [m.record.content for m in memories if m.record.id != new.record.id and same_turn(m.record, new.record)]
    return ENDED.search(new.record.content) is not None or any(says_change(text) or ENDED.search(text) for text in said)


def changed_pairs(question: str, memories: Sequence[Any], near: Near | None = None) -> dict[str, str]:
    """{newer id: older id} for the pairs of ``memories`` (a context's, each with ``record``, ``score``,
    ``signals``, ``section``) to show as one change for ``question`` (see the module's rules). ``near`` (the
    layer's semantic embedder's cosine, None with a lexical one) lets a profile slot pair with a memory the
    context shows as the newest rather than found (:func:`_recent_change`)."""
    if ABOUT_BEFORE.search(question):
        return {}
    reading = getattr(question, "analysis", None)
    asked = set((reading if reading is not None else analyze(question)).terms)
    found = sorted((m for m in memories if _found(m)), key=lambda m: (-m.score, m.record.id))[:TOP]
    stable = [m for m in memories if m.section in STABLE and asks_about(question, asked, m)]
    if not found and len(stable) == 1:
        recent = _recent_change(question, memories, stable[0], near)
        return {} if recent is None else {recent.record.id: stable[0].record.id}
    if len(found) + min(len(stable), 1) < 2:
        return {}
    pairs: dict[str, str] = {}
    taken: set[str] = set()
    for new in sorted(found, key=lambda m: -said_at(m.record)):
        worded = says_change(new.record.content) or (brought_by_turn(new) and turn_says_change(new, memories))
        if new.record.id in taken or not (worded or near is not None):
            continue
        if worded and not change_answers(new.record.content, asked):
            continue
        older = [
            m
            for m in found
            if m.record.id != new.record.id
            and m.record.id not in taken
            and not brought_by_turn(m)  # its signals are its partner's: nothing says the question found it
            and later_turn(new.record, m.record)
            and (comparable(new, m) or brought_by_turn(new))
            and not different_subjects(new.record.content, m.record.content)
            and not someone_elses(new.record.content, m.record.content)
            and not _another_thing(new.record.content, m.record.content)
            and (worded or (near is not None and not ADDING.search(new.record.content) and restated(new, m, near)))
        ]
        if (
            not older
            and worded
            and len(stable) == 1
            and stable[0].record.id not in taken
            and _may_change(new, stable[0])
        ):
            older = stable  # a profile slot or an instruction the question is about, and no searched memory
        if len(older) != 1:
            continue
        pairs[new.record.id] = older[0].record.id
        taken |= {new.record.id, older[0].record.id}
    return pairs


__all__ = [
    "ABOUT_BEFORE",
    "ABOUT_USER",
    "ADDING",
    "CHANGE",
    "ENDED",
    "SLOT_ASKED",
    "TO_YOU",
    "asks_about",
    "cosine_of",
    "change_answers",
    "changed_pairs",
    "comparable",
    "later_turn",
    "said_at",
    "says_change",
]
