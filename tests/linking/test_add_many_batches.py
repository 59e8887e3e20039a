"""add_many plans each memory as add() would and stores a batch of them in one write (kioko_core/layer/bulk.py): the links,
terms and bookkeeping are the ones adding the same items one by one makes; a batch another writer got into is
added again one by one from the store; an item that fails stores the ones before it. Every test runs on every
store of the matrix."""

from __future__ import annotations

import random
from typing import Any

import pytest
from linking_support import (  # noqa: F401  (fixtures are found by name)
    linking_stores,
    matrix_store,
    scope_records,
    store,
    user,
)

from benchmarks.synthetic import entity_relations, generate_notes
from kioko_core.errors import IdTaken
from kioko_core.layer.bulk import BatchAdd, _held_view
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.linking import links
from kioko_core.linking.pending import PendingStore
from kioko_core.store import Scope, ScopeGenerations, Store

# small bounds, so the batches cut postings lists and session lists the way a store of thousands does
TIGHT = {"postings_limit": 6, "session_candidates": 4, "candidates": 8}


def items(prefix: str, count: int = 140) -> list[dict[str, Any]]:
    """Synthetic notes, some written later than a note after them (the store orders postings by time, a cache by
    write); from 120 on, a copy of an earlier note, a copy with new metadata, a sub-goal and an instruction among them."""
    notes = generate_notes(count, seed=23)
    shuffle = random.Random(5)
    out: list[dict[str, Any]] = []
    for number, note in enumerate(notes):
        created = note.created_at + (shuffle.choice([0, 0, 0, -86_400 * 3, 3_600]) if number % 5 == 0 else 0)
        out.append(
            {
                "content": note.content,
                "memory_type": note.memory_type,
                "session_id": note.session_id,
                "created_at": created,
                "id": f"{prefix}{number:04d}",
            }
        )
    if count < 120:
        return out
    goal = next(i for i, item in enumerate(out) if item["memory_type"] == "goal")
    copied = {k: v for k, v in out[30].items() if k != "id"}
    out.insert(60, copied)  # a copy: the memory already stored is returned
    out.insert(75, {**copied, "metadata": {"source": "import"}})  # a copy that merges metadata: an update
    out.insert(90, {"content": "Finish the sub-task of that goal.", "memory_type": "goal", "id": f"{prefix}sub",
                    "metadata": {"parent": out[goal]["id"]}})  # fmt: skip
    out.insert(100, {"content": "Always answer in English.", "memory_type": "instruction", "id": f"{prefix}ins"})
    return out


def snapshot(store: Store, user_id: str, prefix: str) -> dict[str, Any]:
    """Each memory by number (``prefix`` left out of ids): its links (times left out), terms, metadata, bookkeeping."""

    def plain(value: Any) -> Any:
        return value.removeprefix(prefix) if isinstance(value, str) else value

    found = {}
    for record in scope_records(store, Scope(user_id)):
        system = {k: v for k, v in (record.system or {}).items() if k not in ("links", "linked_at")}
        found[plain(record.id)] = {
            "links": [
                (plain(e["id"]), e["type"], e["dir"], e["w"], e["by"], e["why"]) for e in links.link_entries(record)
            ],
            "terms": record.terms,
            "metadata": {k: plain(v) for k, v in record.metadata.items()},
            "system": system,
            "content": record.content,
        }
    return found


def names(layer: MemoryLayer, user_id: str) -> None:
    for subject, relation, obj in entity_relations():
        layer.graph.add(subject, relation, obj, user_id=user_id)


def with_instructions(prefix: str, newest_first: bool = False) -> list[dict[str, Any]]:
    """110 notes with an instruction every 9: the index cache does not record an instruction's write, so after one
    it reads the scope's terms again, through the held batch (which merges its memories into the stored ones'
    postings by time)."""
    notes = items(prefix, 110)
    out: list[dict[str, Any]] = []
    for number, item in enumerate(reversed(notes) if newest_first else notes):
        out.append(item)
        if number % 9 == 4:
            out.append({"content": f"Instruction {number}: be brief.", "memory_type": "instruction",
                        "id": f"{prefix}i{number}"})  # fmt: skip
    return out


