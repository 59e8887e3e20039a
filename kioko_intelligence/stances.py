"""A stance reversed: the same topic, the opposite judgement or action ("pineapple on pizza is gross" after
"... is the best"; "we're closing the Leeds office" after "we're keeping the Leeds office").

Such a turn names no old value and holds no value of a type (no number, date or name differs), so the slot
rules of :mod:`.slots` do not see it; yet it is the newest word on its topic and the older one is stale. A
*reversal* is found without a model from a small table of opposites, written for this purpose:

- a judgement of the other sign: a word of praise (best, brilliant, love, handy, workable, asset ...) on one
  side and of dislike (gross, hate, can't stand, unbearable, obstacle, nightmare ...) on the other, and not
  both on either side;
- an action and its opposite: keep / close, enable / disable, accept / decline, start / stop, hire / fire,
  join / leave, approve / reject, allow / ban, buy / sell, include / remove, renew / cancel;
- an action negated: "Not renewing the Shoreditch lease" after "We'll renew the lease on the Shoreditch studio".

The two must share a topic word (not a common one: "pineapple", "office", "checkout", "offer"), and the older
one must be a short statement (at most :data:`MAX_WORDS` words), as a stance is; then the older memory is
superseded. Anything else is left to the slot rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from kioko_core.privacy.held_texts import keeps_text
from kioko_core.store import Record
from kioko_intelligence.slot_reading import CHANGE_WORDS, KEPT_CHARS, text_terms

MAX_WORDS = 20
"""An older memory longer than this is no single stance (a report, a how-to): never reversed by this rule."""

_PRAISE = re.compile(
    r"\b(?:best|great|love[sd]?|loving|brilliant|handy|workable|asset|awesome|amazing|perfect|fantastic|"
    r"excellent|useful|helpful|ftw|superb|delicious|tasty|enjoy(?:s|ed)?|fan of)\b",
    re.IGNORECASE,
)
_DISLIKE = re.compile(
    r"\b(?:gross|worst|hate[sd]?|hating|unbearable|obstacle|nightmare|awful|terrible|useless|annoying|overrated|"
    r"disgusting|horrible|dislike[sd]?|rubbish|pointless|(?:can't|cannot|cannae|can not)\s+stand)\b",
    re.IGNORECASE,
)
_OPPOSITES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (re.compile(rf"\b(?:{a})\b", re.IGNORECASE), re.compile(rf"\b(?:{b})\b", re.IGNORECASE))
    for a, b in (
        (r"keep(?:s|ing)?|kept", r"clos(?:e|es|ed|ing)|shut(?:s|ting)?(?: down)?"),
        (r"enabl(?:e|es|ed|ing)", r"disabl(?:e|es|ed|ing)"),
        (r"accept(?:s|ed|ing)?", r"declin(?:e|es|ed|ing)|reject(?:s|ed|ing)?|turn(?:ed|ing)? down"),
        (r"start(?:s|ed|ing)?|resum(?:e|es|ed|ing)", r"stop(?:s|ped|ping)?|paus(?:e|es|ed|ing)"),
        (r"hir(?:e|es|ed|ing)", r"fir(?:e|es|ed|ing)|let go"),
        (r"join(?:s|ed|ing)?", r"leav(?:e|es|ing)|quit(?:s|ting)?"),
        (r"approv(?:e|es|ed|ing)", r"reject(?:s|ed|ing)?|den(?:y|ies|ied)"),
        (r"allow(?:s|ed|ing)?|permit(?:s|ted|ting)?", r"ban(?:s|ned|ning)?|forbid(?:s|den)?"),
        (r"buy(?:s|ing)?|bought", r"sell(?:s|ing)?|sold"),
        (r"includ(?:e|es|ed|ing)|add(?:s|ed|ing)?", r"exclud(?:e|es|ed|ing)|remov(?:e|es|ed|ing)"),
        (r"renew(?:s|ed|ing)?", r"cancel(?:s|led|ling|ed|ing)?"),
    )
)
_NEGATED = re.compile(
    r"\b(?:not|never|no longer|don't|doesn't|won't|isn't|aren't|didn't|wouldn't|cannae)\s+(\w+)", re.IGNORECASE
)
_COMMON = frozenset(
    "user have has take get make use work thing time way lot good fine well like want need go come day also just "
    "realli start stop keep feel think know see look ok view record sai pure far".split()
)
"""Stems too common to make two statements one topic."""


def _sign(text: str) -> int:
    praise, dislike = bool(_PRAISE.search(text)), bool(_DISLIKE.search(text))
    return 1 if praise and not dislike else -1 if dislike and not praise else 0


def reversed_stance(new: str, old: str) -> bool:
    """Does ``new`` take the opposite judgement or action of ``old`` (see the module's docstring)?"""
    mine, theirs = _stance(new), _stance(old)
    if mine.sign * theirs.sign == -1:
        return True
    # one side of a pair of opposites alone in the old text, the other side alone in the new
    if any(a and b and a != b for a, b in zip(theirs.sides, mine.sides)):
        return True
    return any(w.lower()[:5] in theirs.said - theirs.denied for w in mine.negated if len(w) >= 4)


@dataclass(frozen=True)
class _Stance:
    """What :func:`reversed_stance` reads of one text, read once per text (one turn is compared with a hundred
    stored memories, and the same memories with turn after turn)."""

    sign: int
    sides: tuple[int, ...]
    """Per pair of opposites: 1 when only its first side is in the text, 2 when only its second, else 0."""
    said: frozenset[str]
    denied: frozenset[str]
    negated: tuple[str, ...]


def _stance(text: str) -> _Stance:
    return _kept_stance(text) if len(text) <= KEPT_CHARS else _read_stance(text)


@keeps_text
@lru_cache(maxsize=8192)
def _kept_stance(text: str) -> _Stance:
    return _read_stance(text)


def _read_stance(text: str) -> _Stance:
    return _Stance(
        _sign(text),
        tuple(_side(bool(one.search(text)), bool(other.search(text))) for one, other in _OPPOSITES),
        frozenset(w.lower()[:5] for w in re.findall(r"\w+", text)),
        frozenset(w.lower()[:5] for w in _NEGATED.findall(text)),
        tuple(_NEGATED.findall(text)),
    )


def _side(first: bool, second: bool) -> int:
    return 1 if first and not second else 2 if second and not first else 0


def _topic(text: str) -> set[str]:
    words = {t[2:] for t in text_terms(text.lower()) if t.startswith("t:")}
    return {w for w in words if w not in _COMMON and w not in CHANGE_WORDS and len(w) >= 3}


def reversals(holding: Callable[[list[str]], list[Record]], text: str) -> list[Record]:
    """The current memories (found by ``holding(terms)``, any of them) whose stance ``text`` reverses."""
    topic = _topic(text)
    if not topic or not (
        _sign(text) or _NEGATED.search(text) or any(a.search(text) or b.search(text) for a, b in _OPPOSITES)
    ):
        return []
    found = []
    for record in holding(["t:" + w for w in sorted(topic)]):
        if len(record.content.split()) > MAX_WORDS or not (topic & _topic(record.content)):
            continue
        if reversed_stance(text, record.content):
            found.append(record)
    return found
