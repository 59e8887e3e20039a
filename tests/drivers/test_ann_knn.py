"""Approximate knn on memory:// and sqlite://: the HNSW graph path, forced on small scopes.

The contract matrix opens both stores with their defaults, where every scope it builds is below
``exact_below`` and knn stays exact. Here ``?exact_below=2`` sends nearly every knn through the graph,
so the whole contract (selective filters, ties, isolation, the state machine against the reference)
is checked on the approximate path too; the other tests check that the graph is really used and what
its recall is on a scope of a few thousand vectors.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import kioko
from contract_tests import StoreContractSuite
from contract_tests.support import DIM, make_record, new_scope, vectors
from kioko_backends._ann import HnswGraph
from kioko_backends._vectors import _cosines, nearest
from kioko_backends.memory import MemoryStore
from kioko_backends.sqlite import SQLiteStore
from kioko_core.store import Delete, Filter, InvalidRecordError, MissingExtraError, Record, Scope, Upsert

pytest.importorskip("usearch", reason="approximate knn needs usearch (the ann extra)")


@pytest.fixture(scope="module", params=["memory", "sqlite"])
def graph_store_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    if request.param == "memory":
        return "memory://?exact_below=2"
    return f"sqlite:///{tmp_path_factory.mktemp('ann') / 'graph.db'}?exact_below=2"


class TestContractThroughTheGraph(StoreContractSuite):
    """Every contract test, with knn through the HNSW graph from two vectors on."""

    @pytest.fixture
    def store_url(self, graph_store_url: str) -> str:
        return graph_store_url


def clustered(count: int, seed: int) -> np.ndarray:
    """Vectors in 30 clusters, like embeddings of texts on a few topics."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(30, DIM)).astype(np.float32)
    return centres[rng.integers(0, 30, count)] + 0.5 * rng.normal(size=(count, DIM)).astype(np.float32)


def test_a_large_scope_is_searched_through_the_graph_with_high_recall() -> None:
    """3,000 vectors over exact_below=1,000: a graph is built, and its answers hold 95% of the true top 10."""
    store = kioko.open_store("memory://?exact_below=1000", dim=DIM)
    assert store.capabilities.approximate_knn
    scope = new_scope()
    matrix = clustered(3000, seed=1)
    records = [make_record(scope, embedding=v) for v in matrix]
    store.update_many([Upsert(record=r) for r in records])
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    found = []
    for query in clustered(40, seed=2):
        truth = {records[j].id for j in np.argsort(-(unit @ query))[:10]}
        found.append(len(truth & {n.id for n in store.knn(scope, query, 10)}) / 10)
    assert isinstance(store, MemoryStore)
    assert store._vectors[scope].graph is not None
    assert len(store._vectors[scope].graph) == 3000
    assert float(np.mean(found)) >= 0.95, f"recall@10 {np.mean(found):.3f}"


def test_copies_of_one_vector_share_a_node_and_all_come_back() -> None:
    """1,500 records that are 60 texts copied 25 times: the graph has 60 nodes, and k=25 finds every copy."""
    store = kioko.open_store("memory://?exact_below=100", dim=DIM)
    scope = new_scope()
    texts = clustered(60, seed=8)
    records = [make_record(scope, embedding=texts[j % 60]) for j in range(1500)]
    store.update_many([Upsert(record=r) for r in records])
    for j in (0, 17, 59):
        copies = {r.id for r in records[j::60]}
        assert {n.id for n in store.knn(scope, texts[j], 25)} == copies
    assert isinstance(store, MemoryStore)
    graph = store._vectors[scope].graph
    assert graph is not None
    assert len(graph.members) == 60
    assert len(graph) == 1500
    store.update_many([Delete(id=r.id, scope=scope) for r in records[:60]])  # one copy of each text goes
    assert len(graph.members) == 60
    assert len(graph) == 1440
    assert {n.id for n in store.knn(scope, texts[5], 24)} == {r.id for r in records[65::60]}


