"""postgresql://'s link entries (LinkStore, schema 5) on the session's real server: tables of schema 4 gain
``{p}_links`` when opened, in their layout, and their memories read with the links their records hold until
written; a new memory's links leave the neighbours' rows alone but for their version; and the failover rule
for a lost call that carries link changes."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

import kioko
from contract_tests.support import make_record, new_scope
from kioko_core.layer.records import LayerStore
from kioko_core.linking import links
from kioko_core.store import Record, Upsert
from kioko_core.store.link_store import LinkChange

psycopg = pytest.importorskip("psycopg", reason="the postgres extra is not installed")
SCHEMA_VERSION = pytest.importorskip("kioko_backends.postgresql").SCHEMA_VERSION

LAYOUTS = {"plain": "", "partitioned": "&partitions=3"}
USER = "kumar"
NOW = 1_700_000_000.0


@pytest.fixture
def database(postgresql_store_url: str, postgres_service: object) -> Iterator[str]:
    import services

    yield services.postgres_database(postgres_service, "kioko_links")  # type: ignore[arg-type]


def _url(database: str, table: str, extra: str = "") -> str:
    return database + ("&" if "?" in database else "?") + f"table={table}{extra}"


def _entry(other: str, direction: str, weight: float) -> dict[str, Any]:
    return {"id": other, "type": "related_to", "dir": direction, "w": weight, "by": "auto", "why": "E-217", "at": NOW}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_schema_4_tables_gain_links_and_keep_reading_the_links_in_their_records(database: str, layout: str) -> None:
    table = f"links_old_{layout}"
    url = _url(database, table, LAYOUTS[layout])
    held = {
        "a": {"ticket": "T-1", "_kioko": {"links": [_entry("b", "out", 0.7)], "entities": ["e-217"]}},
        "b": {"_kioko": {"links": [_entry("a", "in", 0.7)], "entities": ["e-217"], "linked_at": NOW}},
    }
    with kioko.open_store(url) as store:  # what a Kioko of schema 4 wrote: links inside the records' metadata
        store.update_many(
            [
                Upsert(
                    record=Record(
                        id=memory_id,
                        user_id=USER,
                        kind="episodic",
                        content=f"Encoder fault E-217, note {memory_id}.",
                        metadata=metadata,
                        created_at=NOW,
                        updated_at=NOW,
                    )
                )
                for memory_id, metadata in held.items()
            ]
        )
    with psycopg.connect(database) as conn:  # back to schema 4
        conn.execute(f"DROP TABLE {table}_links")
        conn.execute(f"DROP SEQUENCE {table}_links_order")
        conn.execute(f"UPDATE {table}_meta SET value = '4' WHERE key = 'schema_version'")

    layer = kioko.connect(_url(database, table), auto_link=True)  # opened without the layout: it is the tables'
    try:
        with psycopg.connect(database) as conn:
            version = conn.execute(f"SELECT value FROM {table}_meta WHERE key = 'schema_version'").fetchone()
            kind = conn.execute("SELECT relkind FROM pg_class WHERE relname = %s", [f"{table}_links"]).fetchone()
        assert version == (str(SCHEMA_VERSION),)
        assert SCHEMA_VERSION == 5
        assert kind == (("p",) if layout == "partitioned" else ("r",))
        assert layer.store.keeps_links_apart
        a = layer.get("a", user_id=USER)
        assert a.metadata == {"ticket": "T-1"}
        assert links.link_entries(a) == [_entry("b", "out", 0.7)]
        layer.update("a", user_id=USER, metadata={"ticket": "T-2"})  # written: a's links move to {p}_links
        with psycopg.connect(database) as conn:
            stored = dict(conn.execute(f"SELECT id, metadata::text FROM {table}_records").fetchall())
            rows = conn.execute(f"SELECT owner, other, entry::text FROM {table}_links").fetchall()
        assert '"links"' not in stored["a"], "b was not written: as it was"
        assert '"links"' in stored["b"], "b was not written: as it was"
        assert [(owner, other) for owner, other, _ in rows] == [("a", "b")]
        a = layer.get("a", user_id=USER)
        assert a.metadata == {"ticket": "T-2"}
        assert links.link_entries(a) == [_entry("b", "out", 0.7)]
        assert links.link_entries(layer.get("b", user_id=USER)) == [_entry("a", "in", 0.7)]
    finally:
        layer.close()


def test_a_link_write_leaves_the_neighbours_rows_alone(database: str) -> None:
    """A new memory's links go to {p}_links: a neighbour's row keeps its metadata text; its version moves."""
    table = "links_rows"
    layer = kioko.connect(_url(database, table), auto_link=True)
    try:
        first = layer.add("Line 3 stopped with the encoder fault E-217.", user_id=USER, memory_type="episodic")

        def row() -> tuple[str, int]:
            with psycopg.connect(database) as conn:
                found = conn.execute(
                    f"SELECT metadata::text, version FROM {table}_records WHERE id = %s", [first.id]
                ).fetchone()
            assert found is not None
            return found[0], found[1]

        before = row()
        second = layer.add("Reseated the encoder cable after fault E-217 on line 3.", user_id=USER)
        after = row()
        with psycopg.connect(database) as conn:
            rows = conn.execute(f"SELECT owner, other FROM {table}_links ORDER BY seq").fetchall()
        assert after == (before[0], before[1] + 1), "only its version moves"
        assert set(rows) == {(first.id, second.id), (second.id, first.id)}
        assert [e["id"] for e in links.link_entries(layer.get(first.id, user_id=USER))] == [second.id]
    finally:
        layer.close()


def test_which_lost_link_calls_are_repeated(database: str) -> None:
    """failover.py's rule for a call with link changes: its ops tell for the whole call; without ops, owners
    all still at their expected versions mean nothing was applied, anything else is unknown."""
    from kioko_backends.postgresql.failover import APPLIED, UNKNOWN, UNTOUCHED, link_versions, outcome, repeatable

    scope = new_scope()
    with kioko.open_store(_url(database, f"lost_{uuid.uuid4().hex[:6]}")) as store:
        owner, fresh = make_record(scope), make_record(scope)
        store.update_many([Upsert(record=owner, expected_version=0)])
        read = store._get_on_primary  # type: ignore[attr-defined]
        neighbour = LinkChange(scope, owner.id, put=((fresh.id, {"id": fresh.id}),), expected_version=1)
        own = LinkChange(scope, fresh.id, put=((owner.id, {"id": owner.id}),), replace=True)
        ops = [Upsert(record=fresh, expected_version=0)]
        assert repeatable(ops, [own, neighbour])
        assert not repeatable(ops, [LinkChange(scope, owner.id, put=neighbour.put)]), "an unversioned owner"
        assert outcome(ops, read, [own, neighbour]) == UNTOUCHED
        store.update_with_links(ops, [own, neighbour])  # type: ignore[attr-defined]
        assert outcome(ops, read, [own, neighbour]) == APPLIED
        assert link_versions(ops, [own, neighbour]) == [1, 2]
        assert [r.version for r in store.get(scope, [fresh.id, owner.id]) if r] == [1, 2]
        # a call of link changes alone: untouched while the owner is at its version, else unknown
        again = LinkChange(scope, owner.id, drop=(fresh.id,), expected_version=2)
        assert outcome([], read, [again]) == UNTOUCHED
        store.update_with_links([], [again])  # type: ignore[attr-defined]
        assert outcome([], read, [again]) == UNKNOWN
        assert store.links(scope, [owner.id, fresh.id]) == [[], [{"id": owner.id}]]  # type: ignore[attr-defined]


def test_a_layer_read_takes_records_and_entries_in_one_statement(database: str) -> None:
    """get_with_links (LinkedGet) answers exactly what get then links answer, in one read: entries in the order
    last put, their numbers as stored, duplicates and unknown ids as get gives them; the layer's get uses it."""
    scope, other = new_scope(agent_id="planner"), new_scope()
    with kioko.open_store(_url(database, f"joined_{uuid.uuid4().hex[:6]}")) as store:
        a, b, c = (make_record(scope, kind="episodic") for _ in range(3))
        elsewhere = make_record(other)
        store.update_many([Upsert(record=r, expected_version=0) for r in (a, b, c, elsewhere)])
        odd = {"id": c.id, "w": 0.1 + 0.2, "tiny": 1e-300, "big": 12345678901234567890, "text": "é\u2028"}
        store.update_with_links(  # type: ignore[attr-defined]
            [],
            [
                LinkChange(scope, a.id, put=((b.id, {"id": b.id, "w": 0.5}), (c.id, odd))),
                LinkChange(scope, a.id, put=((b.id, {"id": b.id, "w": 0.7}),)),  # b again: now last
                LinkChange(other, elsewhere.id, put=((a.id, {"id": a.id}),)),
            ],
        )
        asked = [a.id, "missing", c.id, a.id, elsewhere.id, "x\x00"]
        records, held = store.get_with_links(scope, asked)  # type: ignore[attr-defined]
        assert records == store.get(scope, asked)
        assert records[0] is not records[3], "every position gets an object of its own"
        found = [r.id for r in records if r is not None]
        assert [held.get(i, []) for i in found] == store.links(scope, found)  # type: ignore[attr-defined]
        assert held == {a.id: [odd, {"id": b.id, "w": 0.7}]}

        reads = 0
        read = store._read  # type: ignore[attr-defined]

        def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal reads
            reads += 1
            return read(*args, **kwargs)

        store._read = counted  # type: ignore[attr-defined]
        assert [r.id for r in LayerStore(store).get(scope, [a.id, b.id]) if r] == [a.id, b.id]
        assert reads == 1, "the layer read records and entries in one statement"
