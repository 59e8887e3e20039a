"""sqlite://'s update of a record that keeps its scope, kind and session: the row is rewritten in place
(its index entries and postings untouched), and everything it changed reads back; any other update
still moves the record's index entries, so filtered reads follow it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import kioko
from contract_tests.support import make_record, new_scope
from kioko_backends.sqlite import SQLiteStore
from kioko_core.store import Filter, Record, Upsert


def open_sqlite(path: Path) -> SQLiteStore:
    store = kioko.open_store(f"sqlite:///{path}")
    assert isinstance(store, SQLiteStore)
    return store


def statements_of(store: SQLiteStore, record: Record) -> list[str]:
    """The SQL (trigger bodies included) one update of ``record`` runs, as SQLite traces it."""
    seen: list[str] = []
    connection = store._connection()  # this thread's connection: the one the write below uses
    connection.set_trace_callback(seen.append)
    try:
        store.update_many([Upsert(record=record, expected_version=record.version)])
    finally:
        connection.set_trace_callback(None)
    return seen


def test_an_update_keeping_scope_kind_and_session_rewrites_only_its_row(tmp_path: Path) -> None:
    store = open_sqlite(tmp_path / "rewrite.db")
    scope = new_scope()
    first = store.update_many([Upsert(record=make_record(scope, terms=["t:pump", "t:valve"], session_id="s1"))])[0]
    assert first is not None
    vector = np.ones(store.dim, dtype=np.float32)
    changed = first.model_copy(
        update={
            "content": "the pump was replaced",
            "metadata": {"links": [{"id": "x", "w": 0.5}], "note": "ünïcode"},
            "embedding": vector,
            "created_at": first.created_at,  # same time, same terms: no posting changes
            "updated_at": first.updated_at + 10.0,
        }
    )
    traced = statements_of(store, changed)
    assert any(s.startswith("UPDATE kioko_records SET content") for s in traced), traced
    assert not any("INSERT INTO kioko_records" in s for s in traced), traced
    assert not any("kioko_postings" in s or "kioko_term_df" in s for s in traced), traced

    stored = store.get(scope, [first.id])[0]
    assert stored is not None
    assert (stored.content, stored.metadata, stored.terms) == (changed.content, changed.metadata, first.terms)
    assert stored.updated_at == changed.updated_at
    assert stored.version == first.version + 1
    assert stored.embedding is not None
    assert np.array_equal(stored.embedding, vector)
    # the untouched index entries still find it, and the postings still hold both terms
    assert [r.id for r in store.scan(scope, Filter(kinds=frozenset({first.kind}), session_id="s1"))] == [first.id]
    assert store.postings(scope, ["t:pump", "t:valve"], 10).ids == {"t:pump": [first.id], "t:valve": [first.id]}
    assert store.knn(scope, vector, 1)[0].id == first.id
    store.close()


def test_an_update_changing_kind_or_session_moves_its_index_entries(tmp_path: Path) -> None:
    store = open_sqlite(tmp_path / "moves.db")
    scope = new_scope()
    record = store.update_many([Upsert(record=make_record(scope, terms=["t:fan"], session_id="s1"))])[0]
    assert record is not None
    old_kind = record.kind
    new_kind = "decision" if old_kind != "decision" else "factual"

    moved = store.update_many(
        [Upsert(record=record.model_copy(update={"kind": new_kind}), expected_version=record.version)]
    )[0]
    assert moved is not None
    assert [r.id for r in store.scan(scope, Filter(kinds=frozenset({new_kind})))] == [record.id]
    assert list(store.scan(scope, Filter(kinds=frozenset({old_kind})))) == []

    again = store.update_many(
        [Upsert(record=moved.model_copy(update={"session_id": "s2"}), expected_version=moved.version)]
    )[0]
    assert again is not None
    assert [r.id for r in store.scan(scope, Filter(session_id="s2"))] == [record.id]
    assert list(store.scan(scope, Filter(session_id="s1"))) == []
    # a moved record keeps its postings (same terms, same time)
    assert store.postings(scope, ["t:fan"], 10).ids == {"t:fan": [record.id]}
    store.close()
