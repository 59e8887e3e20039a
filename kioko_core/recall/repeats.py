"""Repeats: a memory that says largely what a better-ranked one says takes a place only when nothing else is left.

A user's memory repeats itself as it grows: the same remark stored again, a fact restated in several turns, a
note that copies half of an earlier one. Each copy matches a question exactly as well as the others, so a
handful of them can fill the first places of a recall, and the context then shows one thing several times
instead of several things. A memory whose word runs (three words in a row) are for the most part already in a
memory ranked above it is therefore moved behind every memory that is not such a repeat; its own score is
kept. Only the few memories being ranked are compared, so the cost does not grow with what the user holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

RUN = 3
"""Words in a run: two texts that share runs of three words in a row share wording, not only vocabulary."""
SHARED_RUNS = 6
"""A repeat shares at least this many runs (or all of a shorter text's): a conversation's set phrases ("Thanks,
Mel! Your kind words mean a lot") share a few runs between turns that say different things."""
_WORD = re.compile(r"\w+")


def word_runs(text: str) -> frozenset[tuple[str, ...]]:
    """The text's runs of :data:`RUN` consecutive words, lower-cased (a shorter text is one run)."""
    words = _WORD.findall(text.lower())
    if len(words) <= RUN:
        return frozenset([tuple(words)]) if words else frozenset()
    return frozenset(tuple(words[i : i + RUN]) for i in range(len(words) - RUN + 1))


def repeats(runs: frozenset[tuple[str, ...]], earlier: frozenset[tuple[str, ...]], share: float) -> bool:
    """True when at least ``share`` of the shorter text's word runs, and at least :data:`SHARED_RUNS` of them (all,
    for a text with fewer), are in the other text too."""
    smaller = min(len(runs), len(earlier))
    shared = len(runs & earlier)
    return smaller > 0 and shared >= share * smaller and shared >= min(SHARED_RUNS, smaller)


def repeats_last(ids: Sequence[str], text_of: Callable[[str], str], share: float, wanted: int) -> list[str]:
    """The first ``wanted`` of ``ids`` (best first) with every repeat of a memory kept before it (see
    :func:`repeats`) moved behind the others, in its own order; ``share`` 0 keeps ``ids`` as they are."""
    if share <= 0:
        return list(ids[:wanted])
    kept: list[str] = []
    kept_runs: list[frozenset[tuple[str, ...]]] = []
    later: list[str] = []
    for memory_id in ids:
        if len(kept) >= wanted:
            break
        runs = word_runs(text_of(memory_id))
        if any(repeats(runs, earlier, share) for earlier in kept_runs):
            later.append(memory_id)
            continue
        kept.append(memory_id)
        kept_runs.append(runs)
    return (kept + later)[:wanted]