def newest_first(prefix: str) -> list[dict[str, Any]]:
    """:func:`with_instructions` read newest first (an export): the batch's memories are older than the stored ones."""
    return with_instructions(prefix, newest_first=True)


def test_add_many_makes_the_links_adding_one_by_one_makes(store: Store, user: str) -> None:
    same_links_as_one_by_one(store, user, 16, items)


@pytest.mark.parametrize("matrix_store", ["memory", "sqlite", "postgresql"], indirect=True)  # qdrant+local: slow
@pytest.mark.parametrize(("size", "order"), [(256, items), (32, with_instructions), (32, newest_first)])
def test_every_batching_makes_the_links_adding_one_by_one_makes(store: Store, user: str, size: int, order: Any) -> None:
    same_links_as_one_by_one(store, user, size, order)


def same_links_as_one_by_one(store: Store, user: str, size: int, order: Any) -> None:
    batched, alone = user + "-a", user + "-b"
    layer = MemoryLayer(store, auto_link=True, linker=TIGHT)
    names(layer, batched)
    names(layer, alone)
    for item in order(alone):
        layer.add(user_id=alone, **item)

    returned = BatchAdd(layer, batched, None, size=size).run((item, None) for item in order(batched))

    got, want = snapshot(store, batched, batched), snapshot(store, alone, alone)
    assert got == want
    assert sum(len(m["links"]) for m in got.values()) > 2 * len(got)  # a real linking workload
    if order is not items:
        return
    assert len(got) == len(items(batched)) - 2  # the two copies stored nothing new
    stored = {r.id: r for r in scope_records(store, Scope(batched))}
    assert [r.id for r in returned][:30] == [item["id"] for item in items(batched)[:30]]
    assert returned[60].id == returned[30].id == returned[75].id  # the copies are the memory stored
    assert returned[75].metadata == {"source": "import"}
    for record in returned:  # as stored once its batch was written (later batches may have linked it since)
        assert record.content == stored[record.id].content
        assert 1 <= record.version <= stored[record.id].version
    assert links.link_entries(returned[-1]) == links.link_entries(stored[returned[-1].id])


def test_add_many_writes_a_batch_at_once(store: Store, user: str) -> None:
    layer = MemoryLayer(store, auto_link=True)
    driver = getattr(layer.store, "driver", layer.store)
    generation = getattr(driver, "generation", None)
    if generation is None:
        pytest.skip(f"{type(driver).__name__} does not count its writes per scope")
    before = generation(Scope(user))
    stored = layer.add_many([item["content"] for item in items(user, 60)], user_id=user, memory_type="episodic")
    assert generation(Scope(user)) == before + 1  # one update_many for all sixty memories and their links
    assert sum(len(links.link_entries(r)) for r in stored) > 0
    again = layer.add("Line 3 keeps faulting with error E-217.", user_id=user)  # the index cache follows the store
    assert again.version == 1
    assert generation(Scope(user)) == before + 2


def test_a_batch_another_writer_got_into_is_added_again_one_by_one(store: Store, user: str) -> None:
    layer = MemoryLayer(store, auto_link=True)
    fault = layer.add("Line 3 keeps faulting with error E-217.", user_id=user, memory_type="episodic", session_id="s1")
    later = [
        {"content": f"Check {number} on line 3: error E-217 again after the restart.", "memory_type": "episodic",
         "session_id": "s1", "created_at": fault.created_at + 60 * number}
        for number in range(1, 11)
    ]  # fmt: skip
    driver = getattr(layer.store, "driver", layer.store)
    generation = getattr(driver, "generation", None)
    before = generation(Scope(user)) if generation is not None else None

    def planned() -> Any:
        for number, item in enumerate(later):
            if number == len(later) - 1:  # the batch has read (and linked) the stored fault by now
                MemoryLayer(store, auto_link=False).update(fault.id, user_id=user, metadata={"checked": True})
            yield item, None

    BatchAdd(layer, user, None).run(planned())

    records = {r.id: r for r in scope_records(store, Scope(user))}
    assert sorted(r.content for r in records.values()) == sorted([fault.content, *(i["content"] for i in later)])
    assert records[fault.id].metadata["checked"] is True
    assert links.link_entries(records[fault.id])  # linked after the writer's change, which stays
    if generation is not None:  # the batch's write was refused: each memory was written on its own
        assert generation(Scope(user)) == before + 1 + len(later)
    for record in records.values():  # both halves of every link
        for entry in links.link_entries(record):
            mirror = links.entry_for(records[entry["id"]], record.id)
            assert mirror is not None
            assert mirror["dir"] != entry["dir"]


