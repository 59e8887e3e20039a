"""An index cache brought up to date by what changed (ScopeChanges), not started afresh (issue 28).

When another writer (a process, or here a second handle with its own cache) moved a scope's generation,
the cache reads the ids written since its last generation, drops those records and the term entries they
may have touched, and keeps the rest. These tests check on SQLite and PostgreSQL that what it answers
afterwards is exactly what a cache built from nothing answers, through random writes of every kind, and
that a removal (delete, move to another user) still starts the scope afresh.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import kioko
from contract_tests.support import make_record
from kioko_core.linking.index import IndexCache
from kioko_core.store import Delete, Record, Scope, ScopeChanges, Store, Upsert

TERMS = [f"t:{word}" for word in ("pump", "valve", "seal", "line", "encoder", "cable", "drive", "guard")]


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'changes.db'}"
    server = request.getfixturevalue("postgresql_store_url")
    return f"{server}{'&' if '?' in server else '?'}table=changes_{uuid.uuid4().hex[:8]}&dim=8"


@pytest.fixture
def handles(url: str) -> Iterator[tuple[Store, Store]]:
    """Two handles on one store: the cache's, and the other writer's (its own connections)."""
    dim = {"dim": 8} if url.startswith("sqlite") else {}
    with kioko.open_store(url, **dim) as mine, kioko.open_store(url, **dim) as theirs:
        assert isinstance(mine, ScopeChanges)
        yield mine, theirs


def same_as_fresh(cache: IndexCache, store: Store, scope: Scope, rng: random.Random) -> None:
    """Every term at a random limit: the cache's answer equals a new cache's; and the records it holds are
    the stored ones."""
    limit = rng.choice([0, 1, 3, 50])
    terms = rng.sample(TERMS, rng.randint(1, len(TERMS)))
    assert cache.lookup(scope, terms, limit) == IndexCache(store).lookup(scope, terms, limit)
    held = cache._scopes[scope].records
    for record_id, record in held.items():
        [stored] = store.get(scope, [record_id])
        assert stored is not None
        assert stored.version == record.version
        assert stored.terms == record.terms


def test_a_cache_catches_up_by_what_another_writer_changed(handles: tuple[Store, Store]) -> None:
    mine, theirs = handles
    scope = Scope("changes-" + uuid.uuid4().hex[:8], None)
    rng = random.Random(28)
    cache = IndexCache(mine)
    records: list[Record] = []
    for _ in range(6):
        [stored] = theirs.update_many([Upsert(record=make_record(scope, terms=rng.sample(TERMS, 3)))])
        assert stored is not None
        records.append(stored)
    cache.lookup(scope, TERMS, 3)
    cache.records(scope, [r.id for r in records])  # warm: statistics and records
    for step in range(40):
        action = rng.random()
        if action < 0.45:  # a new record
            [stored] = theirs.update_many([Upsert(record=make_record(scope, terms=rng.sample(TERMS, 3)))])
            assert stored is not None
            records.append(stored)
        elif action < 0.9:  # terms or metadata (a neighbour's new link) of one that exists
            position = rng.randrange(len(records))
            current = records[position]
            change = {"terms": rng.sample(TERMS, 2)} if action < 0.7 else {"metadata": {"links": [step]}}
            [stored] = theirs.update_many(
                [Upsert(record=current.model_copy(update=change), expected_version=current.version)]
            )
            assert stored is not None
            records[position] = stored
        else:  # a second batch in between, of two records
            written = theirs.update_many(
                [Upsert(record=make_record(scope, terms=rng.sample(TERMS, 2))) for _ in range(2)]
            )
            records += [r for r in written if r is not None]
        same_as_fresh(cache, mine, scope, rng)
        cache.records(scope, [r.id for r in rng.sample(records, 3)])
    assert cache.refreshes == {"changes": 40, "rebuilds": 0}


def test_a_removal_starts_the_scope_afresh(handles: tuple[Store, Store]) -> None:
    mine, theirs = handles
    scope, elsewhere = (Scope(f"changes-{uuid.uuid4().hex[:8]}", None) for _ in range(2))
    rng = random.Random(7)
    written = [r for r in theirs.update_many([Upsert(record=make_record(scope, terms=TERMS[:3])) for _ in range(4)])]
    cache = IndexCache(mine)
    cache.lookup(scope, TERMS, 10)
    cache.records(scope, [r.id for r in written if r is not None])
    gone = written[0]
    assert gone is not None
    theirs.update_many([Delete(id=gone.id, scope=scope)])
    same_as_fresh(cache, mine, scope, rng)
    assert gone.id not in cache._scopes[scope].records
    moved = written[1]
    assert moved is not None
    theirs.update_many(
        [Delete(id=moved.id, scope=scope), Upsert(record=moved.model_copy(update={"user_id": elsewhere.user_id}))]
    )
    same_as_fresh(cache, mine, scope, rng)
    assert cache.refreshes == {"changes": 0, "rebuilds": 2}


def test_the_log_keeps_no_id_of_a_deleted_record(
    handles: tuple[Store, Store], url: str, request: pytest.FixtureRequest
) -> None:
    """Forgetting a memory forgets its id in the change log too: its rows go with the record."""
    mine, _ = handles
    scope = Scope("changes-" + uuid.uuid4().hex[:8], None)
    record = make_record(scope, terms=TERMS[:2])
    mine.update_many([Upsert(record=record)])
    mine.update_many([Upsert(record=record.model_copy(update={"metadata": {"n": 1}}), expected_version=1)])
    mine.update_many([Delete(id=record.id, scope=scope)])
    if url.startswith("sqlite"):
        import sqlite3

        with sqlite3.connect(url.removeprefix("sqlite:///")) as raw:
            rows = raw.execute("SELECT id FROM kioko_changes WHERE user_id = ?", (scope.user_id,)).fetchall()
    else:
        import psycopg

        table = url.split("table=")[1].split("&")[0]
        with psycopg.connect(request.getfixturevalue("postgresql_store_url")) as conn:
            rows = conn.execute(f"SELECT id FROM {table}_changes WHERE user_id = %s", [scope.user_id]).fetchall()
    assert rows == [("",)]  # one removal mark, no id


def test_a_delete_lets_words_found_nowhere_go_from_every_cached_scope() -> None:
    """A linked write asks the shared knowledge base for the new memory's words: found nowhere there, they were
    kept in that scope's cache (df 0) after the memory was forgotten (the forget drill saw it on PostgreSQL)."""
    store = kioko.open_store("memory://")
    mine, shared = Scope(user_id="u"), Scope(user_id="@shared")
    store.update_many(
        [
            Upsert(record=make_record(mine, "r1", terms=["t:quenword"])),
            Upsert(record=make_record(shared, "s1", terms=["t:other"])),
        ]
    )
    cache = IndexCache(store)
    assert cache.lookup(mine, ["t:quenword"])[1] == {"t:quenword": 1}
    assert cache.lookup(shared, ["t:quenword", "t:other"])[1] == {"t:quenword": 0, "t:other": 1}
    store.update_many([Delete(scope=mine, id="r1")])
    cache.record_write(mine, "r1", ["t:quenword"], [])
    assert not any("quenword" in term for stats in cache._scopes.values() for term in stats.terms)
    assert cache.lookup(shared, ["t:other"])[1] == {"t:other": 1}  # what the shared scope holds stays right
