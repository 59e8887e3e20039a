"""What the contract suite cannot see of ``qdrant+edge://``: its directory, its one process, its HNSW index.

The contract matrix runs the whole suite on an edge store (``qdrant-edge``); these tests cover what is
the driver's own: the layout check and ``dim`` on reopening, the refusal of a second process, the
shared shard inside one process, the options, and knn through a real HNSW index (a low indexing
threshold makes Qdrant build one on a few thousand points) against the exact numpy answer.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import kioko
from kioko_core.store import Delete, Filter, InvalidRecordError, Record, Scope, StoreError, Upsert

pytest.importorskip("qdrant_edge", reason="the qdrant-edge extra is not installed")

PROJECT_ROOT = Path(kioko.__file__).resolve().parent.parent


def url(path: Path, **query: object) -> str:
    options = "&".join(f"{k}={v}" for k, v in query.items())
    return f"qdrant+edge:///{path}" + (f"?{options}" if options else "")


def record(scope: Scope, i: int, vector: np.ndarray, kind: str = "note") -> Record:
    return Record(
        id=f"r{i:05d}",
        user_id=scope.user_id,
        agent_id=scope.agent_id,
        kind=kind,
        content=f"note {i}",
        terms=[f"t{i % 7}"],
        embedding=vector,
        created_at=1_700_000_000.0 + i,
        updated_at=1_700_000_000.0 + i,
    )


def test_reopening_with_another_dim_is_refused(tmp_path: Path) -> None:
    with kioko.open_store(url(tmp_path / "s"), dim=8) as store:
        store.update_many([Upsert(record=record(Scope("u"), 1, np.ones(8, dtype=np.float32)))])
    with pytest.raises(InvalidRecordError, match=r"8-dimensional.*dim=4"):
        kioko.open_store(url(tmp_path / "s"), dim=4)
    with kioko.open_store(url(tmp_path / "s", dim=8)) as again:
        assert again.get(Scope("u"), ["r00001"])[0] is not None


def test_a_directory_kioko_did_not_make_is_refused(tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(StoreError, match="not a Kioko edge store"):
        kioko.open_store(url(tmp_path / "other"), dim=8)
    assert sorted(p.name for p in (tmp_path / "other").iterdir()) == ["notes.txt"]


@pytest.mark.parametrize(
    ("address", "options", "message"),
    [
        ("qdrant+edge://somehost/dir", {}, "names a host"),
        ("qdrant+edge://", {}, "needs a directory"),
        ("qdrant+edge:///{dir}", {"optimize_every": -1}, "optimize_every"),
        ("qdrant+edge:///{dir}", {"indexing_threshold": 0}, "indexing_threshold"),
    ],
)
def test_bad_urls_and_options_are_refused(tmp_path: Path, address: str, options: dict[str, int], message: str) -> None:
    with pytest.raises(InvalidRecordError, match=message):
        kioko.open_store(address.format(dir=tmp_path / "x"), dim=8, **options)


def test_one_directory_is_one_shard_per_process(tmp_path: Path) -> None:
    """Two opens in this process share the shard; another process is told the directory is taken."""
    first = kioko.open_store(url(tmp_path / "s"), dim=8)
    second = kioko.open_store(url(tmp_path / "s"), dim=8)
    try:
        first.update_many([Upsert(record=record(Scope("u"), 1, np.ones(8, dtype=np.float32)))])
        assert second.get(Scope("u"), ["r00001"])[0] is not None
        script = f"""
            import json, kioko
            try:
                kioko.open_store({url(tmp_path / "s")!r}, dim=8)
            except Exception as error:
                print(json.dumps({{"type": type(error).__name__, "message": str(error)}}))
            else:
                print(json.dumps({{"type": None}}))
        """
        result = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(script)],
            capture_output=True,
            text=True,
            cwd=PROJECT_ROOT,
            check=True,
        )
        answer = json.loads(result.stdout.strip().splitlines()[-1])
        assert answer["type"] == "StoreError", answer
        assert "another process" in answer["message"], answer
        first.close()
        assert second.get(Scope("u"), ["r00001"])[0] is not None
    finally:
        first.close()
        second.close()
    with kioko.open_store(url(tmp_path / "s"), dim=8) as reopened:
        assert reopened.get(Scope("u"), ["r00001"])[0] is not None


def test_knn_through_the_hnsw_index_matches_numpy(tmp_path: Path) -> None:
    """After an optimization builds HNSW (threshold 1 KB), knn finds the exact neighbours in a scope,
    under a selective filter, and of a small scope beside a large one."""
    dim, rng = 16, np.random.default_rng(11)
    big, small = Scope("big"), Scope("small")
    vectors = rng.standard_normal((3000, dim)).astype(np.float32)
    records = [record(big, i, vectors[i], kind="rare" if i % 100 == 0 else "note") for i in range(2990)]
    records += [record(small, i, vectors[i]) for i in range(2990, 3000)]
    with kioko.open_store(url(tmp_path / "s", indexing_threshold=1, optimize_every=0), dim=dim) as store:
        for start in range(0, len(records), 500):
            store.update_many([Upsert(record=r) for r in records[start : start + 500]])
        assert store.optimize() is True  # segments were indexed
        assert store.optimize() is False  # and nothing is left to do

        def exact(chosen: list[Record], query: np.ndarray, k: int) -> list[str]:
            matrix = np.stack([r.embedding for r in chosen])
            scores = matrix @ query / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(query))
            return [chosen[i].id for i in np.argsort(-scores)[:k]]

        hits = total = 0
        for query in rng.standard_normal((20, dim)).astype(np.float32):
            found = [n.id for n in store.knn(big, query, 10)]
            hits += len(set(found) & set(exact(records[:2990], query, 10)))
            total += 10
            rare = [r for r in records[:2990] if r.kind == "rare"]
            assert [n.id for n in store.knn(big, query, 5, Filter(kinds=frozenset({"rare"})))] == exact(rare, query, 5)
            assert [n.id for n in store.knn(small, query, 5)] == exact(records[2990:], query, 5)
        assert hits / total >= 0.9, f"HNSW recall {hits / total:.2f}"


def test_writes_past_optimize_every_run_the_optimizer(tmp_path: Path) -> None:
    """With optimize_every=N the N-th point written optimizes the shard: a later optimize() finds nothing to do."""
    rng = np.random.default_rng(3)
    with kioko.open_store(url(tmp_path / "s", indexing_threshold=1, optimize_every=1000), dim=8) as store:
        vectors = rng.standard_normal((1000, 8)).astype(np.float32)
        store.update_many([Upsert(record=record(Scope("u"), i, vectors[i])) for i in range(1000)])
        assert store.optimize() is False
        assert len(store.knn(Scope("u"), vectors[0], 3)) == 3


def test_a_layers_cache_sees_records_written_beside_it_at_its_next_lookup(tmp_path: Path) -> None:
    """The shard's write count (ScopeGenerations): one process alone writes the directory, so every write through
    it, a second layer's or one straight to the store, shows at the next lookup; before, the cache answered from
    what it held until its ttl (10 minutes) ran out."""
    question = "Who calibrated the torque wrench?"
    with kioko.connect(url(tmp_path / "s"), auto_link=False, embedder="offline") as memory:
        memory.add("Ines checked the torque wrench on Monday", user_id="u", memory_type="episodic")
        memory.recall(question, user_id="u", links=0)  # the question's terms are cached now
        before = memory.store.generation(Scope("u"))
        with kioko.connect(url(tmp_path / "s"), auto_link=False, embedder="offline") as beside:
            written = beside.add("Ines calibrated the torque wrench on Friday", user_id="u", memory_type="episodic")
        assert memory.store.generation(Scope("u")) == before + 1
        n, _, ids = memory.index.lookup(Scope("u"), written.terms, 10)
        assert n == 2
        assert all(written.id in ids[term] for term in written.terms)
        assert written.id in [m.record.id for m in memory.recall(question, user_id="u", links=0).memories]


def test_a_forgotten_users_write_count_leaves_the_process(tmp_path: Path) -> None:
    """The counts are keyed by scope, so they name the user: forgetting the user drops theirs (purge), and the
    scope written anew counts on above it, so no cache of the forgotten scope can match it."""
    scope = Scope("forgotten")
    with kioko.connect(url(tmp_path / "s"), auto_link=False, embedder="offline") as memory:
        memory.add("Ines calibrated the torque wrench", user_id="forgotten", memory_type="episodic")
        memory.add("Someone else's note", user_id="kept", memory_type="episodic")
        counted = memory.store.generation(scope)
        memory.forget_user(user_id="forgotten")
        held = memory.store.driver._handle.generations
        assert not [key for key in held if "forgotten" in key]
        assert [key for key in held if "kept" in key]
        assert memory.store.generation(scope) > counted


def test_postings_read_holders_by_point_id_with_the_same_answer(tmp_path: Path) -> None:
    """Postings take a holder's record id and time from the directory's Holders map (kioko_backends/qdrant/edge_holders.py):
    no payload is read for records this process wrote, the map follows updates and deletes, and a process that did
    not write them (a reopened directory), or a map dropped at its bound, reads the payloads and answers the same."""
    scope = Scope("holders")
    live: dict[str, Record] = {}

    def put(store: object, i: int, created: float, terms: list[str]) -> None:
        kept = Record(id=f"h{i:03d}", user_id="holders", kind="note", content=f"note {i}", terms=terms,
                      embedding=np.ones(4, dtype=np.float32), created_at=created, updated_at=created)  # fmt: skip
        version = live[kept.id].version if kept.id in live else 0
        (stored,) = store.update_many([Upsert(record=kept, expected_version=version)])  # type: ignore[attr-defined]
        live[kept.id] = stored

    def expected(term: str, limit: int) -> list[str]:
        holding = sorted((-r.created_at, r.id) for r in live.values() if term in r.terms)
        return [i for _, i in holding[:limit]]

    terms = ["a", "b", "c"]

    def check(store: object) -> None:
        for limit in (1, 3, 7, 100):
            answer = store.postings(scope, terms, limit)  # type: ignore[attr-defined]
            assert answer.ids == {t: expected(t, limit) for t in terms}
            assert answer.df == {t: len(expected(t, 1000)) for t in terms}
            assert answer.n == sum(1 for r in live.values() if r.terms)  # counted once per write to the scope

    path = tmp_path / "holders"
    with kioko.open_store(url(path), dim=4) as store:
        for i in range(30):  # every third at one time: the cuts fall inside runs of equal times
            put(store, i, 1_700_000_000.0 + (i // 3), [t for j, t in enumerate(terms) if i % (j + 2) == 0])
        check(store)
        holders = store._handle.holders
        assert holders.read == 0  # every holder known from this process's writes
        put(store, 4, 1_800_000_000.0, ["a", "c"])  # moved to newest, with other terms
        check(store)
        put(store, 40, 1_800_000_001.0, [])  # a record with no term: n does not count it
        put(store, 41, 1_800_000_002.0, ["z"])  # one with a term not asked: n counts it
        store.update_many([Delete(id="h006", scope=scope)])
        del live["h006"]
        check(store)
        assert holders.read == 0
        holders.bound = 5  # dropped at its bound: read again from the payloads
        put(store, 31, 1_700_000_001.0, ["b"])
        check(store)
        assert holders.read > 0
    with kioko.open_store(url(path), dim=4) as again:  # a new process's view: nothing known
        check(again)
        read = again._handle.holders.read
        assert read == sum(1 for r in live.values() if set(r.terms) & set(terms))  # each holder once
        check(again)
        assert again._handle.holders.read == read
