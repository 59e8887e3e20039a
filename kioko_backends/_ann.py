"""Approximate knn for memory:// and sqlite://: an HNSW graph (usearch) over one scope's vector rows.

The graph only proposes candidates. Every candidate is scored again, exactly, from the scope's float32
rows, so a returned score is always the true cosine; what the graph can do wrong is miss a neighbour,
which is why a store using it declares ``approximate_knn``. Scopes smaller than
:attr:`AnnSettings.exact_below` never get a graph: there an exact pass is cheap and its answer perfect.

The graph's keys are the rows' slots in :class:`kioko_backends._vectors.VectorMatrix`, so no id map is
kept twice: the matrix moves a row (deletes fill their hole with the last row), the graph follows.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from kioko_core.store import MissingExtraError

DEFAULT_EXACT_BELOW = 10_000
"""Scopes with fewer vectors are searched exactly: at 10,000 rows one exact pass costs about a millisecond."""

CANDIDATES = 100
"""At least this many candidates are asked of the graph per query, and re-scored exactly."""

CONNECTIVITY = 16
"""Edges per node (HNSW's M): 16 is the usual balance of memory, build time and recall."""

EXPANSION_ADD = 128
"""Breadth of the search that places a new node (efConstruction)."""

EXPANSION_SEARCH = 256
"""Breadth of a query's search (ef): wider than the candidates asked for, for recall on dense clusters."""


@dataclass(frozen=True)
class AnnSettings:
    """Whether and when a scope's knn goes through an HNSW graph."""

    exact_below: int = DEFAULT_EXACT_BELOW
    """A scope with fewer vectors than this is searched exactly, and keeps no graph."""


def usearch_available() -> bool:
    try:
        import usearch.index  # noqa: F401
    except ImportError:
        return False
    return True


def require_usearch() -> None:
    """Raise the install hint when the ``ann`` extra is missing."""
    try:
        import usearch.index  # noqa: F401
    except ImportError as error:
        raise MissingExtraError(
            "approximate knn needs usearch: pip install 'kioko[ann]' (or open the store with ?ann=false for exact knn)"
        ) from error


class HnswGraph:
    """An HNSW graph keyed by row slot, with vectors kept as float16 (they are only used to navigate)."""

    def __init__(self, dim: int, index: Any = None) -> None:
        from usearch.index import Index

        self.dim = dim
        self.index = index or Index(
            ndim=dim,
            metric="cos",
            dtype="f16",
            connectivity=CONNECTIVITY,
            expansion_add=EXPANSION_ADD,
            expansion_search=EXPANSION_SEARCH,
        )

    @classmethod
    def build(cls, unit_rows: np.ndarray) -> HnswGraph:
        """A graph of ``unit_rows``, row j under key j; the build uses every core."""
        graph = cls(unit_rows.shape[1])
        if len(unit_rows):
            graph.index.add(np.arange(len(unit_rows), dtype=np.uint64), unit_rows, threads=os.cpu_count() or 1)
        return graph

    @classmethod
    def load(cls, path: str, dim: int) -> HnswGraph:
        from usearch.index import Index

        index = Index.restore(path, expansion_add=EXPANSION_ADD, expansion_search=EXPANSION_SEARCH)
        if index is None or index.ndim != dim:
            raise ValueError(f"{path} is not a usearch index of dimension {dim}")
        return cls(dim, index)

    def save(self, path: str) -> None:
        self.index.save(path)

    def __len__(self) -> int:
        return len(self.index)

    @property
    def nbytes(self) -> int:
        return int(self.index.memory_usage)

    def set(self, slot: int, unit_vector: np.ndarray) -> None:
        """Put ``unit_vector`` at ``slot``, replacing what was there."""
        if slot in self.index:
            self.index.remove(slot)
        self.index.add(slot, unit_vector, threads=1)

    def remove(self, slot: int) -> None:
        if slot in self.index:
            self.index.remove(slot)

    def candidates(self, unit_query: np.ndarray, count: int) -> np.ndarray:
        """Slots of about ``count`` rows near ``unit_query``, nearest first."""
        return np.asarray(self.index.search(unit_query, count, threads=1).keys, dtype=np.int64)


def ann_choice(value: Any, name: str) -> bool | None:
    """The ``ann`` option: ``true``/``false`` as :func:`flag` reads them, or ``auto`` (None)."""
    from kioko_core.driver import flag

    if isinstance(value, str) and value.strip().lower() == "auto":
        return None
    return flag(value, name)


def settings_for(ann: bool | None, exact_below: int) -> AnnSettings | None:
    """The settings a store opened with ``?ann=`` and ``?exact_below=`` uses; None for exact knn.

    ``ann`` None (auto) uses a graph when usearch is installed; True insists on it.
    """
    if ann is False or (ann is None and not usearch_available()):
        return None
    require_usearch()
    return AnnSettings(exact_below=exact_below)
