"""connect() plans memories one by one and stores them a batch at a time (kioko_core/linking/relink.py): the links
are the ones relinking each memory in a write of its own makes, and a batch another writer got into is
redone from the store, keeping that writer's change. Every test runs on every store of the matrix."""

from __future__ import annotations

from typing import Any

from linking_support import (  # noqa: F401  (fixtures are found by name)
    linking_stores,
    matrix_store,
    scope_records,
    store,
    user,
)

from benchmarks.synthetic import entity_relations, generate_notes
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.linking import links
from kioko_core.linking.relink import RelinkBatch, relink_one
from kioko_core.store import Scope, Store

NOTES = generate_notes(90, seed=11)


def fill_unlinked(store: Store, user_id: str, prefix: str, names_after: bool = True) -> dict[str, list[str]]:
    """The notes stored with linking off (ids ``prefix`` + number) and the entity graph filled, after them by
    default: the names it brings then change some memories' terms, so connect writes those on their own.
    Returns each id's terms as stored."""
    layer = MemoryLayer(store, auto_link=False)

    def names() -> None:
        for subject, relation, obj in entity_relations():
            layer.graph.add(subject, relation, obj, user_id=user_id)

    if not names_after:
        names()
    items = [
        {
            "content": note.content,
            "memory_type": note.memory_type,
            "session_id": note.session_id,
            "created_at": note.created_at,
            "id": f"{prefix}{number:04d}",
        }
        for number, note in enumerate(NOTES)
    ]
    stored = layer.add_many(items, user_id=user_id)
    if names_after:
        names()
    return {r.id: list(r.terms) for r in stored}


def links_by_number(store: Store, user_id: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every memory's link entries (times left out), ids without their prefix so two users compare."""
    return {
        r.id[1:]: sorted(
            (e["id"][1:], e["type"], e["dir"], e["w"], e["by"], e["why"], e.get("from")) for e in links.link_entries(r)
        )
        for r in scope_records(store, Scope(user_id))
    }


def test_batched_connect_makes_the_links_one_write_per_memory_makes(store: Store, user: str) -> None:
    batched, alone = user + "-a", user + "-b"
    terms_before = fill_unlinked(store, batched, "a")
    fill_unlinked(store, alone, "b")

    report = MemoryLayer(store, auto_link=True).graph.connect(user_id=batched)

    layer = MemoryLayer(store, auto_link=True)
    order = sorted((r.created_at, r.id) for r in scope_records(store, Scope(alone)))
    made: set[frozenset[str]] = set()
    dropped = 0
    for _, memory_id in order:
        relinked = relink_one(layer, Scope(alone), memory_id)
        assert relinked is not None
        made.update(frozenset((k.source, k.target)) for k in relinked[0])
        dropped += relinked[1]

    assert report.memories == len(NOTES)
    assert (report.links, report.dropped) == (len(made), dropped)
    assert report.links > len(NOTES)  # a real backfill: most memories gained links
    expected = links_by_number(store, alone)
    assert links_by_number(store, batched) == expected
    changed = [r.id for r in scope_records(store, Scope(batched)) if r.terms != terms_before[r.id]]
    assert changed, "no memory's terms changed: the write-alone path was not exercised"


def test_a_batch_another_writer_got_into_is_redone_and_keeps_that_writer_s_change(store: Store, user: str) -> None:
    fill_unlinked(store, user, "c", names_after=False)  # no memory's terms change: all wait for the flush
    layer = MemoryLayer(store, auto_link=True)
    scope = Scope(user)
    order = [i for _, i in sorted((r.created_at, r.id) for r in scope_records(store, scope))][:12]
    batch = RelinkBatch(layer, scope, size=len(order) + 1)
    for memory_id in order:
        assert batch.relink(memory_id) == []  # planned, nothing written yet
    # another writer changes a memory the batch is about to write
    MemoryLayer(store, auto_link=False).update(order[5], user_id=user, metadata={"checked": True})

    outcomes = batch.flush()

    assert [memory_id for memory_id, _ in outcomes] == order
    records = {r.id: r for r in scope_records(store, scope)}
    assert records[order[5]].metadata["checked"] is True
    assert all(links.linked_at(records[i]) is not None for i in order)
    assert sum(len(relinked[0]) for _, relinked in outcomes if relinked is not None) > 0
    for record in records.values():  # both halves of every link
        for entry in links.link_entries(record):
            mirror = links.entry_for(records[entry["id"]], record.id)
            assert mirror is not None
            assert mirror["dir"] != entry["dir"]
