"""What a request to forget may point at outside its own sentence: the session's earlier turns and what the turn
before stored (read from the session's log of turns waiting to be summarised), and what a clause is about.

"You know the alarm code for the shop?" / "We've had the whole system replaced." / "So get rid of it": "it" is
the alarm code, two turns back. "My salary is 52k." / "Hmm, on second thoughts, don't remember that.": "that" is
what the turn before stored. A memory that only repeats an earlier turn ("The landlord changed it on Friday") is
that turn, not the thing it pointed at.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import kioko_intelligence.forget_requests as shapes
import kioko_intelligence.rules as rules
from kioko_core.store import Scope
from kioko_intelligence.language import content_words
from kioko_intelligence.summaries import session_log

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

EARLIER_TURNS = 3
"""How many of the session's earlier turns a pronoun may reach back to."""
WH_SLOTS = (
    (
        re.compile(r"\bwhere\s+(?:i|we)\s+(?:live|stay|am\s+based|'m\s+based|reside|am\s+living|'m\s+living)$", re.I),
        ("address", "location"),
    ),
    (
        re.compile(r"\b(?:how\s+much|what)\s+(?:i|we)\s+(?:earn|make|get\s+paid|am\s+paid|'m\s+paid)$", re.I),
        ("salary",),
    ),
    (
        re.compile(
            r"\b(?:how\s+much|what)\s+(?:i|we)(?:'m|\s+am|'re|\s+are)?\s+(?:charg(?:e|ing)|bill(?:ing)?|asking)"
            r"(?:\s+(?:for|on)\s+[\w\s'-]{1,40})?$",
            re.I,
        ),
        ("fee", "charge"),
    ),
    (re.compile(r"\b(?:where|who)\s+(?:i|we)\s+work(?:\s+for|\s+at)?$", re.I), ("employer",)),
    (re.compile(r"\b(?:how\s+much|what)\s+(?:i|we)\s+weigh$", re.I), ("weight",)),
    (re.compile(r"\b(?:when|where)\s+(?:i|we)\s+was\s+born$", re.I), ("birthday",)),
)
"""A thing named by what it says ("where I live", "how much I earn"): the words the memories say it with."""
_SLOT_KEYS = frozenset(rules.SLOTS.values())
_SLOT_WORDS = frozenset({"is", "are"})
"""Words a stored memory may add to what its op said (a profile slot's line is "location Hove")."""


def earlier_turns(memory: MemoryLayer, scope: Scope, session_id: str | None) -> list[str]:
    """The user's words in the session's turns before this one (at most :data:`EARLIER_TURNS`, newest first)."""
    if not session_id:
        return []
    waiting = session_log(memory, scope, session_id)["waiting"]
    said = [
        line[len("user: ") :] for turn in reversed(waiting) for line in turn.splitlines() if line.startswith("user: ")
    ]
    return said[:EARLIER_TURNS]


def just_stored(memory: MemoryLayer, scope: Scope, session_id: str | None) -> list[str]:
    """The ids of the memories the session's previous turn wrote (its log's ``stored`` lines) that are still held:
    what "forget that" means when nothing else is named."""
    if not session_id:
        return []
    waiting = session_log(memory, scope, session_id)["waiting"]
    lines = waiting[-1].splitlines() if waiting else []
    stored = [line[len("stored: ") :] for line in lines if line.startswith("stored: ")]
    who = {"user_id": scope.user_id, "agent_id": scope.agent_id}
    found: list[str] = []
    for text in stored:
        key, _, value = text.partition(" ")
        slot = memory.profile.record(key, **who) if key in _SLOT_KEYS else None
        if slot is not None and str(slot.metadata.get("value", "")) == value:  # a slot's line: "location Hove"
            found.append(slot.id)
            continue
        words = set(content_words(text)) - {"user"}
        for record in memory.search(text, limit=5, **who):
            theirs = set(content_words(record.content)) - {"user"}
            if words and words <= theirs and theirs <= words | _SLOT_WORDS and record.id not in found:
                found.append(record.id)
    return found


def echoes(content: str, turns: list[str]) -> bool:
    """Whether a memory only repeats one of ``turns`` (every word of it said there): the memory of the earlier
    turn itself ("The landlord changed it on Friday"), not a memory of what the turn pointed at."""
    words = set(content_words(content)) - {"user"}
    return any(words <= set(content_words(turn)) | {"user"} for turn in turns)


def topics(clause: str) -> list[str]:
    """What a clause is about, for a pronoun after it: its topic (:func:`.forget_requests.topic_of`), then the
    things it names with a determiner. A clause that reports what someone said is about what was said ("Rafi says I
    should not give the keysafe number to a computer. Please remove it.": the keysafe number, not Rafi)."""
    reported = _REPORTED.match(clause.strip())
    if reported is not None and reported.group("said").strip():
        clause = reported.group("said")
    found = [t for t in [shapes.topic_of(clause), *shapes.noun_phrases(clause)] if t and content_words(t)]
    return list(dict.fromkeys(found))


_REPORTED = re.compile(
    r"^(?:(?i:my|our|the)\s+[\w'-]+|[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?|(?i:he|she|they))\s+(?i:says|said|reckons|reckoned|"
    r"thinks|thought|tells\s+me|told\s+me|warned\s+me|warns\s+me)\s+(?:(?i:that)\s+)?(?P<said>.+)$"
)
"""A clause reporting what someone said: its topic is what was said."""


def mine(topic: str) -> str:
    """ "Date of birth - this you must not keep": a thing said bare is the user's own."""
    return topic if re.match(r"(?:my|the|that|this|our|your|a|an)\b", topic, re.I) else f"my {topic}"


__all__ = ["EARLIER_TURNS", "WH_SLOTS", "earlier_turns", "echoes", "just_stored", "mine", "topics"]
