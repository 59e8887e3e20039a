"""Exact lexical top-k over whole posting lists, as numpy arrays: what recall scores with at any size.

The linker reads at most ``postings_limit`` newest ids a term (a cost bound for writes); recall must not
inherit that bound, or a term's older memories stop being candidates once a user holds a few hundred.
Here each cached term keeps its posting list also as an array of *rows*: small integers the scope's
:class:`RowTable` gives its memory ids, once. A question's score vector is then one ``numpy.bincount`` over
the concatenated rows of its terms, weighted by each term's weight, and the top k come from
``numpy.argpartition``: the work is in C and proportional to the postings of the question's terms, not to
the scope, and no posting list is walked in Python.

The scores are those of :func:`~kioko_core.linking.scoring.vote` to the last bit: ``bincount`` adds each
memory's contributions in the order of the terms, starting from 0.0, as ``vote``'s dictionary does; the
order is the same (score descending, then id).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np

_EMPTY = np.zeros(0, dtype=np.int32)


class RowTable:
    """A scope's memory ids as row numbers 0, 1, 2 ... in the order first seen; a row is never reused."""

    __slots__ = ("ids", "row_of")

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.row_of: dict[str, int] = {}

    def row(self, memory_id: str) -> int:
        found = self.row_of.get(memory_id)
        if found is None:
            found = self.row_of[memory_id] = len(self.ids)
            self.ids.append(memory_id)
        return found

    def rows(self, ids: Sequence[str]) -> np.ndarray:
        """The rows of ``ids``, as an int32 array (new ids get rows)."""
        if not ids:
            return _EMPTY
        row_of, row = self.row_of, self.row
        return np.fromiter((row_of[i] if i in row_of else row(i) for i in ids), dtype=np.int32, count=len(ids))


def top_k(table: RowTable, weighted: Sequence[tuple[np.ndarray, float]], limit: int) -> list[tuple[str, float]]:
    """The ``limit`` ids with the highest summed weight, best first (ties by id): each ``(rows, weight)`` pair
    adds ``weight`` to every row it holds. Only rows some pair holds are ranked (a 0.0 total included, as in
    ``vote``)."""
    weighted = [(rows, weight) for rows, weight in weighted if len(rows)]
    if not weighted or limit <= 0:
        return []
    size = len(table.ids)
    rows = np.concatenate([rows for rows, _ in weighted]) if len(weighted) > 1 else weighted[0][0]
    values = np.concatenate([np.full(len(r), w, dtype=np.float64) for r, w in weighted])
    scores = np.bincount(rows, weights=values, minlength=size)
    held = np.flatnonzero(np.bincount(rows, minlength=size)) if len(weighted) > 1 else np.unique(rows)
    ids = table.ids
    if len(held) <= limit:
        return sorted(((ids[r], float(scores[r])) for r in held.tolist()), key=lambda kv: (-kv[1], kv[0]))
    # the rows above the limit-th best score (fewer than limit), then the smallest ids among those tied with it:
    # in a large scope hundreds of memories can tie at the cut (one common word), and only the few places left
    # are settled by id, without sorting them all
    held_scores = scores[held]
    cut = -np.partition(-held_scores, limit - 1)[limit - 1]
    above = held[held_scores > cut]
    ranked = sorted(((ids[r], float(scores[r])) for r in above.tolist()), key=lambda kv: (-kv[1], kv[0]))
    tied = heapq.nsmallest(limit - len(ranked), [ids[r] for r in held[held_scores == cut].tolist()])
    return ranked + [(memory_id, float(cut)) for memory_id in tied]
