"""Links kept entry by entry (LinkStore) or inside the records: the same links, weights and recall either way.

The same seeded workload (linked adds, a content update, deletes, a hand link and unlink, feedback) is written
through two layers over two stores of one kind (memory://, SQLite, PostgreSQL, Qdrant local and edge all implement
:class:`~kioko_core.store.link_store.LinkStore`): one keeping links apart, one keeping them inside the records as
before the capability (``LayerStore(store, links_apart=False)``). Every link of every memory must be the same,
in the same order, with the same weights (their faded weights too), and recall must answer the same.

A store file written before (links in ``metadata["_kioko"]``, and the layout before that key) reads as before
on a store that now keeps links apart, and moves to it memory by memory as they are written.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import kioko
from benchmarks.synthetic import generate_notes, generate_questions
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.layer.records import LayerStore
from kioko_core.linking import links
from kioko_core.store import Record, Scope, Upsert
from kioko_core.store.link_store import LinkStore

USER = "kumar"
NOTES = 150


def _layers(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[MemoryLayer, MemoryLayer]]:
    if kind == "memory":
        urls = ("memory://", "memory://")
    elif kind == "sqlite":
        urls = (f"sqlite:///{tmp_path / 'apart.db'}", f"sqlite:///{tmp_path / 'record.db'}")
    elif kind.startswith("qdrant"):
        scheme = kind.replace("-", "+")
        urls = (f"{scheme}:///{tmp_path / 'apart'}", f"{scheme}:///{tmp_path / 'record'}")
    else:  # tables of their own in the session's server, fresh for each run
        server = request.getfixturevalue("postgresql_store_url")
        prefix = f"layouts_{uuid.uuid4().hex[:8]}"
        joiner = "&" if "?" in server else "?"
        urls = (f"{server}{joiner}table={prefix}_a", f"{server}{joiner}table={prefix}_r")
    apart_store, record_store = kioko.open_store(urls[0]), kioko.open_store(urls[1])
    assert isinstance(apart_store, LinkStore)
    apart = MemoryLayer(LayerStore(apart_store), auto_link=True)
    inside = MemoryLayer(LayerStore(record_store, links_apart=False), auto_link=True)
    assert apart.store.keeps_links_apart
    assert not inside.store.keeps_links_apart
    try:
        yield apart, inside
    finally:
        apart.close()
        inside.close()


@pytest.fixture(params=["memory", "sqlite", "postgresql", "qdrant-local", "qdrant-edge"])
def both(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[MemoryLayer, MemoryLayer]]:
    yield from _layers(request.param, tmp_path, request)


def _workload(layer: MemoryLayer) -> None:
    """Deterministic: ids and times given, so both layers see the same candidates and ties."""
    notes = generate_notes(NOTES, seed=11)
    for number, note in enumerate(notes):
        layer.add(
            note.content,
            id=f"n{number:03d}",
            user_id=USER,
            memory_type=note.memory_type,
            session_id=note.session_id,
            created_at=note.created_at,
        )
        if number == 60:
            layer.update("n010", user_id=USER, content=notes[10].content + " It happened again on line 3.")
        if number == 80:
            layer.delete("n020", user_id=USER)
            layer.update("n030", user_id=USER, metadata={"ticket": "T-30"})
    layer.graph.link("n040", "n041", "informs", 0.9, "checked by hand", user_id=USER)
    first = links.link_entries(layer.get("n050", user_id=USER))
    if first:
        layer.graph.unlink("n050", first[0]["id"], user_id=USER)
    context = layer.recall("conveyor jam on line 3", user_id=USER, links=3)
    layer.feedback(True, user_id=USER, context=context, now=notes[-1].created_at + 60)


def _links(layer: MemoryLayer) -> dict[str, list[dict[str, Any]]]:
    """Every memory's entries in order, without the wall-clock stamps of when they were made."""
    found = {}
    for record in layer.memories(user_id=USER):
        found[record.id] = [{k: v for k, v in e.items() if k not in ("at", "seen")} for e in links.link_entries(record)]
    return found


