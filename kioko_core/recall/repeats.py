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
import sys
from collections.abc import Callable, Sequence
from functools import lru_cache

from kioko_core.privacy.held_texts import keeps_text

RUN = 3
"""Words in a run: two texts that share runs of three words in a row share wording, not only vocabulary."""
SHARED_RUNS = 6
"""A repeat shares at least this many runs (or all of a shorter text's): a conversation's set phrases ("Thanks,
Mel! Your kind words mean a lot") share a few runs between turns that say different things."""
_WORD = re.compile(r"\w+")


@keeps_text
@lru_cache(maxsize=8192)
def word_runs(text: str) -> frozenset[str]:
    """The text's runs of :data:`RUN` consecutive words, lower-cased, each as its words joined by a space (a
    shorter text is one run). A word has no space in it, so two runs are equal exactly when their words are.
    Each run is interned: the same run in two texts is one object, which the set operations comparing texts
    recognise by identity, and which is held once however many cached texts hold it."""
    words = _WORD.findall(text.lower())
    if len(words) <= RUN:
        return frozenset([sys.intern(" ".join(words))]) if words else frozenset()
    return frozenset([sys.intern(" ".join(words[i : i + RUN])) for i in range(len(words) - RUN + 1)])


def repeats(runs: frozenset[str], earlier: frozenset[str], share: float) -> bool:
    """True when at least ``share`` of the shorter text's word runs, and at least :data:`SHARED_RUNS` of them (all,
    for a text with fewer), are in the other text too."""
    smaller = min(len(runs), len(earlier))
    return smaller > 0 and _shares_enough(smaller, len(runs & earlier), share)


def _shares_enough(smaller: int, shared: int, share: float) -> bool:
    return shared >= share * smaller and shared >= min(SHARED_RUNS, smaller)


def repeats_last(ids: Sequence[str], text_of: Callable[[str], str], share: float, wanted: int) -> list[str]:
    """The first ``wanted`` of ``ids`` (best first) with every repeat of a memory kept before it (see
    :func:`repeats`) moved behind the others, in its own order; ``share`` 0 keeps ``ids`` as they are."""
    if share <= 0:
        return list(ids[:wanted])
    kept = distinct_ids(ids, text_of, share, wanted)
    if len(kept) < wanted:  # every id was read: the repeats follow, in their order
        chosen = set(kept)
        kept += [i for i in ids if i not in chosen][: wanted - len(kept)]
    return kept


def distinct_ids(ids: Sequence[str], text_of: Callable[[str], str], share: float, wanted: int) -> list[str]:
    """The first ``wanted`` of ``ids`` (best first) that repeat no memory kept before them (see :func:`repeats`)."""
    kept: list[str] = []
    kept_runs: list[frozenset[str]] = []
    holders: dict[str, list[int]] = {}  # run -> the kept memories holding it (their places in ``kept``)
    every: set[str] = set()  # the runs of every kept memory
    fewest = sys.maxsize  # the fewest runs a kept memory has
    for memory_id in ids:
        if len(kept) >= wanted:
            break
        runs = word_runs(text_of(memory_id))
        size = len(runs)
        shared = runs & every
        # a repeat shares at least ``least`` runs with one kept memory (min(SHARED_RUNS, the smaller text's runs)),
        # so at least that many with all of them together: a candidate sharing fewer is let through at once. A kept
        # memory holding ``least`` of the shared runs holds one of any len(shared) - least + 1 of them: only the
        # holders of that many of the rarest are compared (one set intersection, in C, each), not those of the set
        # phrases ("shares a photo") most kept memories hold
        least = min(SHARED_RUNS, size, fewest)
        if len(shared) >= least:
            rarest = sorted(shared, key=lambda run: len(holders[run]))[: len(shared) - least + 1]
            places = sorted({place for run in rarest for place in holders[run]})
            if any(
                _shares_enough(min(size, len(kept_runs[place])), len(runs & kept_runs[place]), share)
                for place in places
            ):
                continue
        for run in runs:
            holders.setdefault(run, []).append(len(kept))
        every |= runs
        fewest = min(fewest, size)
        kept.append(memory_id)
        kept_runs.append(runs)
    return kept
