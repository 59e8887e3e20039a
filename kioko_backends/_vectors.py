"""knn in numpy, shared by memory:// and sqlite://: one scope's vectors as a matrix, and its top k.

Exact below a size (:class:`AnnSettings`), through an HNSW graph's candidates above it (see ``_ann``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import numpy as np

from kioko_backends._ann import CANDIDATES, AnnSettings, HnswGraph
from kioko_core.store import Neighbor

KeepMatching = Callable[[list[str]], Collection[str]]
"""Given candidate ids, the ones a knn filter accepts."""

AllMatching = Callable[[], Collection[str] | None]
"""Every id a knn filter accepts (None: every id); what an exact search falls back to."""


class VectorMatrix:
    """One scope's vectors as rows of a growable float32 matrix, each kept at unit length.

    Unit rows make a query one pass over the matrix. Rows are replaced in place, appended, or removed
    by moving the last row into the hole, so the live rows are always the first ``len(ids)``.
    """

    def __init__(
        self, dim: int, ids: Sequence[str] = (), vectors: np.ndarray | None = None, ann: AnnSettings | None = None
    ) -> None:
        """Rows for ``ids`` from ``vectors`` (one float32 row per id, any non-zero length).

        ``ann``: search through an HNSW graph once the rows reach ``ann.exact_below``; None: always exact.
        """
        self.ann = ann
        self.graph: HnswGraph | None = None
        self.ids = list(ids)
        self.slots = {record_id: slot for slot, record_id in enumerate(self.ids)}
        self.matrix = np.empty((max(16, len(self.ids)), dim), dtype=np.float32)
        if self.ids:
            loaded = self.matrix[: len(self.ids)]
            loaded[:] = vectors
            loaded /= np.linalg.norm(loaded, axis=1, keepdims=True)

    @property
    def nbytes(self) -> int:
        return self.matrix.nbytes + (self.graph.nbytes if self.graph is not None else 0)

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
        if self.graph is not None:
            self.graph.set(slot, self.matrix[slot])

    def remove(self, record_id: str) -> None:
        slot = self.slots.pop(record_id, None)
        if slot is None:
            return
        last = len(self.ids) - 1
        if self.graph is not None:
            self.graph.remove(slot)
        if slot != last:  # the last row fills the hole, so live rows stay contiguous
            self.matrix[slot] = self.matrix[last]
            self.ids[slot] = self.ids[last]
            self.slots[self.ids[slot]] = slot
            if self.graph is not None:
                self.graph.move(last, slot)
        self.ids.pop()

    def search(
        self, query: np.ndarray, k: int, keep: KeepMatching | None = None, matching: AllMatching | None = None
    ) -> list[Neighbor]:
        """The top ``k`` rows (ties at the k-th included, unordered) among those a filter accepts.

        ``keep`` and ``matching`` describe the filter (both None: every row). Through the graph, ``keep``
        sorts its candidates; when fewer than k of them pass (a selective filter), the search is redone
        exactly over ``matching()``, so a filter never gets fewer neighbours than it matches.
        """
        graph = self._graph_for_search(k)
        if graph is not None:
            found = self._through_graph(graph, query, k, keep)
            if found is not None:
                return found
        allowed = matching() if matching is not None else None
        ids, scores = self.score(query, allowed)
        return nearest(ids, scores, k)

    def _graph_for_search(self, k: int) -> HnswGraph | None:
        """The graph, built now if the scope has grown to need one; None where exact is the better search."""
        count = len(self.ids)
        if self.ann is None or count < self.ann.exact_below:
            return None
        if self.graph is None:
            self.graph = HnswGraph.build(self.matrix[:count])
        return self.graph

    def _through_graph(
        self, graph: HnswGraph, query: np.ndarray, k: int, keep: KeepMatching | None
    ) -> list[Neighbor] | None:
        """Candidates from the graph, re-scored exactly; None when too few of them pass the filter."""
        unit = (query / np.linalg.norm(query)).astype(np.float32)
        if keep is None:
            return self._best_nodes(graph, unit, query, k)
        slots = graph.candidates(unit, max(4 * k, CANDIDATES))
        slots = slots[slots < len(self.ids)]
        ids = [self.ids[j] for j in slots.tolist()]
        if keep is not None:
            passing = set(keep(ids))
            chosen = [j for j, record_id in enumerate(ids) if record_id in passing]
            slots, ids = slots[chosen], [ids[j] for j in chosen]
        if len(ids) < k:  # a selective filter, or k near the scope's size: only an exact pass is sure
            return None
        return nearest(ids, _cosines(self.matrix[slots], query), k)

    def _best_nodes(self, graph: HnswGraph, unit: np.ndarray, query: np.ndarray, k: int) -> list[Neighbor] | None:
        """Unfiltered: each candidate node scored once, then the copies of the best nodes only; None below k rows.

        In a large scope a popular text can have thousands of copies; expanding every candidate node into
        all of them made each knn cost grow with the scope (at 250,000 of the benchmark's notes, several
        thousand rows per query). The copies of a node score the same, so nodes are taken best first until
        k rows are in, with every node tied with the last one taken: the rows the exact re-scoring of
        every candidate would have kept.
        """
        count = len(self.ids)
        keys: list[int] = []
        firsts: list[int] = []
        for key in graph.nodes_near(unit, max(4 * k, CANDIDATES)):
            members = graph.members.get(key, ())
            # any copy will do (they hold the same vector); not a loop over them all, which is the cost avoided
            first = next((slot for slot in members if slot < count), None)
            if first is not None:
                keys.append(key)
                firsts.append(first)
        scores = _cosines(self.matrix[firsts], query)
        found: list[Neighbor] = []
        last = 0.0
        for j in np.argsort(-scores, kind="stable").tolist():
            score = float(scores[j])
            if len(found) >= k and score < last:
                break
            found += [Neighbor(self.ids[slot], score) for slot in graph.members[keys[j]] if slot < count]
            last = score
        return found if len(found) >= k else None

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