def test_a_selective_filter_on_a_large_scope_falls_back_to_exact() -> None:
    """Five matching records among 3,000 that crowd the query: the filter still gets all five."""
    store = kioko.open_store("memory://?exact_below=1000", dim=DIM)
    scope = new_scope()
    query = vectors(1, seed=3)[0]
    crowd = [make_record(scope, kind="common", embedding=query + 0.05 * n) for n in vectors(3000, seed=4)]
    rare = [make_record(scope, kind="rare", embedding=v) for v in vectors(5, seed=5)]
    store.update_many([Upsert(record=r) for r in crowd + rare])
    found = store.knn(scope, query, 5, Filter(kinds=frozenset({"rare"})))
    assert {n.id for n in found} == {r.id for r in rare}


def test_ann_false_keeps_knn_exact() -> None:
    """?ann=false: an exact store at every size, declared so."""
    store = kioko.open_store("memory://?ann=false&exact_below=2", dim=DIM)
    assert not store.capabilities.approximate_knn
    scope = new_scope()
    store.update_many([Upsert(record=make_record(scope, embedding=v)) for v in vectors(50, seed=6)])
    store.knn(scope, vectors(1, seed=7)[0], 3)
    assert isinstance(store, MemoryStore)
    assert store._vectors[scope].graph is None


@pytest.mark.parametrize("option", ["ann=maybe", "exact_below=0", "exact_below=-3"])
def test_bad_ann_options_are_refused(option: str) -> None:
    with pytest.raises(InvalidRecordError):
        kioko.open_store(f"memory://?{option}")


def test_missing_extra_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """?ann=true without usearch says which extra to install; auto quietly stays exact."""
    import sys

    monkeypatch.setitem(sys.modules, "usearch.index", None)  # makes `import usearch.index` fail
    with pytest.raises(MissingExtraError, match="kioko\\[ann\\]"):
        kioko.open_store("memory://?ann=true")
    assert not kioko.open_store("memory://").capabilities.approximate_knn


# --------------------------------------------------------------------------- sqlite: the graph beside the file


def _sqlite(path: Path, **options: object) -> SQLiteStore:
    store = kioko.open_store(f"sqlite:///{path}", dim=DIM, exact_below=100, **options)
    assert isinstance(store, SQLiteStore)
    return store


def _fill(store: SQLiteStore, count: int, seed: int) -> tuple[Scope, list[Record]]:
    scope = new_scope()
    records = [make_record(scope, embedding=v) for v in clustered(count, seed)]
    store.update_many([Upsert(record=r) for r in records])
    return scope, records


def _graph_of(store: SQLiteStore, scope: Scope) -> object:
    entry = store._vectors.entries[scope]
    assert entry.graph is not None, "the scope was searched exactly, not through a graph"
    return entry.graph


