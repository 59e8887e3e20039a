"""postgresql://'s df per term (schema 2): a table changed in the same transaction as the postings, equal
to counting them, free of terms no record holds any more, and the upgrade of schema 1 tables, which
counted the postings at every lookup; and the upgrade of schema 2 tables, which had no per-scope
generation (schema 3). On the session's real server, unsplit and partitioned by user."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np
import pytest
from term_count_support import TERMS
from term_count_support import write_many as shared_writes

import kioko
from contract_tests.support import make_record, new_scope
from kioko_core.store import ConflictError, Delete, Record, Scope, Upsert

psycopg = pytest.importorskip("psycopg", reason="the postgres extra is not installed")
SCHEMA_VERSION = pytest.importorskip("kioko_backends.postgresql").SCHEMA_VERSION

LAYOUTS = {"plain": {}, "partitioned": {"partitions": 3}}


@pytest.fixture
def database(postgresql_store_url: str, postgres_service: object) -> Iterator[str]:
    import services

    yield services.postgres_database(postgres_service, "kioko_term_df")  # type: ignore[arg-type]


def open_store(database: str, table: str, **query: object) -> kioko.Store:
    extra = "&".join(f"{k}={v}" for k, v in {"table": table, "dim": 8, **query}.items())
    return kioko.open_store(database + ("&" if "?" in database else "?") + extra)


def counted(database: str, table: str) -> dict[tuple[str, str, str], int]:
    """df per (user, agent, term) by counting the postings, as schema 1 did at every lookup."""
    with psycopg.connect(database) as conn:
        rows = conn.execute(f"SELECT user_id, agent_id, term, count(*) FROM {table}_postings GROUP BY 1, 2, 3")
        return {(u, a, t): n for u, a, t, n in rows}


def kept(database: str, table: str) -> dict[tuple[str, str, str], int]:
    """Every df row (a row of df 0 is a forgotten term that lingers, and would show here)."""
    with psycopg.connect(database) as conn:
        rows = conn.execute(f"SELECT user_id, agent_id, term, df FROM {table}_term_df")
        return {(u, a, t): n for u, a, t, n in rows}


def write_many(store: kioko.Store, scopes: list[Scope], seed: int) -> list[Record]:
    """The shared writes, then one batch that deletes an id and writes it again in the other scope."""
    records = shared_writes(store, scopes, seed)
    other = records[51].model_copy(
        update={"user_id": scopes[0].user_id if records[51].scope == scopes[1] else scopes[1].user_id}
    )
    store.update_many([Delete(id=records[51].id, scope=records[51].scope), Upsert(record=other)])
    return records


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_df_is_the_postings_count_through_inserts_rewrites_and_deletes(database: str, layout: str) -> None:
    table = f"df_{layout}"
    with open_store(database, table, **LAYOUTS[layout]) as store:
        scopes = [new_scope(), new_scope()]
        write_many(store, scopes, seed=1)
        truth = counted(database, table)
        assert truth
        assert kept(database, table) == truth
        for scope in scopes:
            asked = [*TERMS, "t:nothing"]
            assert store.postings(scope, asked, 0).df == {
                term: truth.get((scope.user_id, scope.agent_id or "", term), 0) for term in asked
            }


def test_a_forgotten_scope_leaves_no_df_rows(database: str) -> None:
    """Deleting every record of a user removes its terms from the df table too: the words of forgotten
    memories (names, places) must not stay behind in the database."""
    with open_store(database, "df_forget") as store:
        scope = new_scope()
        written = [
            r for r in store.update_many([Upsert(record=make_record(scope, terms=TERMS[:4])) for _ in range(5)]) if r
        ]
        assert {t for (u, _, t) in kept(database, "df_forget") if u == scope.user_id} == set(TERMS[:4])
        store.update_many([Delete(id=r.id, scope=scope) for r in written])
        assert not [key for key in kept(database, "df_forget") if key[0] == scope.user_id]
        assert store.postings(scope, TERMS, 5).df == {term: 0 for term in TERMS}


def test_writers_sharing_terms_keep_exact_counts(database: str) -> None:
    """Four threads write and delete records with overlapping terms in one scope at once: the row locks
    on shared df rows are taken in one order, so nobody deadlocks for good, and no count drifts."""
    with open_store(database, "df_race", pool_size=4) as store:
        scope = new_scope()
        errors: list[BaseException] = []

        def work(seed: int) -> None:
            rng = np.random.default_rng(seed)
            try:
                for _ in range(15):
                    picked = sorted(rng.choice(TERMS, size=3, replace=False).tolist())
                    batch = [make_record(scope, terms=picked[: 1 + j]) for j in range(3)]
                    written = [r for r in store.update_many([Upsert(record=r) for r in batch]) if r]
                    store.update_many([Delete(id=written[0].id, scope=scope)])
                    renamed = written[1].model_copy(update={"terms": sorted(set(TERMS) - set(picked))[:2]})
                    try:
                        store.update_many([Upsert(record=renamed, expected_version=written[1].version)])
                    except ConflictError:  # lost every retry to the others: nothing of it was applied
                        pass
            except BaseException as error:  # noqa: BLE001 - reported by the main thread
                errors.append(error)

        threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors
        truth = counted(database, "df_race")
        assert kept(database, "df_race") == truth
        assert store.postings(scope, TERMS, 0).df == {term: truth.get((scope.user_id, "", term), 0) for term in TERMS}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_schema_1_tables_are_upgraded_when_opened(database: str, layout: str) -> None:
    """Tables as schema 1 left them (no df table): opening counts their postings once, and from then on
    every write keeps the counts."""
    table = f"df_old_{layout}"
    with open_store(database, table, **LAYOUTS[layout]) as store:
        scopes = [new_scope(), new_scope()]
        records = write_many(store, scopes, seed=2)
    with psycopg.connect(database) as conn:  # back to schema 1
        conn.execute(f"DROP TABLE {table}_term_df")
        conn.execute(f"UPDATE {table}_meta SET value = '1' WHERE key = 'schema_version'")
    with open_store(database, table, **LAYOUTS[layout]) as reopened:
        with psycopg.connect(database) as conn:
            version = conn.execute(f"SELECT value FROM {table}_meta WHERE key = 'schema_version'").fetchone()
        assert version == (str(SCHEMA_VERSION),)
        assert counted(database, table)
        assert kept(database, table) == counted(database, table)
        reopened.update_many([Delete(id=r.id, scope=r.scope) for r in records[:5]])
        reopened.update_many([Upsert(record=make_record(scopes[0], terms=TERMS[:3]))])
        assert kept(database, table) == counted(database, table)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_schema_2_tables_gain_a_generation_per_scope(database: str, layout: str) -> None:
    """Tables as schema 2 left them (no generation column, no change log): opening adds the column at 0 for
    every scope and the log empty, in the tables' layout; from then on every committed batch advances the
    scopes it touches by one and logs its ids, seen by another handle."""
    table = f"gen_old_{layout}"
    with open_store(database, table, **LAYOUTS[layout]) as store:
        scopes = [new_scope(), new_scope()]
        write_many(store, scopes, seed=3)
    with psycopg.connect(database) as conn:  # back to schema 2
        conn.execute(f"ALTER TABLE {table}_scopes DROP COLUMN generation")
        conn.execute(f"DROP TABLE {table}_changes")
        conn.execute(f"UPDATE {table}_meta SET value = '2' WHERE key = 'schema_version'")
    # opened without the layout: the change log is made like the tables it joins (partitioned or not)
    with open_store(database, table) as reopened, open_store(database, table) as other:
        with psycopg.connect(database) as conn:
            version = conn.execute(f"SELECT value FROM {table}_meta WHERE key = 'schema_version'").fetchone()
        assert version == (str(SCHEMA_VERSION),)
        assert [reopened.generation(s) for s in scopes] == [0, 0]  # type: ignore[attr-defined]
        written = make_record(scopes[0], terms=TERMS[:2])
        reopened.update_many([Upsert(record=written)])
        assert [other.generation(s) for s in scopes] == [1, 0]  # type: ignore[attr-defined]
        assert kept(database, table) == counted(database, table)
        answer = other.changes_since(scopes[0], 0)  # type: ignore[attr-defined]
        assert answer is not None
        assert (answer.generation, answer.ids) == (1, {written.id})
        with psycopg.connect(database) as conn:
            kind = conn.execute("SELECT relkind FROM pg_class WHERE relname = %s", [f"{table}_changes"]).fetchone()
        assert kind == (("p",) if "partitions" in LAYOUTS[layout] else ("r",))
