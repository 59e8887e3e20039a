"""Exact lexical top-k over whole posting lists, as numpy arrays: what recall scores with at any size.

The linker reads at most ``postings_limit`` newest ids a term (a cost bound for writes); recall must not
inherit that bound, or a term's older memories stop being candidates once a user holds a few hundred.
Here each cached term keeps its posting list also as an array of *rows*: small integers the scope's
:class:`RowTable` gives its memory ids, once. A question's score vector is then one ``numpy.bincount`` over
the concatenated rows of its terms, weighted by each term's weight, and the top k come from
``numpy.argpartition``: the work is in C and proportional to the postings of the question's terms, not to
the scope, and no posting list is walked in Python (where the postings are few beside the scope, the sums are
made over their distinct rows alone, and ties at the cut are settled by a numeric key of each id first).

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

    __slots__ = ("ids", "row_of", "_keys", "_keyed")

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.row_of: dict[str, int] = {}
        self._keys = np.zeros(0, dtype=np.uint64)
        self._keyed = 0

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

    def keys(self) -> np.ndarray:
        """Per row, its id's first eight UTF-8 bytes as one unsigned number (zero-padded): an id whose key is
        smaller than another's is the smaller id (UTF-8 keeps code point order), equal keys say nothing. Made
        for the rows added since the last call only (the array grows by doubling)."""
        size = len(self.ids)
        if self._keyed < size:
            if len(self._keys) < size:
                grown = np.zeros(max(size, 2 * len(self._keys)), dtype=np.uint64)
                grown[: self._keyed] = self._keys[: self._keyed]
                self._keys = grown
            fresh = b"".join(i.encode()[:8].ljust(8, b"\0") for i in self.ids[self._keyed : size])
            self._keys[self._keyed : size] = np.frombuffer(fresh, dtype=">u8")
            self._keyed = size
        return self._keys[:size]


def _smallest_ids(table: RowTable, rows: np.ndarray, count: int) -> list[str]:
    """The ``count`` smallest ids of ``rows``, in order. In a large scope one common word ties hundreds of
    memories at the cut: their ids' keys (:meth:`RowTable.keys`) leave out, in C, every row that at least
    ``count`` others' keys show to be larger; only the rest are compared as strings."""
    if len(rows) > count:
        keys = table.keys()[rows]
        rows = rows[keys <= np.partition(keys, count - 1)[count - 1]]
    ids = table.ids
    return heapq.nsmallest(count, [ids[r] for r in rows.tolist()])


def _held_scores(rows: np.ndarray, values: np.ndarray, size: int, terms: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows some term holds (ascending) and each one's summed weight. Where the postings are few beside the
    scope's rows, counted over the distinct rows alone (``numpy.unique``) rather than over an array the size of
    the scope: the sums are the same to the bit (``bincount`` adds a bin's weights in input order either way)."""
    if 16 * len(rows) < size:
        held, inverse = np.unique(rows, return_inverse=True)
        return held, np.bincount(inverse.ravel(), weights=values, minlength=len(held))
    scores = np.bincount(rows, weights=values, minlength=size)
    held = np.bincount(rows, minlength=size).nonzero()[0] if terms > 1 else np.unique(rows)  # numpy.flatnonzero's
    return held, scores[held]


def top_k(table: RowTable, weighted: Sequence[tuple[np.ndarray, float]], limit: int) -> list[tuple[str, float]]:
    """The ``limit`` ids with the highest summed weight, best first (ties by id): each ``(rows, weight)`` pair
    adds ``weight`` to every row it holds. Only rows some pair holds are ranked (a 0.0 total included, as in
    ``vote``)."""
    weighted = [(rows, weight) for rows, weight in weighted if len(rows)]
    if not weighted or limit <= 0:
        return []
    rows = np.concatenate([rows for rows, _ in weighted]) if len(weighted) > 1 else weighted[0][0]
    values = np.concatenate([np.full(len(r), w, dtype=np.float64) for r, w in weighted])
    held, held_scores = _held_scores(rows, values, len(table.ids), len(weighted))
    ids = table.ids
    if len(held) <= limit:
        return sorted(
            ((ids[r], s) for r, s in zip(held.tolist(), held_scores.tolist())), key=lambda kv: (-kv[1], kv[0])
        )
    # the rows above the limit-th best score (fewer than limit), then the smallest ids among those tied with it:
    # in a large scope hundreds of memories can tie at the cut (one common word), and only the few places left
    # are settled by id, without sorting them all
    cut = -np.partition(-held_scores, limit - 1)[limit - 1]
    above = held_scores > cut
    ranked = sorted(
        ((ids[r], s) for r, s in zip(held[above].tolist(), held_scores[above].tolist())),
        key=lambda kv: (-kv[1], kv[0]),
    )
    tied = _smallest_ids(table, held[held_scores == cut], limit - len(ranked))
    return ranked + [(memory_id, float(cut)) for memory_id in tied]