def test_an_item_that_fails_stores_the_ones_before_it(store: Store, user: str) -> None:
    layer = MemoryLayer(store, auto_link=True)
    layer.add("Taken already.", user_id=user, id=f"{user}-taken")
    batch = [item["content"] for item in items(user, 12)]
    with pytest.raises(IdTaken):
        layer.add_many([*batch[:6], {"content": "Mine now.", "id": f"{user}-taken"}, *batch[6:]], user_id=user)
    stored = {r.content for r in scope_records(store, Scope(user))}
    assert stored == {"Taken already.", *batch[:6]}


def test_a_held_batch_reads_as_the_store_reads_once_it_is_written(store: Store, user: str) -> None:
    """PendingStore's postings, knn, get and n against the same store after the held records were written."""
    layer = MemoryLayer(store, auto_link=False)
    notes = generate_notes(60, seed=3)
    shift = random.Random(9)

    def record_items(prefix: str, part: slice) -> list[dict[str, Any]]:
        return [
            {"content": n.content, "memory_type": n.memory_type, "session_id": n.session_id,
             "created_at": n.created_at + shift.choice([-5e5, 0, 5e5]), "id": f"{user}{prefix}{i:03d}"}
            for i, n in enumerate(notes[part])
        ]  # fmt: skip

    stored_part, held_part = record_items("s", slice(0, 30)), record_items("h", slice(30, 60))
    layer.add_many(stored_part, user_id=user)
    scope = Scope(user)
    held = PendingStore(layer.store, scope)
    view = _held_view(layer, held)
    for item in held_part:  # what add writes, held
        view.add(user_id=user, **item)
    assert held.writes == len(held_part)
    assert layer.store.get(scope, [held_part[0]["id"]]) == [None]
    terms = sorted({t for r in held.records.values() for t in r.terms})[:80]
    probe = next(iter(held.records.values())).embedding
    before = (held.postings(scope, terms, 3), held.knn(scope, probe, 7), held.get(scope, [held_part[3]["id"]]))

    layer.store.update_many(held.ops())

    after = (layer.store.postings(scope, terms, 3), layer.store.knn(scope, probe, 7))
    assert before[0] == after[0]
    assert [n.id for n in before[1]] == [n.id for n in after[1]]
    assert before[2][0] is not None
    assert before[2][0].content == held_part[3]["content"]


def test_a_held_batch_counts_its_writes_in_every_generation_read(store: Store, user: str) -> None:
    """``generations`` (several scopes in one read) answers as ``generation`` does: the batch's scope with its held
    writes, another scope as the store has it; before the fix it passed the store's answer through."""
    if not isinstance(store, ScopeGenerations):
        pytest.skip(f"{type(store).__name__} does not count its writes per scope")
    layer = MemoryLayer(store, auto_link=False)
    scope, other = Scope(user), Scope(user, "elsewhere")
    layer.add_many([{"content": "Stored before the batch.", "id": f"{user}-first"}], user_id=user)
    layer.add_many([{"content": "Another agent's note.", "id": f"{user}-other"}], user_id=user, agent_id="elsewhere")
    held = PendingStore(layer.store, scope)
    view = _held_view(layer, held)
    view.add(user_id=user, content="Held in the batch.", id=f"{user}-held-1")
    view.add(user_id=user, content="Also held in the batch.", id=f"{user}-held-2")
    assert held.writes == 2
    expected = [store.generation(scope) + 2, store.generation(other)]
    assert [held.generation(scope), held.generation(other)] == expected
    assert held.generations([scope, other]) == expected
    assert held.generations([other, scope, scope]) == [expected[1], expected[0], expected[0]]


