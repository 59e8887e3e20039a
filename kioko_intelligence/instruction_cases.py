"""The case an instruction is for: a newer instruction for the same case replaces the older.

"When I ask for a pairing, give me one red and one white", then "For pairings just give me your single best
bottle": both are said for one case (a pairing), so the second is the instruction for it now. The case is what
the instruction opens with, "when(ever) you / I ...", "each time I ...", "for <things>,", up to the comma; two
cases are the same when they share a content word (in its simple inflections: "pairing", "pairings"), words of
asking and answering ("ask", "give", "help", "write" ...) aside. An instruction with no case, or for another case,
replaces nothing here (:mod:`.instruction_topics` reads instructions by what they set instead).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kioko_core.store import Filter, Scope
from kioko_intelligence.instruction_topics import instruction_changes
from kioko_intelligence.language import content_words
from kioko_intelligence.slot_reading import text_terms

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

_CASE = re.compile(
    r"^\W*(?:please\s+)?(?:(?:when(?:ever)?|each time|every time|any ?time|if)\s+(?:you|i)\s+(?P<act>[^,]{3,60}),|"
    r"for\s+(?:any\s+|all\s+)?(?P<things>[\w'-]{2,30}[a-z]s)\b)",
    re.IGNORECASE,
)
_ASKING = frozenset(
    "ask asks asked asking give gives giving help helps helping write writes writing send sends sending want need "
    "tell show make get request answer reply draft me my you your something anything thing things".split()
)


def case_words(instruction: str) -> set[str]:
    """The content words of the case ``instruction`` is for ("When I ask for a pairing, ..." -> {"pairing"})."""
    found = _CASE.match(instruction)
    if found is None:
        return set()
    case = found.group("act") or found.group("things") or ""
    return {_stem(w) for w in content_words(case) if w not in _ASKING and len(w) > 2}


def same_case(new: str, old: str) -> bool:
    """Are the two instructions for the same case?"""
    mine = case_words(new)
    return bool(mine and mine & case_words(old))


def _stem(word: str) -> str:
    return re.sub(r"(?:ies|es|s)$", "", word.lower()) if len(word) > 4 else word.lower()


def older_for_case(memory: MemoryLayer, scope: Scope, instruction: str) -> list[str]:
    """The ids of the user's instructions in force for the case ``instruction`` is for (instructions are few and
    not in the term index: read by kind)."""
    if not case_words(instruction):
        return []
    return [
        r.id
        for r in memory.store.scan(scope, Filter(kinds=frozenset({"instruction"})))
        if not r.metadata.get("superseded_by") and r.content != instruction and same_case(instruction, r.content)
    ]


def taken_back(memory: MemoryLayer, scope: Scope, said: str) -> str | None:
    """The id of the one instruction in force that ``said``, words to the assistant the router keeps nothing of,
    changes: it sets the instruction's aspect anew ("You do not need to fix my sentences more" after "Correct my
    grammar always") or lifts it (:func:`~kioko_intelligence.instruction_topics.lifted`); None for none or several."""
    held = [
        r
        for r in memory.store.scan(scope, Filter(kinds=frozenset({"instruction"})))
        if not r.metadata.get("superseded_by")
    ]
    if not held:
        return None
    found = instruction_changes(lambda terms: held, said, "instruction")
    return found[0].id if len(found) == 1 else None


_STOP = re.compile(
    r"^\W*(?:please\s+)?(?:enough of|no more|stop|quit|ditch|lose|drop|skip|no need for|leave out|cut out|cut)\s+"
    r"(?P<what>.+)$",
    re.IGNORECASE,
)
_OF_ANSWERING = frozenset(
    "t:answer t:repli t:repl t:respons t:messag t:end t:start t:top t:bottom t:each t:everi t:pleas t:now t:honest "
    "t:anymor t:thing t:stuff".split()
)
"""Terms any rule about answering shares ("your answers", "at the end"): no sign of the same rule."""


def stopped(memory: MemoryLayer, scope: Scope, instruction: str) -> list[str]:
    """The id of the one instruction in force that ``instruction``, an order to stop something ("Enough of the clues
    at the end of your answers", "No more fun facts"), stops: it shares a word of what is stopped ("clue"), words of
    answering aside (:data:`_OF_ANSWERING`); none when no instruction or several share one."""
    found = _STOP.match(instruction)
    if found is None:
        return []
    what = {t for t in text_terms(found.group("what")) if t.startswith("t:")} - _OF_ANSWERING
    if not what:
        return []
    held = [
        r.id
        for r in memory.store.scan(scope, Filter(kinds=frozenset({"instruction"})))
        if not r.metadata.get("superseded_by") and r.content != instruction and what & set(text_terms(r.content))
    ]
    return held if len(held) == 1 else []
