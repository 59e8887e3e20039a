"""The choices a decision names, read from the user's words: what was chosen, what a change replaces.

The offline router's decision builders (:mod:`~kioko_intelligence.heuristic`) keep a decision's ``chosen``
when the words name it ("We're going with Dagster"); a decision said as a plain statement ("Quiz night
stays on a Wednesday, decided") has none, and a later change ("Moving quiz night to Thursdays") finds the
old value in its text instead: the name or day of the same shape as the new one.
"""

from __future__ import annotations

import re

import kioko_intelligence.rules as rules
from kioko_core.reading.analysis import STOP_WORDS
from kioko_core.store import Record
from kioko_intelligence.language import bare


def decision_body(content: str) -> str:
    """A decision's text without its "Decision:" or "we decided to" lead."""
    return re.sub(
        r"^\s*decision\s*:\s*|^(?:we|i)\s+(?:have\s+)?decided\s+(?:to\s+|that\s+)?",
        "",
        bare(content),
        flags=re.IGNORECASE,
    )


def choice_of(raw: str | None) -> str:
    """The choice a phrase names: "We're going with Dagster" -> "Dagster", "the Polestar 2 in the end" -> "Polestar 2"."""
    if not raw:
        return ""
    text = rules.TAIL.sub("", bare(raw))
    # "TimescaleDB for the telemetry": the purpose goes first, or the lead's "for" would take the choice with it
    cut = re.sub(r"\s+(?:for|as)\s+.*$", "", text, flags=re.IGNORECASE)
    led = rules.CHOICE_LEAD.sub("", cut, count=1) if cut != text else ""
    text = led if led.strip() else (rules.CHOICE_LEAD.sub("", text, count=1) or text)
    text = re.sub(r"^(?:we|i)\s+(?:now\s+|just\s+|will\s+|'ll\s+)?", "", text, flags=re.IGNORECASE)
    text = re.sub(r"^(?:an?|the|our|my)\s+", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\s+(?:for|as|in|on|at|from|with|because|since)\s+.*$", "", text, flags=re.IGNORECASE)
    return bare(text)


def names_in(text: str) -> list[str]:
    """Names in a sentence (runs of capitalised words, the sentence's first word only when it is no common word)."""
    found = []
    for match in re.finditer(r"[A-Z][\w.+#-]*(?:\s+[A-Z0-9][\w.+#-]*)*", text):
        words = match.group(0).split()
        while words and words[0].lower().strip(".,") in rules.SENTENCE_WORDS | STOP_WORDS:
            words = words[1:]
        name = bare(" ".join(words))
        if name and name not in found:
            found.append(name)
    return found


def named_choice(decision: Record, names: list[str], text: str) -> str | None:
    """The name of ``names`` that is the decision's choice (its ``chosen``, or a name its text holds; the turn's
    opening word is none when the decision holds it in lower case: "Release day moved to ..." names no "Release")."""
    chosen = str(decision.metadata.get("chosen") or "").lower()
    for name in names:
        if name.lower() == chosen:
            return name
    for name in names:
        held = re.search(rf"\b{re.escape(name)}\b", decision.content, re.IGNORECASE)
        if held and not (held.group(0).islower() and text.startswith(name)):
            return name
    return None


def replace_choice(base: str, old: str, new: str) -> str:
    """``base`` with ``old`` (and the capitalised words that follow it: "Tesla Model 3") replaced by ``new``."""
    pattern = re.compile(rf"\b(?i:{re.escape(old)})\b(?:\s+[A-Z0-9][\w.-]*)*")
    replaced = pattern.sub(lambda _: new, base, count=1)
    return re.sub(r"\b(\w+)\s+\1\b", r"\1", replaced, flags=re.IGNORECASE)  # "release release weekly"


_WEEKDAY = re.compile(r"^(?:mon|tues|wednes|thurs|fri|satur|sun)days?$", re.IGNORECASE)


def held_choice(decision: Record, new: str, topic: str) -> str | None:
    """The value a decision without a ``chosen`` holds where ``new`` goes: its day for a day ("Quiz night stays
    on a Wednesday" for "Thursdays"), else its one name outside the topic's words; None when unsure."""
    topic_words = {w.lower() for w in re.findall(r"[\w'-]+", topic)} | {"decision"}
    names = [
        n
        for n in names_in(decision.content)
        if n.lower() != new.lower() and not {w.lower() for w in n.split()} <= topic_words
    ]
    if _WEEKDAY.match(new):
        names = [n for n in names if _WEEKDAY.match(n)]
    elif any(_WEEKDAY.match(n) for n in names):
        return None  # a name for a day's place: not the same slot
    return names[0] if len(names) == 1 else None
