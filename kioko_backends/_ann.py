"""Approximate knn for memory:// and sqlite://: an HNSW graph (usearch) over one scope's vector rows.

The graph only proposes candidates. Every candidate is scored again, exactly, from the scope's float32
rows, so a returned score is always the true cosine; what the graph can do wrong is miss a neighbour,
which is why a store using it declares ``approximate_knn``. Scopes smaller than
:attr:`AnnSettings.exact_below` never get a graph: there an exact pass is cheap and its answer perfect.

The graph's keys are the rows' slots in :class:`kioko_backends._vectors.VectorMatrix`, so no id map is
kept twice: the matrix moves a row (deletes fill their hole with the last row), the graph follows.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections.abc import Sequence
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
    # looked up, not imported: usearch takes ~0.1 s to import, which every store opening with ?ann=auto
    # (the default) paid even when no scope reaches exact_below; the graph imports it when it is built.
    # A None in sys.modules is Python's mark of an import that must fail (how tests hide a package).
    if any(name in sys.modules and sys.modules[name] is None for name in ("usearch", "usearch.index")):
        return False
    return importlib.util.find_spec("usearch") is not None


def load_usearch() -> Any:
    """``usearch.index``, with ONNX Runtime (the semantic embedder's) loaded first when it is installed.

    Both are pybind11 extensions built apart, and the second to load reuses the first's pybind11 state:
    loaded after usearch, ONNX Runtime crashes the interpreter (a segmentation fault, seen in the suite
    and reproduced with the two imports alone); loaded before it, both work.
    """
    first = "usearch.compiled" not in sys.modules  # once usearch is in, loading ONNX Runtime is the crash itself
    if first and "onnxruntime" not in sys.modules and importlib.util.find_spec("onnxruntime") is not None:
        try:
            importlib.import_module("onnxruntime")
        except ImportError:
            pass  # a broken ONNX Runtime is the embedder's to report; the graph does not need it
    return importlib.import_module("usearch.index")


def require_usearch() -> None:
    """Raise the install hint when the ``ann`` extra is missing."""
    try:
        load_usearch()
    except ImportError as error:
        raise MissingExtraError(
            "approximate knn needs usearch: pip install 'kioko[ann]' (or open the store with ?ann=false for exact knn)"
        ) from error


def _digest(unit_vector: np.ndarray) -> bytes:
    return hashlib.blake2b(unit_vector.tobytes(), digest_size=16).digest()


class HnswGraph:
    """An HNSW graph over row slots in which identical vectors share one node.

    Copies of one text have one vector; left as separate nodes they fill each other's neighbour lists
    and leave islands a search cannot leave (measured: on the benchmark's notes a question missed its
    whole top 50 in 4 builds of 10). So a node stands for every slot holding its vector, and a search
    expands each node it finds into those slots. Vectors are kept as float16: they only navigate.
    """

    def __init__(self, dim: int, index: Any = None) -> None:
        Index = load_usearch().Index

        self.dim = dim
        self.index = index or Index(
            ndim=dim,
            metric="cos",
            dtype="f16",
            connectivity=CONNECTIVITY,
            expansion_add=EXPANSION_ADD,
            expansion_search=EXPANSION_SEARCH,
        )
        self.node_of: dict[int, int] = {}
        """slot -> node key"""
        self.members: dict[int, list[int]] = {}
        """node key -> the slots holding its vector"""
        self.nodes: dict[bytes, int] = {}
        """digest of a vector -> its node key"""
        self.digest_of: dict[int, bytes] = {}
        self.next_key = 0
        self.removed = 0
        """Nodes removed since the build: usearch only marks them, their vectors stay in the index and in
        every file it is saved to (a forgotten memory's too), until the graph is built again."""

    @classmethod
    def build(cls, unit_rows: np.ndarray, nodes: Sequence[int] | None = None) -> HnswGraph:
        """A graph of ``unit_rows`` (slot j is row j); the build uses every core."""
        graph = cls(unit_rows.shape[1])
        firsts = graph._group(unit_rows, nodes)
        if firsts:
            keys = np.asarray([graph.node_of[slot] for slot in firsts], dtype=np.uint64)
            graph.index.add(keys, unit_rows[firsts], threads=os.cpu_count() or 1)
        return graph

    @classmethod
    def load(cls, path: str, unit_rows: np.ndarray, nodes: Sequence[int]) -> HnswGraph:
        """The graph saved at ``path`` for these rows, slot j in node ``nodes[j]``."""
        Index = load_usearch().Index

        index = Index.restore(path, expansion_add=EXPANSION_ADD, expansion_search=EXPANSION_SEARCH)
        if index is None or index.ndim != unit_rows.shape[1] or len(nodes) != len(unit_rows):
            raise ValueError(f"{path} is not a usearch index of these {len(unit_rows)} rows")
        graph = cls(unit_rows.shape[1], index)
        graph._group(unit_rows, nodes)
        if len(graph.members) != len(index):
            raise ValueError(f"{path} holds {len(index)} nodes, its rows {len(graph.members)}")
        return graph

    def _group(self, unit_rows: np.ndarray, nodes: Sequence[int] | None) -> list[int]:
        """Fill the maps for ``unit_rows``, with the given node per slot or by digest; the first slot per node."""
        firsts: list[int] = []
        for slot in range(len(unit_rows)):
            if nodes is not None:
                key = int(nodes[slot])
                if key not in self.members:
                    self.digest_of[key] = digest = _digest(unit_rows[slot])
                    self.nodes.setdefault(digest, key)
            else:
                digest = _digest(unit_rows[slot])
                key = self.nodes.get(digest, -1)
                if key < 0:
                    key = self.nodes[digest] = len(firsts)
                    self.digest_of[key] = digest
            if key not in self.members:
                self.members[key] = []
                firsts.append(slot)
            self.members[key].append(slot)
            self.node_of[slot] = key
        self.next_key = max(self.members, default=-1) + 1
        return firsts

    def save(self, path: str) -> None:
        self.index.save(path)

    def nodes_by_slot(self, count: int) -> list[int]:
        """The node of each slot below ``count``: what a saved graph needs besides the index."""
        return [self.node_of[slot] for slot in range(count)]

    def __len__(self) -> int:
        return len(self.node_of)

    @property
    def nbytes(self) -> int:
        # the index, plus about 200 bytes of Python maps per slot
        return int(self.index.memory_usage) + 200 * len(self.node_of)

    def set(self, slot: int, unit_vector: np.ndarray) -> None:
        """Put ``unit_vector`` at ``slot``, replacing what was there."""
        self.remove(slot)
        digest = _digest(unit_vector)
        key = self.nodes.get(digest)
        if key is None:
            key = self.nodes[digest] = self.next_key
            self.next_key += 1
            self.digest_of[key] = digest
            self.members[key] = []
            self.index.add(key, unit_vector, threads=1)
        self.members[key].append(slot)
        self.node_of[slot] = key

    def remove(self, slot: int) -> None:
        key = self.node_of.pop(slot, None)
        if key is None:
            return
        members = self.members[key]
        members.remove(slot)
        if not members:
            del self.members[key]
            digest = self.digest_of.pop(key)
            if self.nodes.get(digest) == key:
                del self.nodes[digest]
            self.index.remove(key)
            self.removed += 1

    def rebuilt(self, unit_rows: np.ndarray) -> HnswGraph:
        """The same graph (same node per slot) built afresh from ``unit_rows``: nothing removed lingers in it."""
        return HnswGraph.build(unit_rows, self.nodes_by_slot(len(unit_rows)))

    def move(self, old_slot: int, new_slot: int) -> None:
        """The row at ``old_slot`` now lives at ``new_slot`` (which is free)."""
        key = self.node_of.pop(old_slot)
        members = self.members[key]
        members[members.index(old_slot)] = new_slot
        self.node_of[new_slot] = key

    def nodes_near(self, unit_query: np.ndarray, count: int) -> list[int]:
        """Keys of up to ``count`` nodes near ``unit_query``, nearest first as the graph found them."""
        found: list[int] = self.index.search(unit_query, count, threads=1).keys.tolist()
        return found

    def candidates(self, unit_query: np.ndarray, count: int) -> np.ndarray:
        """Slots of at least ``count`` rows near ``unit_query`` (when the graph has that many)."""
        found = self.nodes_near(unit_query, count)
        return np.asarray([slot for key in found for slot in self.members.get(key, ())], dtype=np.int64)


def ann_choice(value: Any, name: str) -> bool | None:
    """The ``ann`` option: ``true``/``false`` as :func:`flag` reads them, or ``auto`` (None)."""
    from kioko_core.store.driver import flag

    if isinstance(value, str) and value.strip().lower() == "auto":
        return None
    return flag(value, name)


def settings_for(ann: bool | None, exact_below: int) -> AnnSettings | None:
    """The settings a store opened with ``?ann=`` and ``?exact_below=`` uses; None for exact knn.

    ``ann`` None (auto) uses a graph when usearch is installed; True insists on it.
    """
    if ann is False or (ann is None and not usearch_available()):
        return None
    if ann:  # asked for by name: a missing or broken install is said now, not at the first large scope
        require_usearch()
    return AnnSettings(exact_below=exact_below)