def test_every_link_weight_and_recall_is_the_same_in_both_layouts(both: tuple[MemoryLayer, MemoryLayer]) -> None:
    apart, inside = both
    _workload(apart)
    _workload(inside)
    links_apart, links_inside = _links(apart), _links(inside)
    assert sum(map(len, links_apart.values())) > NOTES, "the workload should link most memories"
    assert links_apart == links_inside
    # what the two layouts stored besides the links (entities, unlinked, user metadata) is the same too
    for record in inside.memories(user_id=USER):
        twin = apart.get(record.id, user_id=USER)
        assert twin.metadata == record.metadata
        assert {k: v for k, v in (twin.system or {}).items() if k not in ("links", "linked_at")} == {
            k: v for k, v in (record.system or {}).items() if k not in ("links", "linked_at")
        }
        assert twin.version == record.version, "a change of links moves the version alike in both layouts"
    now = generate_notes(NOTES, seed=11)[-1].created_at + 400 * 86400.0
    for memory_id in list(links_apart)[:40]:
        faded = [round(k.faded(now), 6) for k in apart.graph.links(memory_id, user_id=USER)]
        assert faded == [round(k.faded(now), 6) for k in inside.graph.links(memory_id, user_id=USER)]
    for question in generate_questions(12, seed=3):
        got = apart.recall(question, user_id=USER, links=3)
        want = inside.recall(question, user_id=USER, links=3)
        # links fade from when they were made (the two layers wrote a few ms apart): the same to 6 places
        assert [(m.record.id, round(m.score, 6)) for m in got.memories] == [
            (m.record.id, round(m.score, 6)) for m in want.memories
        ]


def test_a_link_write_leaves_the_neighbours_records_alone(tmp_path: Path) -> None:
    """On SQLite a new memory's links go to kioko_links: the neighbours' rows keep their metadata bytes."""
    url = f"sqlite:///{tmp_path / 'rows.db'}"
    layer = kioko.connect(url, auto_link=True)
    try:
        first = layer.add("Line 3 stopped with the encoder fault E-217.", user_id=USER, memory_type="episodic")
        path = layer.store.driver.path
        with sqlite3.connect(path) as raw:
            before = raw.execute("SELECT metadata, version FROM kioko_records WHERE id = ?", (first.id,)).fetchone()
        second = layer.add(
            "Reseated the encoder cable after fault E-217 on line 3.", user_id=USER, memory_type="episodic"
        )
        with sqlite3.connect(path) as raw:
            after = raw.execute("SELECT metadata, version FROM kioko_records WHERE id = ?", (first.id,)).fetchone()
            rows = raw.execute("SELECT owner, other FROM kioko_links ORDER BY rowid").fetchall()
        assert after[0] == before[0], "only its version moves"
        assert after[1] == before[1] + 1, "only its version moves"
        assert set(rows) == {(first.id, second.id), (second.id, first.id)}
        assert "links" not in before[0]
        assert [e["id"] for e in links.link_entries(layer.get(first.id, user_id=USER))] == [second.id]
    finally:
        layer.close()


def test_a_link_write_leaves_the_neighbours_qdrant_point_alone(tmp_path: Path) -> None:
    """On Qdrant (local mode, whose points are rows of an sqlite file) a new memory's links go to two small
    adjacency points: the neighbour's record point is not written again, yet its version moves by one."""
    layer = kioko.connect(f"qdrant+local:///{tmp_path / 'points'}", auto_link=True)
    storage = tmp_path / "points" / "collection" / "kioko" / "storage.sqlite"

    def rows() -> dict[str, tuple[int, bytes]]:
        with sqlite3.connect(storage) as raw:
            return {key: (rowid, point) for key, rowid, point in raw.execute("SELECT id, rowid, point FROM points")}

    try:
        marked = len(rows())  # the store's mark (kioko_core.store.format_mark) is a point of its own
        first = layer.add("Line 3 stopped with the encoder fault E-217.", user_id=USER, memory_type="episodic")
        before = rows()
        assert len(before) == marked + 1, "a memory without links is one point"
        second = layer.add(
            "Reseated the encoder cable after fault E-217 on line 3.", user_id=USER, memory_type="episodic"
        )
        after = rows()
        assert all(after[key] == held for key, held in before.items()), "the neighbour's point is not rewritten"
        assert len(after) == marked + 4, "the new memory's point and the two memories' adjacency points"
        again = layer.get(first.id, user_id=USER)
        assert again.version == first.version + 1
        assert again.metadata == first.metadata
        assert [e["id"] for e in links.link_entries(again)] == [second.id]
        assert [e["id"] for e in links.link_entries(layer.get(second.id, user_id=USER))] == [first.id]
    finally:
        layer.close()


