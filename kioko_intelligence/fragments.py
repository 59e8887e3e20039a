"""Terse turns: a statement said as fragments, each a word or three ("Tea. Two sugars.", "Chicken now. Half the
price."), is one statement.

The router reads a turn sentence by sentence, and a sentence of one or two words on its own names nothing it can
keep ("Tea." is no preference, "Two sugars." is a number of something): both were dropped, and the turn stored
nothing. Two or more such fragments in a row are joined with commas ("Tea, two sugars.") and read as one
sentence. A fragment that is a question, a request, small talk or a forget is never joined; a longer sentence
ends the run.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kioko_intelligence.spelling import word_count

__all__ = ["FRAGMENT_WORDS", "TOPIC_WORDS", "joined_fragments", "joined_values"]

FRAGMENT_WORDS = 3
"""A sentence of at most this many words is a fragment."""
TOPIC_WORDS = 2
"""A run starts with a bare topic of at most this many words ("Tea.", "Chicken now."): "Moved to Leeds." says its
own thing and is read alone."""

_WORD = re.compile(r"[^\W_]+(?:['-][^\W_]+)*", re.UNICODE)


def _lowered(fragment: str) -> str:
    """A later fragment's first word in lower case when it is a common word ("Two sugars" -> "two sugars"), kept
    as written when it may be a name ("Earl Grey", "Vim")."""
    first = _WORD.match(fragment)
    if first is None or first.start() != 0:
        return fragment
    word = first.group(0)
    if not word[:1].isupper() or word[1:] != word[1:].lower():
        return fragment
    counts = word_count(word.lower())
    common = counts is not None and counts >= 10_000
    return word.lower() + fragment[len(word) :] if common else fragment


def joined_fragments(sentences: list[str], plain: Callable[[str], bool]) -> list[str]:
    """``sentences`` with each run of two or more fragments joined into one; ``plain(sentence)`` says whether a
    sentence is a plain statement (no question, request, small talk or forget), and only those are joined."""
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if len(run) >= 2:
            parts = [run[0].rstrip(" .!")] + [_lowered(p.rstrip(" .!")) for p in run[1:]]
            out.append(", ".join(parts) + ".")
        else:
            out.extend(run)
        run.clear()

    for sentence in sentences:
        words = _WORD.findall(sentence)
        terse = 0 < len(words) <= FRAGMENT_WORDS and not sentence.rstrip().endswith("?")
        if terse and (run or len(words) <= TOPIC_WORDS) and plain(sentence):
            run.append(sentence)
            continue
        flush()
        out.append(sentence)
    flush()
    return out


_THATS_VALUE = re.compile(
    r"^\W*(?:(?:so|and|which)\s+)?(?:that's|that is|that makes|which makes|which is|makes)\s+"
    r"(?=[^.!?]*(?:\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|"
    r"sixty|seventy|eighty|ninety|hundred|half|all)\b))",
    re.IGNORECASE,
)
"""A sentence that gives a figure of the one before it ("Down to the last 20. That's 100 across.", "Sold four more.
Makes eleven."): its "that" is the sentence before, and alone it names nothing."""


def joined_values(sentences: list[str], plain: Callable[[str], bool]) -> list[str]:
    """``sentences`` with each sentence that gives a figure of the one before it (:data:`_THATS_VALUE`) joined to
    that one with a comma: read alone, "That's 100 across." opened on a "that" only the talk explains and was
    dropped. Only plain statements (``plain``) are joined, and never onto a question."""
    out: list[str] = []
    for sentence in sentences:
        if (
            out
            and _THATS_VALUE.match(sentence)
            and plain(sentence)
            and plain(out[-1])
            and not out[-1].rstrip().endswith("?")
        ):
            out[-1] = f"{out[-1].rstrip().rstrip('.!')}, {sentence[:1].lower()}{sentence[1:]}"
            continue
        out.append(sentence)
    return out
