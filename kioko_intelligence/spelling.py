"""Typing slips in a turn, put right before it is read: "I swithced to Neovim" -> "I switched to Neovim".

A slip in a plain word ("mvoed", "edtior", "corection") hides it from the rules ("moved from X to Y") and from
the slot matching (the frame word "editor"), and a stored "edtior" is never found by "which editor". A word is
corrected only when all of these hold:

- it is a plain word of five letters or more (no digit, no ``@``, ``/``, ``.`` or ``-`` joined to it), in
  lower case, or capitalised only as a sentence's first word or in a turn with no case of its own (all lower
  case or all capitals): a capitalised word inside a sentence is a name and is never touched;
- neither it nor its American spelling ("colour" -> "color", "organise" -> "organize", "travelled" ->
  "traveled", "centre" -> "center") is an English word of the word list, nor is it a common word of the list and
  an "s" ("lates", the late shifts, is no slip of "lattes");
- one slip away from it - two neighbouring letters swapped (not the first), or a doubled letter written
  once - lies an English word common enough (:data:`MIN_COUNT`); the most common such word wins.

The word list is the English frequency list of the ``pyspellchecker`` package (the ``spelling`` extra, in
``kioko[all]``); without it this step changes nothing. Substitutions (one letter for another) are not tried:
they turn names into words ("Ravi" -> "rave").
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

__all__ = ["american_known", "available", "correct_typos", "word_count"]

MIN_LETTERS = 5
MIN_COUNT = 500
"""How often (in the list's counts) a correction must occur: rare words are no likelier than the slip itself."""
_LOCK = threading.Lock()
_WORDS: list[Any] = []


def _frequencies() -> Any:
    """The English word list's counts (a mapping word -> count), or None when the package is missing."""
    with _LOCK:
        if not _WORDS:
            try:
                from spellchecker import SpellChecker
            except ImportError:
                _WORDS.append(None)
            else:
                _WORDS.append(SpellChecker(language="en", distance=1).word_frequency)
        return _WORDS[0]


def word_count(word: str) -> int | None:
    """How often the word list counts ``word`` (lower case; 0 when it is not listed), None without the list."""
    counts = _frequencies()
    if counts is None:
        return None
    return int(counts[word]) if word in counts else 0


def available() -> bool:
    """Is the word list installed (the ``spelling`` extra)?"""
    return _frequencies() is not None


_AMERICAN = (
    (re.compile(r"our(s|ed|ing|ite|ites|able)?$"), r"or\1"),
    (re.compile(r"is(e|es|ed|ing|ation|ations)$"), r"iz\1"),
    (re.compile(r"ys(e|es|ed|ing)$"), r"yz\1"),
    (re.compile(r"tre(s)?$"), r"ter\1"),
    (re.compile(r"ll(ed|ing|er|ers)$"), r"l\1"),
    (re.compile(r"ogue(s)?$"), r"og\1"),
    (re.compile(r"ence$"), "ense"),
    (re.compile(r"mme$"), "m"),
)


def _known(word: str, counts: Any) -> bool:
    if word in counts:
        return True
    return any(pattern.search(word) and pattern.sub(repl, word) in counts for pattern, repl in _AMERICAN)


def american_known(word: str, least: int = 1) -> bool:
    """Is ``word`` (lower case) a British spelling of a word the list counts ``least`` times or more ("colour",
    "organise", "neighbour")? False without the word list."""
    counts = _frequencies()
    if counts is None:
        return False
    for pattern, repl in _AMERICAN:
        if pattern.search(word):
            american = pattern.sub(repl, word)
            if american in counts and counts[american] >= least:
                return True
    return False


def _slips(word: str) -> set[str]:
    """Every word one slip from ``word``: two neighbours swapped (the first letter is trusted: "intro" is no
    slip of "nitro"), or a doubled letter written once ("adress", "comit"). Other letters left out, or a letter
    too many, are not undone: a known word and one letter more or less is mostly a word of its own that the
    list lacks ("funder" -> "founder", "backend" -> "backed", "Redis" -> "Reds")."""
    found = {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(1, len(word) - 1)}
    found |= {word[: i + 1] + word[i:] for i in range(len(word))}
    found.discard(word)
    return found


@lru_cache(maxsize=4096)
def correction(word: str) -> str | None:
    """The word ``word`` (lower case) was meant to be, or None when it is a word or no slip explains it."""
    counts = _frequencies()
    if counts is None or len(word) < MIN_LETTERS or not word.isalpha() or _known(word, counts):
        return None
    if word.endswith("s") and word[:-1] in counts and counts[word[:-1]] >= MIN_COUNT:
        return None  # a common word and its -s is a word of its own the list lacks ("lates": late shifts)
    candidates = [(counts[w], w) for w in _slips(word) if len(w) >= 4 and w in counts and counts[w] >= MIN_COUNT]
    return max(candidates)[1] if candidates else None


_TOKEN = re.compile(r"(?<![\w@/.'’-])[A-Za-z]+(?![\w@/'’-]|\.\w)")
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|\n\s*)[\"'(]?$")


def correct_typos(text: str) -> str:
    """``text`` with the plain words that are slips of a common English word corrected (see the module's doc)."""
    if not text or _frequencies() is None:
        return text
    caseless = not any(c.isupper() for c in text) or not any(c.islower() for c in text)

    def fix(match: re.Match[str]) -> str:
        word = match.group()
        if len(word) < MIN_LETTERS:
            return word
        capital = word[:1].isupper()
        if capital and not caseless and not _SENTENCE_START.search(text[: match.start()]):
            return word  # a name
        if any(c.isupper() for c in word[1:]) and not word.isupper():
            return word  # "iPhone", "McDonald"
        right = correction(word.lower())
        if right is None:
            return word
        if word.isupper():
            return right.upper()
        return right[:1].upper() + right[1:] if capital else right

    return _TOKEN.sub(fix, text)
