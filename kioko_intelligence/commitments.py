"""A choice made for another name: the decision in force is replaced though the turn names neither it nor its topic.

"We're going with Brightwater as the letting agent", then "Signed with Moorcroft Lettings on Friday": the second
turn says no change word and names no Brightwater, yet a contract signed with another agency is the new choice.
"We're going with Godot for the jam game", then "team voted Unity after all": the topic is left out, as a speaker
leaves out what was just spoken of, and "after all" says the earlier choice is over.

A turn commits to a name when a verb of commitment comes right before it ("signed with", "voted for", "went
with", "picked", "booked", "hired", "settled on", "sending it to" ...). The decision it replaces is one in force

- that shares a word with the turn (the index lookup every decision builder uses), or
- when the turn says the earlier choice is over ("after all", "in the end", "instead", "plot twist", "overruled",
  "changed our minds" ...), the user's newest decision, if it was stored recently (:data:`WINDOW_SECONDS`),

and whose own choice is a name other than the new one (its ``chosen``, or the one name its text holds beside the
words the turn shares). Nothing is replaced when no such decision exists: the commitment is then read as usual.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

import kioko_intelligence.rules as rules
from kioko_core.store import Filter, Record, Scope
from kioko_intelligence.choices import names_in

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

WINDOW_SECONDS = 14 * 24 * 3600
"""How recent the newest decision must be for a turn that names no topic to replace it."""
RECENT_DECISIONS = 5
"""How many of the newest decisions are looked at; only the newest of them can be replaced without a topic."""

_COMMIT = re.compile(
    r"\b(?:signed(?:\s+up)?\s+with|signed|voted(?:\s+for)?|went\s+with|gone\s+with|going\s+with|go\s+with|chose|"
    r"picked|booked|hired|settled\s+on|opted\s+for|plumped\s+for|sending\s+it\s+to|sent\s+it\s+to|appointed|"
    r"contracted)\s+(?:the\s+|a\s+|an\s+)?(?=[A-Z])",
    re.IGNORECASE,
)
_OVER = re.compile(
    r"\b(?:after all|in the end|instead|plot twist|overruled|overturned|reversed|u-?turn|changed (?:our|my|their) "
    r"minds?|change of plan|scrap(?:ped)?|no longer|not going with|dropped)\b",
    re.IGNORECASE,
)
_NOT_NAMES = re.compile(
    r"^(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|"
    r"august|september|october|november|december|today|tomorrow|tonight)$",
    re.IGNORECASE,
)


def committed_name(text: str) -> str | None:
    """The name ``text`` commits to ("Signed with Moorcroft Lettings on Friday" -> "Moorcroft Lettings"), or None."""
    for found in _COMMIT.finditer(text):
        names = names_in(text[found.end() :])
        if names and text[found.end() :].startswith(names[0].split()[0]) and not _NOT_NAMES.match(names[0]):
            return names[0]
    return None


def says_over(text: str) -> bool:
    """Does ``text`` say an earlier choice is over ("team voted Unity after all")?"""
    return _OVER.search(text) is not None


def newest_decision(memory: MemoryLayer, scope: Scope) -> Record | None:
    """The user's newest decision in force, if stored within :data:`WINDOW_SECONDS`."""
    since = time.time() - WINDOW_SECONDS
    recent = sorted(
        (
            r
            for r in memory.store.scan(scope, Filter(kinds=frozenset({"decision"}), created_after=since))
            if not r.metadata.get("superseded_by")
        ),
        key=lambda r: (r.created_at, r.id),
        reverse=True,
    )[:RECENT_DECISIONS]
    return recent[0] if recent else None


def old_choice(decision: Record, new: str, said: str) -> str | None:
    """The name ``decision`` chose that ``new`` replaces: its ``chosen``, or its one name the turn ``said`` does not
    hold; None when it holds ``new`` already or no single name."""
    if new.lower() in decision.content.lower():
        return None
    chosen = str(decision.metadata.get("chosen") or "")
    if chosen and chosen.lower() != new.lower():
        return chosen
    words = {w.lower() for w in re.findall(r"[\w'-]+", said)} | {"decision"}
    names = [
        n
        for n in names_in(decision.content)
        if not {w.lower() for w in n.split()} <= words and n.lower() not in rules.SENTENCE_WORDS
    ]
    return names[0] if len(names) == 1 else None
