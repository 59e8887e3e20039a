"""What an instruction is about: its *aspect* (tone, how to address the user, format, length, units ...).

"Be formal with me" and, later, "A casual tone is fine from here on" share no word of their own; only knowing
that both say how formal the replies are links them. A small table of aspects, written for this purpose,
lists the words that set each one; two statements that set the same aspect with different words (each has a
word of the aspect the other lacks) are the older and the newer instruction, and the newer supersedes. An
instruction that adds to an aspect without taking a word back ("Use bullet points" -> "Use bullet points and
a table") changes nothing.

Only statements addressed to the assistant count: an instruction, an imperative ("Put the summary at the end
of long answers"), or words of the user's to it (me, you, please, "from now on", "only") or about the user
(my pronouns). A world statement that merely uses a word of the table ("the pub quiz had lots of banter") is
never one side.
"""

from __future__ import annotations

import re
from typing import Callable

from kioko_core.store import Record
from kioko_intelligence.slot_reading import text_terms

ASPECTS: dict[str, tuple[str, ...]] = {
    "tone": (
        "formal",
        "formality",
        "informal",
        "casual",
        "relaxed",
        "loosen up",
        "banter",
        "friendly",
        "professional",
        "playful",
        "chatty",
        "tone",
        "polite",
        "blunt",
    ),
    "address": ("address me", "call me", "title", "titles", "first name", "surname", "last name"),
    "format": ("bullet points", "bullets", "bullet", "paragraphs", "prose", "numbered list", "tables", "headings"),
    "emoji": ("emojis", "emoji", "plain text", "emoticons"),
    "summary": ("tl;dr", "tldr", "summary at the end", "summary first", "summary on top", "summary at the top"),
    "length": (
        "short answers",
        "short",
        "shorter",
        "brief",
        "concise",
        "detailed",
        "detail",
        "in depth",
        "long answers",
        "longer",
        "terse",
        "verbose",
        "one-liners",
    ),
    "corrections": ("correct my", "correct me", "fix my", "grammar", "my mistakes", "proofread", "corrections"),
    "units": (
        "cups",
        "grams",
        "ounces",
        "metric",
        "imperial",
        "kilos",
        "pounds",
        "celsius",
        "fahrenheit",
        "miles",
        "kilometres",
        "kilometers",
        "tablespoons",
    ),
    "citations": ("cite", "citations", "sources", "references", "gist"),
    "clock": ("24-hour", "12-hour", "24 hour", "12 hour", "am and pm", "am/pm", "military time"),
    "spelling": ("british spelling", "american spelling", "canadian spelling", "us spelling", "uk spelling"),
    "pronouns": ("pronouns", "she/her", "he/him", "they/them", "she/they", "he/they"),
}
"""Aspect -> the words that set it (lower case; a phrase matches as a whole)."""

_PATTERNS = {
    aspect: [(word, re.compile(rf"(?<![\w/]){re.escape(word)}(?![\w/])", re.IGNORECASE)) for word in words]
    for aspect, words in ASPECTS.items()
}
_IMPERATIVE = re.compile(
    r"^\W*(?:please\s+)?(?:be|use|write|put|give|keep|address|call|reply|answer|respond|add|include|skip|avoid|cite|"
    r"sprinkle|format|show|list|say|speak|talk|don't|do|never|always|stop|start|loosen|drop|switch|go)\b",
    re.IGNORECASE,
)
_ADDRESSED = re.compile(r"\b(?:me|you|your|please|from now on|from here on|only|no need|I|I'm|my)\b", re.IGNORECASE)


def aspects(text: str) -> dict[str, set[str]]:
    """The aspects ``text`` sets and, for each, the words of it that it uses."""
    found: dict[str, set[str]] = {}
    for aspect, patterns in _PATTERNS.items():
        words = {word for word, pattern in patterns if pattern.search(text)}
        if words:
            found[aspect] = words
    return found


def permits(text: str) -> bool:
    """Does ``text`` let the assistant do something ("Longer is fine", "no need to ...")? Only the assistant is let."""
    return _LIFTED.search(text) is not None


def addressed(text: str) -> bool:
    """Is ``text`` said to the assistant (an imperative, "me", "please" ...), about the user, or a permission
    ("Longer is fine": only the assistant is let do something by it)?"""
    return bool(_IMPERATIVE.search(text) or _ADDRESSED.search(text) or _LIFTED.search(text))


def changed_aspects(new: str, old: str) -> set[str]:
    """The aspects the two set with different words, each taking one the other lacks."""
    mine, theirs = aspects(new), aspects(old)
    return {a for a in mine.keys() & theirs.keys() if mine[a] - theirs[a] and theirs[a] - mine[a]}


def changed_aspect(new: str, old: str) -> bool:
    """Do the two set one aspect with different words, each taking one the other lacks?"""
    return bool(changed_aspects(new, old))


_ABOUT_USER = re.compile(r"\b(?:User|User's)\b")
_OF_THE_USER = frozenset({"pronouns"})
"""Aspects of the user themself: a memory rewritten about the user ("User's pronouns are she/her") sets them."""


_LIFTED = re.compile(
    r"\b(?:(?:is|are|'s|'re)\s+(?:now\s+)?(?:fine|ok|okay|welcome|allowed)|no need|(?:don't|do not|doesn't|does not)\s+"
    r"(?:need|have)\s+to|(?:you\s+)?can\s+stop)\b",
    re.IGNORECASE,
)
"""Words that lift a standing rule: "local time is fine", "colour designs are welcome now", "no need to ..."."""
_CHANGE = re.compile(
    r"\b(?:now|these days|from now on|from here on|anymore|any more|no longer|instead|again|after all)\b", re.IGNORECASE
)


def lifted(holding: Callable[[list[str]], list[Record]], text: str, instruction: str) -> list[Record]:
    """The one current instruction ``text`` lifts: it says, with a change word, that something the instruction is
    about is fine now ("Give me times in Zulu, always", then "Off the clock now, local time for everything is fine")
    and shares a word of its own with it; none when no instruction or several share one."""
    if not (_LIFTED.search(text) and _CHANGE.search(text)):
        return []
    terms = [t for t in text_terms(text) if t.startswith("t:")]
    found = [r for r in holding(terms) if r.kind == instruction and set(terms) & set(text_terms(r.content))]
    return found if len(found) == 1 else []


def instruction_changes(holding: Callable[[list[str]], list[Record]], text: str, instruction: str) -> list[Record]:
    """The current memories (found by ``holding(terms)``, any of them) whose aspect ``text`` sets anew, or the one
    instruction it lifts (:func:`lifted`). ``instruction`` is the kind instructions are stored as (an old one of
    that kind is addressed by its kind)."""
    mine = aspects(text)
    if not mine or not addressed(text):
        return lifted(holding, text, instruction)
    terms = sorted({t for a in mine for word in ASPECTS[a] for t in text_terms(word) if t.startswith("t:")})
    found = []
    for record in holding(terms):
        changed = changed_aspects(text, record.content)
        if changed and (
            record.kind == instruction
            or addressed(record.content)
            or (changed & _OF_THE_USER and _ABOUT_USER.search(record.content))
        ):
            found.append(record)
    return found
