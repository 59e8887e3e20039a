"""The linker's record cache (IndexCache.records): candidates read once, kept as the store holds them.

A linked write reads the same recent memories again and again (a session's turns, a topic's newest
holders). The cache keeps them between writes on a store that counts its writes per scope
(ScopeGenerations: memory://, SQLite and PostgreSQL), so a write the cache did not make itself empties the scope.
These tests check that what the cache hands out is what the store holds, and that another layer's
write (its own cache, same store) is seen by the next linked write.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from linking_support import T0

import kioko
from contract_tests.counting import CountingStore
from contract_tests.support import make_record
from kioko_backends.memory import MemoryStore
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.linking import links
from kioko_core.linking.index import IndexCache
from kioko_core.store import Scope, ScopeGenerations, Store, Upsert

TURNS = (
    "The line 3 conveyor jammed twice this morning.",
    "Line 3 keeps faulting with error E-217.",
    "Found it: the encoder cable on line 3 was loose.",
    "Pump 7 leaks coolant near the E-41 valve.",
    "Replaced the E-41 valve seal on pump 7; the leak stopped.",
    "Error E-217 came back on line 3 after lunch.",
    "The encoder cable on line 3 is loose again; reseated it.",
    "Pump 7 coolant leak is back near the E-41 valve.",
)


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def counted_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A fresh store of each kind that counts its writes per scope (PostgreSQL: tables of the test's own)."""
    if request.param == "postgresql":
        server = request.getfixturevalue("postgresql_store_url")
        url = f"{server}{'&' if '?' in server else '?'}table=cache_{uuid.uuid4().hex[:8]}"
    else:
        url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'cache.db'}"
    with kioko.open_store(url) as store:
        assert isinstance(store, ScopeGenerations)
        yield store


def test_the_memory_store_counts_committed_batches_per_scope() -> None:
    store = MemoryStore()
    layer = MemoryLayer(store)
    mine, other = Scope("kumar", None), Scope("ravi", None)
    record = layer.add("Line 3 keeps faulting with error E-217.", user_id="kumar")
    layer.update(record.id, user_id="kumar", metadata={"seen": 1})
    assert (store.generation(mine), store.generation(other)) == (2, 0)
    layer.delete(record.id, user_id="kumar")
    assert store.generation(mine) == 3
    layer.delete(record.id, user_id="kumar")  # nothing left to delete: no batch, no count
    assert store.generation(mine) == 3


def test_cached_records_are_the_stored_ones_after_links_deletes_and_hand_links(counted_store: Store) -> None:
    user = "cache-" + uuid.uuid4().hex[:8]
    layer = MemoryLayer(counted_store, auto_link=True)
    scope = Scope(user, None)
    written = [
        layer.add(text, user_id=user, memory_type="episodic", session_id="s1", created_at=T0 + 60 * i)
        for i, text in enumerate(TURNS)
    ]

    def check() -> int:
        """Every record the cache holds for the scope equals the store's copy (as the layer reads it: links and
        entities in ``system``); the number checked."""
        held = layer.index._scopes.get(scope)
        cached = dict(held.records) if held is not None else {}
        for record_id, record in cached.items():
            stored = layer.store.get(scope, [record_id])[0]
            assert stored is not None, record_id
            assert stored.model_dump(exclude={"embedding"}) == record.model_dump(exclude={"embedding"}), record_id
            assert stored.embedding is not None
            assert record.embedding is not None
            assert stored.embedding.tolist() == record.embedding.tolist()
        return len(cached)

    assert check() > 0  # the neighbours of the last writes are held
    layer.delete(written[1].id, user_id=user)  # its neighbours drop their links to it
    check()
    layer.graph.link(written[0].id, written[3].id, user_id=user)
    layer.index.lookup(scope, ["t:line"])  # a linked write starts with a lookup: the hand link is seen there
    check()
    follow_up = layer.add(TURNS[1], user_id=user, memory_type="episodic", session_id="s1", created_at=T0 + 900)
    check()
    assert written[1].id not in {e["id"] for e in links.link_entries(layer.get(follow_up.id, user_id=user))}


def test_another_layers_change_is_seen_by_the_next_linked_write(counted_store: Store) -> None:
    """Layer A has read a memory as a candidate; layer B (its own cache) rewrites it to be about A's next
    topic; A's next memory on that topic links to it at once."""
    user = "cache-" + uuid.uuid4().hex[:8]
    a, b = MemoryLayer(counted_store, auto_link=True), MemoryLayer(counted_store, auto_link=True)
    tea = a.add("Bought green tea for the office kitchen.", user_id=user, memory_type="episodic", session_id="s1")
    a.add("The kettle in the office kitchen is broken.", user_id=user, memory_type="episodic", session_id="s1")
    held = a.index._scopes[Scope(user, None)].records
    assert tea.id in held  # read as the session's earlier turn: now in A's cache
    b.update(tea.id, user_id=user, content="Pump 7 leaks coolant near the E-41 valve.")
    later = a.add(
        "Pump 7 coolant leak near the E-41 valve is worse today.",
        user_id=user,
        memory_type="episodic",
        session_id="s2",
        created_at=T0,
    )
    linked = {e["id"] for e in links.link_entries(a.get(later.id, user_id=user))}
    assert tea.id in linked


def test_an_empty_scope_answers_from_the_cache_until_a_write_fills_it(counted_store: Store) -> None:
    """The shared knowledge base of most users is empty and every linked write asks it: once the cache knows
    the scope has nothing indexed, it answers df 0 without a postings call, and a write seen by the cache,
    or made by another layer (the scope's generation moves), is found at the next lookup."""
    shared = Scope(links.SHARED_USER, None)
    counting = CountingStore(counted_store, generations=True)
    cache = IndexCache(counting)
    assert cache.lookup(shared, ["t:pump", "t:valve"], 10) == (
        0,
        {"t:pump": 0, "t:valve": 0},
        {"t:pump": [], "t:valve": []},
    )
    assert counting.calls["postings"] == 1
    assert cache.lookup(shared, ["t:seal"], 10) == (0, {"t:seal": 0}, {"t:seal": []})
    assert counting.calls["postings"] == 1  # known empty: no call

    other = MemoryLayer(counted_store)  # its own cache: this one learns of the write from the generation
    fact = other.add("Pump 7 leaks coolant near the E-41 valve.", user_id=links.SHARED_USER, memory_type="factual")
    n, df, ids = cache.lookup(shared, ["t:pump", "t:seal"], 10)
    assert counting.calls["postings"] == 2
    assert n == 1
    assert df["t:pump"] == 1
    assert ids["t:pump"] == [fact.id]
    assert df["t:seal"] == 0

    mine = Scope("empty-" + uuid.uuid4().hex[:8], None)
    assert cache.lookup(mine, ["t:pump"], 10)[0] == 0
    record = make_record(mine, terms=["t:pump"])
    stored = counted_store.update_many([Upsert(record=record)])[0]
    assert stored is not None
    cache.record_write(mine, stored.id, [], stored.terms)  # a write the cache makes itself
    assert cache.lookup(mine, ["t:pump"], 10) == (1, {"t:pump": 1}, {"t:pump": [stored.id]})