def test_a_store_written_before_reads_as_before_and_moves_links_out_when_written(tmp_path: Path) -> None:
    """An SQLite file of schema 4: links under metadata["_kioko"] (and one memory in the layout before that
    key). Opened now, every memory reads with its links and its user metadata exactly; a memory written
    again keeps the same links, now as entries of kioko_links."""
    path = tmp_path / "old.db"
    now = 1_700_000_000.0

    def entry(other: str, direction: str, weight: float) -> dict[str, Any]:
        return {
            "id": other,
            "type": "related_to",
            "dir": direction,
            "w": weight,
            "by": "auto",
            "why": "E-217",
            "at": now,
            "seen": now,
        }

    old_layout = {
        "a": (
            {
                "ticket": "T-1",
                "_kioko": {"links": [entry("b", "out", 0.7), entry("c", "in", 0.5)], "entities": ["e-217"]},
            }
        ),
        "b": ({"_kioko": {"links": [entry("a", "in", 0.7)], "entities": ["e-217"], "linked_at": now}}),
        "c": ({"links": ["https://runbook"], "entities": ["e-217"], "linked_at": now}),  # before the key
    }
    legacy_c = {**old_layout["c"], "links": ["https://runbook", entry("a", "out", 0.5)]}
    texts = {"a": "Encoder fault E-217 on line 3.", "b": "Fixed E-217 by reseating the cable.", "c": "E-217 runbook."}
    store = kioko.open_store(f"sqlite:///{path}")
    store.update_many(
        [
            Upsert(
                record=Record(
                    id=memory_id,
                    user_id=USER,
                    kind="episodic",
                    content=texts[memory_id],
                    metadata=legacy_c if memory_id == "c" else metadata,
                    created_at=now,
                    updated_at=now,
                )
            )
            for memory_id, metadata in old_layout.items()
        ]
    )
    store.close()
    with sqlite3.connect(path) as raw:  # back to the file a Kioko of schema 4 wrote
        raw.execute("DROP TABLE kioko_links")
        raw.execute("UPDATE kioko_meta SET value = '4' WHERE key = 'schema_version'")

    layer = kioko.connect(f"sqlite:///{path}", auto_link=True)
    try:
        assert layer.store.keeps_links_apart
        a, b, c = (layer.get(i, user_id=USER) for i in "abc")
        assert a.metadata == {"ticket": "T-1"}
        assert b.metadata == {}
        assert c.metadata == {"links": ["https://runbook"]}
        assert links.link_entries(a) == [entry("b", "out", 0.7), entry("c", "in", 0.5)]
        assert links.link_entries(c) == [entry("a", "out", 0.5)]
        assert links.entities_of(c) == ["e-217"]
        assert [(k.source, k.target) for k in layer.graph.links("a", user_id=USER)] == [("a", "b"), ("c", "a")]

        layer.update("a", user_id=USER, metadata={"ticket": "T-2"})  # a write moves a's links out of its record
        layer.graph.unlink("a", "b", user_id=USER)  # and b's (a change of links of a memory still in the old shape)
        with sqlite3.connect(path) as raw:
            stored = {i: m for i, m in raw.execute("SELECT id, metadata FROM kioko_records")}
            rows = raw.execute("SELECT owner, other FROM kioko_links ORDER BY rowid").fetchall()
        assert '"links"' not in stored["a"]
        assert '"links"' not in stored["b"]
        assert rows == [("a", "c")]
        a = layer.get("a", user_id=USER)
        assert a.metadata == {"ticket": "T-2"}
        assert links.link_entries(a) == [entry("c", "in", 0.5)]
        assert links.link_entries(layer.get("b", user_id=USER)) == []
        assert links.link_entries(layer.get("c", user_id=USER)) == [entry("a", "out", 0.5)], (
            "c was not written: as it was"
        )
    finally:
        layer.close()


def test_a_record_the_layer_returns_carries_the_callers_metadata_exactly() -> None:
    """#21: memory.get(id).metadata is what the caller stored; the bookkeeping is in record.system."""
    layer = kioko.connect("memory://", auto_link=True)
    mine = {"links": ["https://example.org"], "entities": "not the layer's", "nested": {"a": [1, 2]}}
    first = layer.add(
        "Line 3 stopped with the encoder fault E-217.", user_id=USER, memory_type="episodic", metadata=mine
    )
    layer.add("Reseated the encoder cable after fault E-217.", user_id=USER, memory_type="episodic")
    for record in (layer.get(first.id, user_id=USER), *layer.memories(user_id=USER)):
        assert links.BOOKKEEPING not in record.metadata
    got = layer.get(first.id, user_id=USER)
    assert got.metadata == mine
    assert got.system is not None
    assert [e["dir"] for e in got.system["links"]]
    assert "e-217" in got.system["entities"]
    hit = layer.recall("encoder fault", user_id=USER).memories[0].record
    assert links.BOOKKEEPING not in hit.metadata
    assert hit.system is not None
    assert layer.store.get(Scope(USER), [first.id])[0].metadata == mine  # type: ignore[union-attr]
    layer.close()
