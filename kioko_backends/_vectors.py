"""Exact knn in numpy, shared by memory:// and sqlite://: one scope's vectors as a matrix, and its top k."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from kioko_core.store import Neighbor


class VectorMatrix:
    """One scope's vectors as rows of a growable float32 matrix, each kept at unit length.

    Unit rows make a query one pass over the matrix. Rows are replaced in place, appended, or removed
    by moving the last row into the hole, so the live rows are always the first ``len(ids)``.
    """

    def __init__(self, dim: int, ids: Sequence[str] = (), vectors: np.ndarray | None = None) -> None:
        """Rows for ``ids`` from ``vectors`` (one float32 row per id, any non-zero length)."""
        self.ids = list(ids)
        self.slots = {record_id: slot for slot, record_id in enumerate(self.ids)}
        self.matrix = np.empty((max(16, len(self.ids)), dim), dtype=np.float32)
        if self.ids:
            loaded = self.matrix[: len(self.ids)]
            loaded[:] = vectors
            loaded /= np.linalg.norm(loaded, axis=1, keepdims=True)

    @property
    def nbytes(self) -> int:
        return self.matrix.nbytes

    def put(self, record_id: str, vector: np.ndarray) -> None:
        """Set the row of ``record_id`` (added if new) to ``vector``, normalised."""
        slot = self.slots.get(record_id)
        if slot is None:
            slot = len(self.ids)
            if slot == self.matrix.shape[0]:
                grown = np.empty((slot * 2, self.matrix.shape[1]), dtype=np.float32)
                grown[:slot] = self.matrix[:slot]
                self.matrix = grown
            self.ids.append(record_id)
            self.slots[record_id] = slot
        self.matrix[slot] = vector / np.linalg.norm(vector)

    def remove(self, record_id: str) -> None:
        slot = self.slots.pop(record_id, None)
        if slot is None:
            return
        last = len(self.ids) - 1
        if slot != last:  # the last row fills the hole, so live rows stay contiguous
            self.matrix[slot] = self.matrix[last]
            self.ids[slot] = self.ids[last]
            self.slots[self.ids[slot]] = slot
        self.ids.pop()

    def score(self, query: np.ndarray, allowed: Collection[str] | None = None) -> tuple[list[str], np.ndarray]:
        """Ids and cosine similarities with ``query`` of every row, or only of the ``allowed`` ids."""
        count = len(self.ids)
        if allowed is None:
            return list(self.ids), _cosines(self.matrix[:count], query)
        slots = [self.slots[i] for i in allowed if i in self.slots]
        ids = [self.ids[j] for j in slots]
        if 4 * len(slots) < count:  # a selective filter: copying its few rows beats scoring them all
            return ids, _cosines(self.matrix[slots], query)
        return ids, _cosines(self.matrix[:count], query)[slots]


def nearest(ids: Sequence[str], scores: np.ndarray, k: int) -> list[Neighbor]:
    """The ``k`` best scores plus every one tied with the k-th, unordered: what ``StoreBase.knn`` ranks."""
    if k >= len(ids):
        return [Neighbor(record_id, float(score)) for record_id, score in zip(ids, scores)]
    threshold = np.partition(-scores, k - 1)[k - 1]
    return [Neighbor(ids[j], float(scores[j])) for j in np.flatnonzero(-scores <= threshold).tolist()]


def _cosines(unit_rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    # einsum, not BLAS: on these machines BLAS's threaded matvec is slower and its timing erratic
    cosines: np.ndarray = np.einsum("ij,j->i", unit_rows, query / np.linalg.norm(query))
    return cosines