def test_the_graph_is_saved_on_close_and_reused_on_reopen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Close writes <file>.ann/; a reopened store answers the same without building a graph again."""
    store = _sqlite(tmp_path / "k.db")
    scope, _ = _fill(store, 400, seed=11)
    query = clustered(1, seed=12)[0]
    before = [n.id for n in store.knn(scope, query, 10)]
    _graph_of(store, scope)
    store.close()
    assert list((tmp_path / "k.db.ann").glob("*.usearch")), "no graph file was saved beside the database"

    def no_rebuild(*_: object) -> None:
        raise AssertionError("the saved graph was not used: a new one was built")

    monkeypatch.setattr(HnswGraph, "build", no_rebuild)
    reopened = _sqlite(tmp_path / "k.db")
    assert [n.id for n in reopened.knn(scope, query, 10)] == before
    _graph_of(reopened, scope)
    reopened.close()


def test_a_stale_or_damaged_graph_file_is_rebuilt_from_the_table(tmp_path: Path) -> None:
    """A write the saved graph never saw (made with ann off), then a damaged file: knn still sees the table."""
    store = _sqlite(tmp_path / "k.db")
    scope, _ = _fill(store, 400, seed=13)
    query = clustered(1, seed=14)[0]
    store.knn(scope, query, 5)
    store.close()
    exact = _sqlite(tmp_path / "k.db", ann=False)
    newcomer = make_record(scope, embedding=query)
    exact.update_many([Upsert(record=newcomer)])
    exact.close()
    reopened = _sqlite(tmp_path / "k.db")
    assert reopened.knn(scope, query, 1)[0].id == newcomer.id
    reopened.close()
    for graph_file in (tmp_path / "k.db.ann").glob("*.usearch"):
        graph_file.write_bytes(b"not a graph")
    damaged = _sqlite(tmp_path / "k.db")
    assert damaged.knn(scope, query, 1)[0].id == newcomer.id
    _graph_of(damaged, scope)
    damaged.close()


def test_another_handles_writes_are_seen_and_the_graph_is_patched(tmp_path: Path) -> None:
    """Two store objects on one file (as two processes would be): B's upsert, move and delete reach A's graph."""
    first, second = _sqlite(tmp_path / "k.db"), _sqlite(tmp_path / "k.db")
    scope, records = _fill(first, 400, seed=15)
    query = clustered(1, seed=16)[0]
    first.knn(scope, query, 5)
    graph = _graph_of(first, scope)
    newcomer = make_record(scope, embedding=query)
    second.update_many([Upsert(record=newcomer)])
    assert first.knn(scope, query, 1)[0].id == newcomer.id
    moved = records[0].model_copy(update={"embedding": query * 3})
    second.update_many([Upsert(record=newcomer.model_copy(update={"embedding": -query})), Upsert(record=moved)])
    assert first.knn(scope, query, 1)[0].id == moved.id
    second.update_many([Delete(id=moved.id, scope=scope)])
    assert moved.id not in {n.id for n in first.knn(scope, query, 20)}
    assert _graph_of(first, scope) is graph, "the graph was rebuilt instead of patched"
    first.close()
    second.close()


class CountedList(list[int]):
    """A node's slots, counting how many a search goes through."""

    read = 0

    def __iter__(self) -> Iterator[int]:
        for slot in super().__iter__():
            self.read += 1
            yield slot


def test_an_unfiltered_search_takes_the_copies_of_the_best_nodes_only() -> None:
    """A text copied 3,000 times among 2,000 others. Its node is among a nearby query's candidates, but its
    copies only come back when they rank: the answer is exactly what re-scoring every copy of every candidate
    gives (same rows, same scores), without handing over the 3,000 copies to be sorted each time."""
    store = kioko.open_store("memory://?exact_below=1000", dim=DIM)
    scope = new_scope()
    others = clustered(2000, seed=11)
    popular = others[0] + 0.05 * np.random.default_rng(13).normal(size=DIM).astype(np.float32)
    records = [make_record(scope, embedding=v) for v in others] + [
        make_record(scope, embedding=popular) for _ in range(3000)
    ]
    store.update_many([Upsert(record=r) for r in records])
    store.knn(scope, others[1], 10)  # builds the graph
    assert isinstance(store, MemoryStore)
    matrix = store._vectors[scope]
    assert matrix.graph is not None
    popular_node = matrix.graph.node_of[matrix.slots[records[2000].id]]
    copies = matrix.graph.members[popular_node] = CountedList(matrix.graph.members[popular_node])
    assert len(copies) == 3000
    passed_over = 0
    for query in [others[0], popular, *others[1:2000:7]]:
        copies.read = 0
        found = matrix.search(query, 10)
        read = copies.read
        unit = (query / np.linalg.norm(query)).astype(np.float32)
        slots = matrix.graph.candidates(unit, 100)
        every_copy = nearest([matrix.ids[j] for j in slots.tolist()], _cosines(matrix.matrix[slots], query), 10)
        assert sorted((n.id, n.score) for n in found) == sorted((n.id, n.score) for n in every_copy)
        if len(slots) > 3000 and len(found) < 100:
            passed_over += 1  # the popular node was a candidate, but its copies did not rank ...
            assert read <= 1  # ... and were not gone through: one stood for them all
    assert passed_over >= 3
    top = store.knn(scope, popular, 10)  # the copies tie: the ten smallest ids, as Store.knn's tie rule says
    assert [n.id for n in top] == sorted(r.id for r in records[2000:])[:10]
