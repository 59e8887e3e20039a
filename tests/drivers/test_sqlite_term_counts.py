"""sqlite://'s df per term (schemas 2 and 3): a table kept by triggers, equal to counting the postings and
free of terms no record holds any more, and the upgrade of files of schema 1 (which counted the postings
at every lookup) and 2 (which kept rows of df 0: the words of forgotten memories)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from term_count_support import TERMS, write_many

import kioko
from contract_tests.support import make_record, new_scope
from kioko_backends.sqlite import SCHEMA_VERSION, SQLiteStore
from kioko_core.store import Delete, Upsert


def counted(path: Path) -> dict[tuple[str, str, str], int]:
    """df per (user, agent, term) by counting the postings, as schema 1 did at every lookup."""
    with sqlite3.connect(path) as raw:
        rows = raw.execute(
            "SELECT user_id, agent_id, term, count(*) FROM kioko_postings GROUP BY user_id, agent_id, term"
        )
        return {(u, a, t): n for u, a, t, n in rows}


def kept(path: Path) -> dict[tuple[str, str, str], int]:
    """Every df row (a row of df 0 is a forgotten term that lingers, and would show here)."""
    with sqlite3.connect(path) as raw:
        rows = raw.execute("SELECT user_id, agent_id, term, df FROM kioko_term_df")
        return {(u, a, t): n for u, a, t, n in rows}


def test_df_is_the_postings_count_through_inserts_rewrites_and_deletes(tmp_path: Path) -> None:
    path = tmp_path / "df.db"
    store = kioko.open_store(f"sqlite:///{path}")
    assert isinstance(store, SQLiteStore)
    scopes = [new_scope(), new_scope()]
    write_many(store, scopes, seed=1)
    assert kept(path) == counted(path)
    assert counted(path)
    for scope in scopes:
        postings = store.postings(scope, [*TERMS, "t:nothing"], 0)
        truth = counted(path)
        assert postings.df == {
            term: truth.get((scope.user_id, scope.agent_id or "", term), 0) for term in [*TERMS, "t:nothing"]
        }
    store.close()


def test_a_schema_1_file_is_upgraded_when_opened(tmp_path: Path) -> None:
    """A file as schema 1 left it (no df table, no triggers): opening counts its postings once, and from then
    on the triggers keep the counts, also for writes made after the upgrade."""
    path = tmp_path / "old.db"
    store = kioko.open_store(f"sqlite:///{path}")
    scopes = [new_scope(), new_scope()]
    assert isinstance(store, SQLiteStore)
    records = write_many(store, scopes, seed=2)
    store.close()
    with sqlite3.connect(path) as raw:  # back to schema 1
        raw.execute("DROP TRIGGER kioko_postings_count")
        raw.execute("DROP TRIGGER kioko_postings_uncount")
        raw.execute("DROP TABLE kioko_term_df")
        raw.execute("UPDATE kioko_meta SET value = '1' WHERE key = 'schema_version'")
    reopened = kioko.open_store(f"sqlite:///{path}")
    assert isinstance(reopened, SQLiteStore)
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT value FROM kioko_meta WHERE key = 'schema_version'").fetchone()[0] == str(
            SCHEMA_VERSION
        )
    assert kept(path) == counted(path)
    assert counted(path)
    reopened.update_many([Delete(id=r.id, scope=r.scope) for r in records[:5]])
    reopened.update_many([Upsert(record=make_record(scopes[0], terms=TERMS[:3]))])
    assert kept(path) == counted(path)
    reopened.close()


def test_a_forgotten_scope_leaves_no_df_rows(tmp_path: Path) -> None:
    """Deleting every record of a user removes its terms from the df table too."""
    path = tmp_path / "forget.db"
    with kioko.open_store(f"sqlite:///{path}") as store:
        scope = new_scope()
        written = [
            r for r in store.update_many([Upsert(record=make_record(scope, terms=TERMS[:4])) for _ in range(5)]) if r
        ]
        assert {key[2] for key in kept(path)} == set(TERMS[:4])
        store.update_many([Delete(id=r.id, scope=scope) for r in written])
        assert kept(path) == {}
        assert store.postings(scope, TERMS, 5).df == {term: 0 for term in TERMS}


def test_a_schema_2_file_is_upgraded_when_opened(tmp_path: Path) -> None:
    """A file as schema 2 left it (an uncount trigger that keeps rows of df 0, and such rows): opening drops
    the empty rows and replaces the trigger, so later deletes leave none either."""
    path = tmp_path / "two.db"
    store = kioko.open_store(f"sqlite:///{path}")
    scopes = [new_scope(), new_scope()]
    assert isinstance(store, SQLiteStore)
    records = write_many(store, scopes, seed=3)
    store.close()
    with sqlite3.connect(path) as raw:  # back to schema 2
        raw.execute("DROP TRIGGER kioko_postings_uncount")
        raw.execute(
            """CREATE TRIGGER kioko_postings_uncount AFTER DELETE ON kioko_postings BEGIN
                UPDATE kioko_term_df SET df = df - 1
                    WHERE user_id = old.user_id AND agent_id = old.agent_id AND term = old.term;
            END"""
        )
        raw.execute("INSERT INTO kioko_term_df VALUES ('gone', '', 'e:krutika', 0)")
        raw.execute("UPDATE kioko_meta SET value = '2' WHERE key = 'schema_version'")
    reopened = kioko.open_store(f"sqlite:///{path}")
    assert isinstance(reopened, SQLiteStore)
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT value FROM kioko_meta WHERE key = 'schema_version'").fetchone()[0] == str(
            SCHEMA_VERSION
        )
    assert kept(path) == counted(path)
    assert counted(path)
    reopened.update_many([Delete(id=r.id, scope=r.scope) for r in records[:20]])
    assert kept(path) == counted(path)
    reopened.close()


def test_schema_3_files_gain_the_change_log(tmp_path: Path) -> None:
    """A file as schema 3 left it (no kioko_changes): opening creates the log empty, so a cache of an older
    generation rebuilds once, and from then on every batch is logged."""
    path = tmp_path / "v3.db"
    with kioko.open_store(f"sqlite:///{path}") as store:
        scope = new_scope()
        write_many(store, [scope, new_scope()], seed=4)
    with sqlite3.connect(path) as raw:  # back to schema 3
        raw.execute("DROP TABLE kioko_changes")
        raw.execute("UPDATE kioko_meta SET value = '3' WHERE key = 'schema_version'")
    with kioko.open_store(f"sqlite:///{path}") as reopened:
        assert isinstance(reopened, SQLiteStore)
        before = reopened.generation(scope)
        assert before > 0  # written before the log
        assert reopened.changes_since(scope, before - 1) is None
        record = make_record(scope, terms=["t:pump"])
        reopened.update_many([Upsert(record=record)])
        answer = reopened.changes_since(scope, before)
        assert answer is not None
        assert answer.ids == {record.id}
        assert answer.generation == before + 1
