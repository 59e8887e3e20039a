"""PostgreSQL tables hash-partitioned by user (``?partitions=N``), on the session's real server.

The contract matrix runs the whole suite on a partitioned store (``postgresql-partitioned``); these
tests check what it cannot see: that the tables really are partitioned and each user's rows sit in
one partition, that the layout is fixed when the tables are made, that an id stays unique across
users (the ``{p}_ids`` table), and that a record id can move from one user to another inside a batch.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import kioko
from kioko_core.errors import ExperimentalWarning
from kioko_core.store import Delete, IdTaken, InvalidRecordError, Record, Scope, StoreError, Upsert

psycopg = pytest.importorskip("psycopg", reason="the postgres extra is not installed")


@pytest.fixture
def database(postgresql_store_url: str, postgres_service: object) -> Iterator[str]:
    import services

    yield services.postgres_database(postgres_service, "kioko_parts")  # type: ignore[arg-type]


def with_query(url: str, **query: object) -> str:
    extra = "&".join(f"{k}={v}" for k, v in query.items())
    return url + ("&" if "?" in url else "?") + extra


def record(user: str, i: int, record_id: str | None = None) -> Record:
    rng = np.random.default_rng(i)
    return Record(
        id=record_id or f"{user}-{i}",
        user_id=user,
        kind="note",
        content=f"note {i} of {user}",
        terms=["shared", f"t{i}"],
        embedding=rng.standard_normal(8).astype(np.float32),
        created_at=1_700_000_000.0 + i,
        updated_at=1_700_000_000.0 + i,
    )


def test_tables_are_partitioned_by_user(database: str) -> None:
    with kioko.open_store(with_query(database, partitions=4, table="parts"), dim=8) as store:
        for user in ("ana", "bo", "cy", "di", "ed"):
            store.update_many([Upsert(record=record(user, i)) for i in range(5)])
        assert store.knn(Scope("bo"), record("bo", 2).embedding, 1)[0].id == "bo-2"  # type: ignore[arg-type]
    with psycopg.connect(database) as conn:
        strategies = dict(
            conn.execute(
                "SELECT c.relname, p.partstrat FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid"
            ).fetchall()
        )
        assert strategies == {
            "parts_records": "h",
            "parts_postings": "h",
            "parts_scopes": "h",
            "parts_term_df": "h",
            "parts_changes": "h",
            "parts_links": "h",
        }
        partitions = conn.execute(
            "SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhparent WHERE c.relname = 'parts_records'"
        ).fetchone()
        assert partitions == (4,)
        # every user's records sit in one partition, and the users are spread over more than one
        placed = conn.execute("SELECT user_id, count(DISTINCT tableoid) FROM parts_records GROUP BY user_id").fetchall()
        assert {count for _, count in placed} == {1}
        spread = conn.execute("SELECT count(DISTINCT tableoid) FROM parts_records").fetchone()
        assert spread is not None
        assert spread[0] > 1
        # the HNSW index reaches every partition
        hnsw = conn.execute(
            "SELECT count(*) FROM pg_indexes WHERE tablename LIKE 'parts_records_p%' AND indexdef LIKE '%hnsw%'"
        ).fetchone()
        assert hnsw == (4,)


def test_the_layout_is_chosen_when_the_tables_are_made(database: str) -> None:
    with kioko.open_store(with_query(database, partitions=4, table="fixed"), dim=8) as store:
        assert store.partitions == 4  # type: ignore[attr-defined]
    with kioko.open_store(with_query(database, table="fixed"), dim=8) as reopened:
        assert reopened.partitions == 4  # type: ignore[attr-defined]
    with pytest.raises(InvalidRecordError, match="hash-partitioned by user into 4"):
        kioko.open_store(with_query(database, partitions=8, table="fixed"), dim=8)
    with kioko.open_store(with_query(database, table="plain"), dim=8):
        pass
    with pytest.raises(InvalidRecordError, match="without partitions"):
        kioko.open_store(with_query(database, partitions=4, table="plain"), dim=8)
    for bad in (1, 0, 5000):
        with pytest.raises(InvalidRecordError, match="partitions"):
            kioko.open_store(with_query(database, partitions=bad, table="bad"), dim=8)


def test_an_id_stays_unique_across_users_and_can_change_user(database: str) -> None:
    with kioko.open_store(with_query(database, partitions=4, table="ids"), dim=8) as store:
        store.update_many([Upsert(record=record("ana", 1, "shared-id"))])
        with pytest.raises(IdTaken):
            store.update_many([Upsert(record=record("bo", 1, "shared-id"), expected_version=0)])
        with pytest.raises(IdTaken):
            store.update_many([Upsert(record=record("bo", 1, "shared-id"))])
        # a delete of another user's id changes nothing
        assert store.update_many([Delete(id="shared-id", scope=Scope("bo"))]) == [None]
        assert store.get(Scope("ana"), ["shared-id"])[0] is not None
        # one batch deletes it for ana and writes it for bo: the row moves partition
        moved = store.update_many(
            [Delete(id="shared-id", scope=Scope("ana")), Upsert(record=record("bo", 7, "shared-id"))]
        )
        assert moved[1] is not None
        assert moved[1].user_id == "bo"
        assert store.get(Scope("ana"), ["shared-id"]) == [None]
        assert store.get(Scope("bo"), ["shared-id"])[0] == moved[1]
        assert store.postings(Scope("ana"), ["shared"], 5).df == {"shared": 0}
        assert store.postings(Scope("bo"), ["shared"], 5).ids == {"shared": ["shared-id"]}
        # and once deleted, the id is free for anyone
        store.update_many([Delete(id="shared-id", scope=Scope("bo"))])
        store.update_many([Upsert(record=record("cy", 1, "shared-id"), expected_version=0)])
    with psycopg.connect(database) as conn:
        assert conn.execute("SELECT id, user_id FROM ids_ids").fetchall() == [("shared-id", "cy")]


def test_a_read_replica_serves_knn_and_postings(database: str) -> None:
    """``?read_host=`` sends knn and postings to the replica's pool (here the same server under another
    application_name, as a physical replica would answer); get, scan and writes stay on the primary."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    params = conninfo_to_dict(make_conninfo(database))
    host = str(params.get("host") or "localhost")
    read_host = host if host.startswith("/") else f"{host}:{params.get('port') or 5432}"
    with kioko.open_store(with_query(database, table="replica"), dim=8, read_host=read_host) as store:
        store.update_many([Upsert(record=record("ana", i)) for i in range(5)])
        assert store.get(Scope("ana"), ["ana-1"])[0] is not None
        with psycopg.connect(database) as conn:
            before = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'kioko (reads)'"
            ).fetchone()
        assert before == (0,)
        assert store.knn(Scope("ana"), record("ana", 3).embedding, 1)[0].id == "ana-3"  # type: ignore[arg-type]
        assert store.postings(Scope("ana"), ["t2"], 5).ids == {"t2": ["ana-2"]}
        with psycopg.connect(database) as conn:
            after = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'kioko (reads)'"
            ).fetchone()
        assert after is not None
        assert after[0] >= 1
    with pytest.raises(InvalidRecordError, match="read_host"):
        kioko.open_store(with_query(database, table="replica"), dim=8, read_host=":5432")


def test_distribute_citus_is_checked_before_anything_is_made(database: str) -> None:
    """Without the citus extension (the embedded server has none) distribute=citus is refused, and
    nothing is created; a bad value or both layouts at once are refused before connecting."""
    with pytest.warns(ExperimentalWarning, match="experimental"), pytest.raises(StoreError, match="citus extension"):
        kioko.open_store(with_query(database, table="dist", distribute="citus"), dim=8)
    with psycopg.connect(database) as conn:
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'dist_%'").fetchone() == (0,)
    with pytest.raises(InvalidRecordError, match="distribute must be 'citus'"):
        kioko.open_store(with_query(database, table="dist", distribute="mongo"), dim=8)
    with pytest.raises(InvalidRecordError, match="not both"):
        kioko.open_store(with_query(database, table="dist", distribute="citus", partitions=4), dim=8)
