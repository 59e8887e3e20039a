"""What makes a linked write cheaper must not change what it writes.

The linker keeps, between writes, the records it reads (IndexCache.records), each candidate's view for scoring
(``Side.of_stored``, kept on the record) and reads the far end of a link the degree cap drops through that cache;
records are copied by ``record_copy`` instead of pydantic's ``model_copy``, and ``vote`` drops the memory being
linked after counting. A layer whose record cache is off (``max_records = 0``: every record read from the store,
so every Side made afresh) must write exactly the same links, versions and bookkeeping on the same seeded
workload; the helpers must agree with what they replace.
"""

from __future__ import annotations

import gc
import heapq
import random
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kioko
from benchmarks.synthetic import generate_notes
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.linking import links
from kioko_core.linking.scoring import Side, vote
from kioko_core.store import Record, record_copy

USER = "kumar"
NOTES = 200


@pytest.fixture(params=["memory", "sqlite"])
def layers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[MemoryLayer, MemoryLayer]]:
    """Two linking layers over two stores of one kind: one with the record cache, one reading every record."""
    urls = (
        ("memory://", "memory://")
        if request.param == "memory"
        else (f"sqlite:///{tmp_path / 'cached.db'}", f"sqlite:///{tmp_path / 'read.db'}")
    )
    # a small degree cap: most writes drop a link, so the far end of a dropped link is read often
    cached = MemoryLayer(kioko.open_store(urls[0]), auto_link=True, linker={"max_degree": 4})
    uncached = MemoryLayer(kioko.open_store(urls[1]), auto_link=True, linker={"max_degree": 4})
    uncached.index.max_records = 0
    try:
        yield cached, uncached
    finally:
        cached.close()
        uncached.close()


def _workload(layer: MemoryLayer) -> None:
    notes = generate_notes(NOTES, seed=5)
    for number, note in enumerate(notes):
        layer.add(
            note.content,
            id=f"w{number:03d}",
            user_id=USER,
            memory_type=note.memory_type,
            session_id=note.session_id,
            created_at=note.created_at,
        )
        if number == 70:
            layer.update("w012", user_id=USER, content=notes[12].content + " It came back after the restart.")
        if number == 90:
            layer.delete("w030", user_id=USER)


def _stored(layer: MemoryLayer) -> dict[str, tuple[int, list[dict[str, Any]], dict[str, Any]]]:
    """Per memory: its version, its entries in order (without when they were made), its other bookkeeping."""
    found = {}
    for record in layer.memories(user_id=USER):
        entries = [{k: v for k, v in e.items() if k not in ("at", "seen")} for e in links.link_entries(record)]
        rest = {k: v for k, v in (record.system or {}).items() if k not in ("links", "linked_at")}
        found[record.id] = (record.version, entries, rest)
    return found


def test_the_record_cache_changes_no_link_version_or_bookkeeping(layers: tuple[MemoryLayer, MemoryLayer]) -> None:
    cached, uncached = layers
    _workload(cached)
    _workload(uncached)
    with_cache, without = _stored(cached), _stored(uncached)
    assert with_cache == without
    degrees = [len(entries) for _, entries, _ in with_cache.values()]
    assert sum(degrees) > NOTES, "the workload should link most memories, up to the cap"
    assert max(degrees) == 4, "the workload should link most memories, up to the cap"
    assert len(cached.index._scopes[cached._scope(USER, None)].records) > 20, "the cached layer used its cache"
    # and what both wrote is whole: every link has its two halves (the cap drops both, the far one read from the cache)
    halves = {(owner, e["id"], e["type"]) for owner, (_, entries, _) in with_cache.items() for e in entries}
    assert halves
    assert all((other, owner, kind) in halves for owner, other, kind in halves)


def test_a_side_is_made_once_per_record_object_and_never_for_a_copy() -> None:
    record = Record(id="a", user_id=USER, kind="episodic", content="x", terms=["t:pump", "e:line 3", "n:7", "s:1"])
    side = Side.of_stored(record)
    fresh = Side.of(record)
    assert (side.terms, side.entities, side.noun, side.term_set, side.entity_set) == (
        fresh.terms,
        fresh.entities,
        fresh.noun,
        fresh.term_set,
        fresh.entity_set,
    )
    again = Side.of_stored(record)
    assert again.record is record
    assert again.term_set is side.term_set  # derived once, shared by every later use of the record
    for copy in (record.model_copy(update={"terms": ["t:valve"]}), record_copy(record, {"terms": ["t:valve"]})):
        assert copy._side is record._side, "a copy keeps the private attributes"
        assert Side.of_stored(copy).terms == ["t:valve"]


def test_a_record_and_its_side_are_no_cycle() -> None:
    """What of_stored keeps on a record refers to it weakly: a record let go is freed by reference counting, with the
    cycle collector off (an import holds it off between its batches)."""
    record = Record(id="a", user_id=USER, kind="episodic", content="x", terms=["t:pump", "e:line 3"])
    Side.of_stored(record)
    gone = weakref.ref(record)
    was = gc.isenabled()
    gc.disable()
    try:
        del record
        assert gone() is None
    finally:
        if was:
            gc.enable()


def test_record_copy_is_model_copy() -> None:
    record = Record(
        id="a",
        user_id=USER,
        kind="episodic",
        content="Pump 7 leaks",
        metadata={"ticket": 1},
        terms=["t:pump"],
        embedding=np.ones(4, dtype=np.float32),
        system={"links": [{"id": "b", "dir": "out", "type": "follows"}]},
        version=3,
    )
    record._read = ("what the layer read",)
    for update in ({}, {"system": {"links": []}, "version": 4}, {"metadata": {"ticket": 2}, "terms": []}):
        want, got = record.model_copy(update=update), record_copy(record, update)
        assert type(got) is type(want)
        assert got.__dict__ == {**want.__dict__, "embedding": got.embedding}
        assert got.embedding is want.embedding
        assert got.__pydantic_fields_set__ == want.__pydantic_fields_set__
        assert got.__pydantic_private__ == want.__pydantic_private__
        assert got.__pydantic_extra__ == want.__pydantic_extra__
        assert got.__dict__ is not record.__dict__
        assert got.__pydantic_private__ is not record.__pydantic_private__
    assert record.version == 3
    assert record.system == {"links": [{"id": "b", "dir": "out", "type": "follows"}]}


def _vote_before(terms: list[str], postings: dict[str, list[str]], weight: Any, limit: int, exclude: str | None) -> Any:
    """vote as it was: the excluded id tested for every posting."""
    votes: dict[str, float] = {}
    for term in terms:
        value = weight(term)
        for memory_id in postings.get(term, ()):
            if memory_id != exclude:
                votes[memory_id] = votes.get(memory_id, 0.0) + value
    return heapq.nsmallest(limit, votes.items(), key=lambda kv: (-kv[1], kv[0]))


def test_vote_drops_the_excluded_id_as_before() -> None:
    rng = random.Random(7)
    for _ in range(200):
        ids = [f"m{i}" for i in range(rng.randint(1, 30))]
        terms = [f"t:{i}" for i in range(rng.randint(1, 8))]
        postings = {t: rng.sample(ids, rng.randint(0, len(ids))) for t in terms}
        weights = {t: rng.choice([0.5, 1.0, 1.5, rng.random()]) for t in terms}
        exclude = rng.choice([None, *ids])
        limit = rng.randint(1, 10)
        assert vote(terms, postings, weights.__getitem__, limit, exclude=exclude) == _vote_before(
            terms, postings, weights.__getitem__, limit, exclude
        )
