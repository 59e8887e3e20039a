"""A correction inside one turn: "my flight lands at 6:40, no sorry, 7:40" says one value, 7:40.

The turn is settled before it is routed, so no memory ever states the value the user took back. A *marker*
("no sorry", "wait", "make that", "I mean", "scratch that", "hold on", "ah no", "correction", "actually no"
...) between a clause holding a value and a text holding another value of the same type (a time, a date, an
email, a path, an identifier, a number, a name) replaces the clause's last value of that type with the new
one; what follows the new value is kept when the new value opens the correction ("We have 3 kids, sorry, 4
since March, and we just bought a Volvo" -> "We have 4 kids since March, and we just bought a Volvo"). With a
strong marker and no typed value, the words after the clause's last "is"/"are" are replaced ("fav snack is
crisps... actually no its those seaweed snacks now" -> "fav snack is those seaweed snacks now").

Nothing changes when no value of one type differs on both sides: "No, that's fine" or "Sorry, I meant the
other report" name no value to swap.
"""

from __future__ import annotations

import re

from kioko_intelligence.slot_reading import TITLE_DOT

_STRONG = (
    r"no,?\s+scratch that|scratch that|make (?:that|it)|no,?\s+sorry|sorry,?\s+no|no,?\s+wait|wait,?\s+no|"
    r"actually,?\s+no|ah,?\s+no|oh,?\s+no|hold on|i mean|i meant|correction|(?:um|er|uh),?\s+actually|"
    r"wait,?\s+sorry,?\s+i mean|sorry,?\s+i mean"
)
"""Markers that take back what was just said wherever they stand; "what I meant" is a clause of its own ("that's not
quite what I meant, but close enough" takes nothing back)."""
_WEAK = r"no|sorry|wait|actually"
"""Markers that take it back only between commas (or after "..."): "Editing prod.yaml, no, staging.yaml"."""
_MARKER = re.compile(
    rf"(?:(?:[,;]|\.\.\.|…|[.!?](?=\s))\s*|(?<!\bwhat)\s+)(?P<strong>{_STRONG})\b[,:.]?\s*"
    rf"|(?:[,;]|\.\.\.|…)\s*(?P<weak>{_WEAK})\s*[,:]\s*"
    rf"|[.!?]\s+(?P<opening>{_WEAK}|oops|sorry,?\s+no|no,?\s+sorry)\s*[,:]\s*",
    re.IGNORECASE,
)
_ALONE_WORDS = frozenset({"now", "then", "sorry", "actually", "instead", "not", "that"})
"""Words that may stand beside the new value in a sentence that only corrects ("Sorry, 41 actually.")."""
_TIME = re.compile(r"\b\d{1,2}[:.]\d{2}(?:\s*[ap]\.?m\.?)?\b", re.IGNORECASE)
_PATH = re.compile(r"(?<![\w/])[\w.-]+/[\w./-]*\w")
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
_MONTH = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
_DATE = re.compile(
    rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?|{_WEEKDAY}|{_MONTH})\b",
    re.IGNORECASE,
)
_IDENT = re.compile(r"\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w][\w-]*\b")
_NUMBER = re.compile(
    r"\b(?:\d+(?:[.,]\d+)*%?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b", re.IGNORECASE
)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")
_NOT_NAMES = frozenset("I I'm I've I'd I'll Wait Sorry No Actually User".split())
_TYPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("email", _EMAIL),
    ("path", _PATH),
    ("time", _TIME),
    ("date", _DATE),
    ("id", _IDENT),
    ("number", _NUMBER),
    ("name", _NAME),
)
_OPENERS = frozenset("in at on to for by from the a an until till before after around about".split())
"""Words that may stand before the new value when it opens the correction ("actually in Swiss German if ...")."""
_COPULA = re.compile(r"\b(?:is|are|was|'s)\s+", re.IGNORECASE)
_LEAD = re.compile(r"^(?:it'?s|its|it is|they'?re|they are|that'?s|that is)\s+", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])|\n")


def _values(text: str) -> dict[str, list[re.Match[str]]]:
    """Each type's values in ``text`` by position; a span taken by an earlier type is no value of a later one."""
    taken: list[tuple[int, int]] = []
    found: dict[str, list[re.Match[str]]] = {}
    for kind, pattern in _TYPES:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            if kind == "name" and match.group(0).split()[0] in _NOT_NAMES:
                continue
            taken.append((match.start(), match.end()))
            found.setdefault(kind, []).append(match)
    return found


def _swap(before: str, after: str, strong: bool) -> str | None:
    """``before`` with the value ``after`` corrects it to (and what follows the new value), or None."""
    old, new = _values(before), _values(after)
    for kind, _ in _TYPES:
        if kind not in old or kind not in new:
            continue
        was, now = old[kind][-1], new[kind][0]
        if was.group(0).lower() == now.group(0).lower():
            continue
        settled = before[: was.start()] + now.group(0) + before[was.end() :]
        # the new value opens the correction ("4 since March", "in Swiss German if ..."): its words go on
        if all(w.lower() in _OPENERS for w in after[: now.start()].split()):
            return settled + after[now.end() :]
        return settled + after[len(after.rstrip(".!?")) :]
    if not strong:
        return None
    copulas = list(_COPULA.finditer(before))
    if not copulas or not after.strip() or new or _values(before[copulas[-1].end() :]):
        return None  # plain words only: "fav snack is crisps" (not "the meeting is at 3, I mean the standup")
    return before[: copulas[-1].end()] + _LEAD.sub("", after.strip())


def _value_alone(after: str) -> bool:
    """Is ``after`` one value and nothing else that says something (a weak marker opening a sentence, "... 14 Elm
    Road. Sorry, 41.", takes a value back only then: "Sorry, I have to run now" and "No, 10 is better" correct
    nothing)?"""
    values = [m for found in _values(after).values() for m in found]
    if len(values) != 1:
        return False
    rest = after[: values[0].start()] + " " + after[values[0].end() :]
    return all(w.lower() in _OPENERS | _ALONE_WORDS for w in re.findall(r"[\w']+", rest))


def settle(text: str) -> str:
    """``text`` with each correction made inside it applied (see the module's docstring); else ``text``."""
    if not _MARKER.search(text):
        return text
    guarded = TITLE_DOT.sub(lambda m: m.group(1) + "\0", text)  # "Dr. Okafor" ends no sentence
    for _ in range(3):  # a turn rarely takes back more than one thing; bounded all the same
        found = _MARKER.search(guarded)
        if found is None:
            break
        start = max((m.end() for m in _SENTENCE_END.finditer(guarded, 0, found.start())), default=0)
        before = guarded[start : found.start()]
        ends = _SENTENCE_END.search(guarded, found.end())
        stop = ends.start() if ends else len(guarded)
        after = guarded[found.end() : stop]
        if found.group(0).lstrip()[:1] in ".!?" and not before.strip():
            break
        if found.group("opening") is not None and not _value_alone(after):
            break
        settled = _swap(before, after, found.group("strong") is not None)
        if settled is None:
            break
        guarded = guarded[:start] + settled + guarded[stop:]
    return guarded.replace("\0", ".")


def settle_messages(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """The user's messages settled (:func:`settle`), the assistant's as they are."""
    return [m | {"content": settle(m["content"])} if m.get("role") == "user" else m for m in messages]