def test_an_import_keeps_its_scope_cached_past_the_record_cap_and_links_the_same(store: Store, user: str) -> None:
    """While ``add_many`` runs, the scope's records stay cached past ``max_records`` (its earlier memories are the
    later ones' candidates), the links are those of a cache that holds a handful; afterwards the cap holds again."""
    tight, roomy = user + "-t", user + "-r"
    small = MemoryLayer(store, auto_link=True, linker=TIGHT)
    small.index.max_records = small.index.import_records = 5
    large = MemoryLayer(store, auto_link=True, linker=TIGHT)
    large.index.max_records = 5
    BatchAdd(small, tight, None, size=16).run((item, None) for item in items(tight, 110))
    seen: list[int] = []
    keep = large.index._keep

    def counting(scope: Scope, stats: Any, records: Any) -> None:
        keep(scope, stats, records)
        seen.append(len(stats.records))

    large.index._keep = counting  # type: ignore[method-assign]
    BatchAdd(large, roomy, None, size=16).run((item, None) for item in items(roomy, 110))
    assert snapshot(store, roomy, roomy) == snapshot(store, tight, tight)
    driver = getattr(large.store, "driver", large.store)
    if not isinstance(driver, ScopeGenerations):
        return  # a store that does not count its writes caches no records
    assert max(seen) > 50  # the import's memories stayed cached, far past the cap of 5
    assert len(large.index._scopes[Scope(roomy)].records) <= 5  # cut back to the cap when the import ended


def _spoil(record: Any) -> None:
    """Change every part of a returned record the linker reads: its metadata, terms, link weights and vector."""
    record.metadata["changed"] = True
    record.terms.clear()
    if record.system is not None:
        for entry in record.system.get("links", []):
            entry["w"] = 0.0
    if record.embedding is not None:
        record.embedding[:] = 0


def test_the_records_add_many_returns_are_the_callers_own(store: Store, user: str) -> None:
    """The import's memories stay in the index cache for the later memories' links: a caller changing a returned
    record (its metadata, links, terms or vector) changes nothing the linker reads."""
    spoiled, clean = user + "-s", user + "-c"
    layer = MemoryLayer(store, auto_link=True, linker=TIGHT)
    notes = items(spoiled, 60)
    first = layer.add_many([{**item, "id": spoiled + item["id"]} for item in notes[:30]], user_id=spoiled)
    for record in first:
        _spoil(record)
    layer.add_many([{**item, "id": spoiled + item["id"]} for item in notes[30:]], user_id=spoiled)
    layer.add_many([{**item, "id": clean + item["id"]} for item in items(spoiled, 60)], user_id=clean)
    got = snapshot(store, spoiled, spoiled + spoiled)
    want = snapshot(store, clean, clean + spoiled)
    assert got == want
    assert sum(len(m["links"]) for m in got.values()) > len(got)


def test_the_record_add_returns_is_the_callers_own(store: Store, user: str) -> None:
    """A linked ``add`` leaves a copy of the memory it wrote in the index cache (the next write in its session
    nominates it): a caller changing the record ``add`` returned changes nothing the next links read."""
    spoiled, clean = user + "-s", user + "-c"
    layer = MemoryLayer(store, auto_link=True, linker=TIGHT)
    for item in items(spoiled, 40):
        _spoil(layer.add(user_id=spoiled, **{**item, "id": spoiled + item["id"]}))
    for item in items(spoiled, 40):
        layer.add(user_id=clean, **{**item, "id": clean + item["id"]})
    got = snapshot(store, spoiled, spoiled + spoiled)
    want = snapshot(store, clean, clean + spoiled)
    assert got == want
    assert sum(len(m["links"]) for m in got.values()) > len(got)
