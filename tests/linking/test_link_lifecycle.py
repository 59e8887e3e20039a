"""A link's life: by hand, by the algorithm, fading, pruned, capped, re-derived, moved, taken over, backfilled.

Spec graph-memory sections 2 (authors, storage), 3 (step 7: degree cap; linking never breaks a write),
5 (structure, updates, deletes, merges) and 7 (decay, prune). Every test runs on every store.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from linking_support import (  # noqa: F401  (fixtures are found by name)
    T0,
    QuickStart,
    entries,
    entry_between,
    fresh,
    layer,
    link_triples,
    linking_stores,
    make_layer,
    matrix_store,
    scope_records,
    seed_quickstart,
    store,
    user,
)

from contract_tests.counting import CountingStore, InjectedFailure
from kioko_core.graph.entities import GRAPH_AGENT
from kioko_core.layer.memory_layer import MemoryLayer, MemoryNotFound
from kioko_core.linking import links
from kioko_core.store import Delete, InvalidRecordError, Scope, Store

DAY = 86400.0
RUNBOOK = "https://wiki.example.org/line-3/runbook"


@pytest.fixture
def quick(layer: MemoryLayer, user: str) -> QuickStart:
    return seed_quickstart(layer, user)


def pair_entries(layer: MemoryLayer, a: str, b: str, user: str) -> tuple[list[dict], list[dict]]:
    """Every entry a holds for b and b holds for a (a well-formed pair has exactly one each)."""
    return ([e for e in entries(layer, a, user) if e["id"] == b], [e for e in entries(layer, b, user) if e["id"] == a])


def assert_symmetric(layer: MemoryLayer, user: str) -> None:
    """Every entry has its mirror on the other memory: opposite dir, same type, weight and author."""
    records = {r.id: r for r in scope_records(layer.store, Scope(user))}
    for record in records.values():
        for entry in links.link_entries(record):
            other = records.get(entry["id"])
            assert other is not None, f"{record.id} links to {entry['id']}, which is gone"
            mirror = links.entry_for(other, record.id)
            assert mirror is not None, f"{entry['id']} lacks the other half of {record.id}'s link"
            assert mirror["dir"] != entry["dir"]
            assert (mirror["type"], mirror["w"], mirror["by"]) == (entry["type"], entry["w"], entry["by"])


# --------------------------------------------------------------------------- by hand


def test_a_manual_link_where_a_structural_one_exists_raises_link_conflict(layer: MemoryLayer, user: str) -> None:
    """A sub-goal is already part_of its goal: linking them by hand raises instead of pretending to store."""
    goal = layer.add("Goal: Ship the Kioko memory layer by December 15.", user_id=user, memory_type="goal")
    sub = layer.add(
        "Goal: Finish the pgvector benchmark by November 30.",
        user_id=user,
        memory_type="goal",
        metadata={"parent": goal.id},
    )
    [structural] = layer.graph.links(sub.id, user_id=user)
    assert (structural.source, structural.type, structural.target, structural.by) == (
        sub.id,
        "part_of",
        goal.id,
        "structure",
    )
    before = (entries(layer, sub, user), entries(layer, goal, user))
    for a, b in ((sub.id, goal.id), (goal.id, sub.id)):
        with pytest.raises(links.LinkConflict):
            layer.graph.link(a, b, "related_to", user_id=user)
    assert (entries(layer, sub, user), entries(layer, goal, user)) == before


def test_asking_again_for_an_existing_manual_link_returns_it(layer: MemoryLayer, user: str, quick: QuickStart) -> None:
    """The second call changes nothing and returns the stored link; one entry per side."""
    first = layer.graph.link(
        quick.tea.id, quick.plc.id, "related_to", 0.7, "both came up on the plant tour", user_id=user
    )
    stored = (entries(layer, quick.tea, user), entries(layer, quick.plc, user))
    again = layer.graph.link(
        quick.tea.id, quick.plc.id, "related_to", 0.7, "both came up on the plant tour", user_id=user
    )
    assert (again.source, again.target, again.type, again.weight, again.by, again.at) == (
        first.source,
        first.target,
        first.type,
        first.weight,
        "manual",
        first.at,
    )
    assert (entries(layer, quick.tea, user), entries(layer, quick.plc, user)) == stored
    assert [len(side) for side in pair_entries(layer, quick.tea.id, quick.plc.id, user)] == [1, 1]


def test_a_manual_link_replaces_an_automatic_one(layer: MemoryLayer, user: str, quick: QuickStart) -> None:
    """A person outranks the algorithm: the auto resolves link becomes a manual one on both sides."""
    assert entry_between(layer, quick.fix, quick.fault, user)["by"] == "auto"
    made = layer.graph.link(quick.fix.id, quick.fault.id, "resolves", why="the technician confirmed it", user_id=user)
    assert (made.by, made.weight, made.type) == ("manual", 1.0, "resolves")
    out, into = pair_entries(layer, quick.fix.id, quick.fault.id, user)
    assert len(out) == len(into) == 1
    assert (out[0]["dir"], out[0]["by"], out[0]["why"]) == ("out", "manual", "the technician confirmed it")
    assert (into[0]["dir"], into[0]["by"], into[0]["w"]) == ("in", "manual", 1.0)
    # the algorithm never takes it back: re-deriving the fix's links leaves the person's link alone
    layer.update(quick.fix.id, user_id=user, content="Found it: the encoder cable on line 3 was loose again.")
    assert entry_between(layer, quick.fix, quick.fault, user)["by"] == "manual"
    assert_symmetric(layer, user)


def test_unlink_removes_both_halves(layer: MemoryLayer, user: str, quick: QuickStart) -> None:
    assert layer.graph.unlink(quick.fault.id, quick.fix.id, user_id=user) is True
    assert pair_entries(layer, quick.fix.id, quick.fault.id, user) == ([], [])
    assert layer.graph.unlink(quick.fault.id, quick.fix.id, user_id=user) is False
    assert_symmetric(layer, user)


# --------------------------------------------------------------------------- decay and prune


@pytest.mark.parametrize("by", ["auto", "llm", "feedback"])
def test_automatic_model_and_feedback_links_fade_with_a_180_day_half_life(by: str) -> None:
    """faded weight = w * 0.5 ^ (days since seen / 180)."""
    seen = T0
    for days in (0, 45, 180, 360, 1000):
        expected = 0.8 * 0.5 ** (days / 180)
        assert links.faded_weight(0.8, by, seen, seen + days * DAY) == pytest.approx(expected, rel=1e-12)
    link = links.MemoryLink(source="a", target="b", weight=0.6, by=by, seen=seen)
    assert link.faded(seen + 180 * DAY) == pytest.approx(0.3)


@pytest.mark.parametrize("by", ["manual", "structure"])
def test_manual_and_structural_links_never_fade(by: str) -> None:
    assert links.faded_weight(0.8, by, T0, T0 + 5000 * DAY) == 0.8
    assert links.MemoryLink(source="a", target="b", weight=0.4, by=by, seen=T0).faded(T0 + 5000 * DAY) == 0.4


def test_the_degree_cap_ranks_automatic_links_by_faded_weight_and_ignores_other_authors() -> None:
    """An old strong link that has faded below a fresh weaker one goes first; feedback and manual never count."""
    from kioko_core.store import Record

    now = T0 + 400 * DAY
    stored = [
        {"id": "old-strong", "type": "related_to", "dir": "out", "w": 0.9, "by": "auto", "seen": T0},  # 0.19 now
        {"id": "fresh-weak", "type": "related_to", "dir": "out", "w": 0.4, "by": "auto", "seen": now},
        {"id": "fresh-llm", "type": "related_to", "dir": "in", "w": 0.7, "by": "llm", "seen": now},
        {"id": "feedback", "type": "resolves", "dir": "out", "w": 0.1, "by": "feedback", "seen": T0},
        {"id": "manual", "type": "related_to", "dir": "out", "w": 0.1, "by": "manual", "seen": T0},
    ]
    record = Record(id="m", user_id="u", kind="episodic", metadata={links.BOOKKEEPING: {"links": stored}})
    assert links.weakest_capped(record, 3, now, 180.0) == []
    assert links.weakest_capped(record, 2, now, 180.0) == ["old-strong"]
    assert links.weakest_capped(record, 1, now, 180.0) == ["old-strong", "fresh-weak"]


def test_prune_removes_links_faded_below_a_tenth_and_keeps_manual_and_structural(
    layer: MemoryLayer, user: str, quick: QuickStart
) -> None:
    """After 300 days every auto link still weighs >= 0.1; after 600 none does. Manual and structure stay."""
    sub = layer.add(
        "Goal: Finish the pgvector benchmark by November 30.",
        user_id=user,
        memory_type="goal",
        metadata={"parent": quick.goal.id},
    )
    layer.graph.link(quick.tea.id, quick.plc.id, "related_to", 0.3, user_id=user)
    auto = {(s, d) for s, t, d in link_triples(scope_records(layer.store, Scope(user)))} - {
        (quick.tea.id, quick.plc.id),
        (sub.id, quick.goal.id),
    }
    assert len(auto) == 6
    now = time.time()
    assert layer.graph.prune(user_id=user, now=now + 300 * DAY) == 0
    assert layer.graph.prune(user_id=user, now=now + 600 * DAY) == 6
    left = link_triples(scope_records(layer.store, Scope(user)))
    assert left == {(quick.tea.id, "related_to", quick.plc.id), (sub.id, "part_of", quick.goal.id)}
    assert_symmetric(layer, user)


def test_prune_removes_links_to_memories_deleted_behind_the_layers_back(
    layer: MemoryLayer, user: str, quick: QuickStart
) -> None:
    """A raw store delete leaves dangling entries: links() skips them, prune() removes them."""
    layer.store.update_many([Delete(id=quick.fault.id, scope=Scope(user))])
    for neighbour in (quick.fix, quick.jam):
        assert quick.fault.id in {e["id"] for e in entries(layer, neighbour, user)}  # still there, dangling
        assert quick.fault.id not in {k.source for k in layer.graph.links(neighbour.id, user_id=user)} | {
            k.target for k in layer.graph.links(neighbour.id, user_id=user)
        }
    assert layer.graph.prune(user_id=user) == 2
    for neighbour in (quick.fix, quick.jam):
        assert quick.fault.id not in {e["id"] for e in entries(layer, neighbour, user)}
    assert_symmetric(layer, user)
    assert layer.graph.prune(user_id=user) == 0


# --------------------------------------------------------------------------- the degree cap


PUMP = "Pump 7 leaks coolant near the E-41 valve."
PUMP_NOTES = [
    "The E-41 valve on pump 7 was replaced in May.",  # a strong link to PUMP
    "Coolant pump 7 pressure dropped below spec.",  # the weakest of the three
    "Pump 7 coolant leak traced to the E-41 valve seal.",  # the strongest
]


def capped(layer: MemoryLayer, memory_id: str, user: str) -> dict[str, float]:
    return {e["id"]: e["w"] for e in links.capped_entries(fresh(layer, memory_id, user))}


def test_the_degree_cap_lets_the_weakest_automatic_link_go_on_both_sides(
    make_layer: Callable[..., MemoryLayer], user: str
) -> None:
    """max_degree 2: the third link to the pump note pushes out the weakest of the three, from both memories."""
    layer = make_layer(linker={"max_degree": 2})
    pump = layer.add(PUMP, user_id=user, memory_type="episodic")
    notes = [layer.add(text, user_id=user, memory_type="factual") for text in PUMP_NOTES]
    weights = {n.id: layer.graph.explain(pump.id, n.id, user_id=user).score for n in notes}
    kept = capped(layer, pump.id, user)
    assert len(kept) == 2
    weakest = min(weights, key=weights.get)
    assert weakest == notes[1].id
    assert set(kept) == {notes[0].id, notes[2].id}
    assert pump.id not in capped(layer, weakest, user)  # gone on the far side as well
    assert_symmetric(layer, user)


def test_a_new_link_weaker_than_a_full_memorys_links_is_not_stored(
    make_layer: Callable[..., MemoryLayer], user: str
) -> None:
    """The new link is ranked with the old ones: when it is the weakest it is the one left out, on both sides."""
    layer = make_layer(linker={"max_degree": 2})
    pump = layer.add(PUMP, user_id=user, memory_type="episodic")
    strong = [layer.add(PUMP_NOTES[i], user_id=user, memory_type="factual") for i in (0, 2)]
    before = capped(layer, pump.id, user)
    assert set(before) == {s.id for s in strong}
    weak = layer.add(PUMP_NOTES[1], user_id=user, memory_type="factual")
    assert capped(layer, pump.id, user) == before
    assert pump.id not in capped(layer, weak.id, user)
    assert_symmetric(layer, user)


def test_a_new_memory_itself_keeps_at_most_max_degree_automatic_links(
    make_layer: Callable[..., MemoryLayer], user: str
) -> None:
    """The cap holds for the memory being written too, when more than max_degree candidates pass the gate."""
    layer = make_layer(linker={"max_degree": 3})
    for i in range(6):
        layer.add(f"Pump 7 leaks coolant near the E-41 valve, report {i}.", user_id=user, memory_type="episodic")
    newest = layer.add("The E-41 valve on pump 7 leaks coolant again.", user_id=user, memory_type="episodic")
    assert len(capped(layer, newest.id, user)) == 3
    for record in scope_records(layer.store, Scope(user)):
        assert len(links.capped_entries(record)) <= 3
    assert_symmetric(layer, user)


def test_manual_and_structural_links_do_not_count_towards_the_cap(
    make_layer: Callable[..., MemoryLayer], user: str
) -> None:
    layer = make_layer(linker={"max_degree": 1})
    pump = layer.add(PUMP, user_id=user, memory_type="episodic")
    others = [
        layer.add(f"Maintenance note {i} for the east hall.", user_id=user, memory_type="factual") for i in range(3)
    ]
    for other in others:
        layer.graph.link(pump.id, other.id, "related_to", user_id=user)
    note = layer.add(PUMP_NOTES[0], user_id=user, memory_type="factual")
    assert capped(layer, pump.id, user) == {note.id: pytest.approx(capped(layer, note.id, user)[pump.id])}
    assert {e["id"] for e in entries(layer, pump, user) if e["by"] == "manual"} == {o.id for o in others}


# --------------------------------------------------------------------------- updates


def test_new_content_re_derives_links_and_replaces_term_statistics(layer: MemoryLayer, user: str) -> None:
    """A memory that no longer mentions DB-17 loses its DB-17 link and is no longer found through DB-17."""
    scope = Scope(user)
    lag = layer.add("DB-17 replica lag spiked during the nightly backup.", user_id=user, memory_type="episodic")
    again = layer.add("Replica lag on DB-17 during the nightly backup again.", user_id=user, memory_type="episodic")
    assert entry_between(layer, again, lag, user) is not None
    layer.update(lag.id, user_id=user, content="The quarterly report job finished early.")
    assert pair_entries(layer, lag.id, again.id, user) == ([], [])
    assert links.entities_of(fresh(layer, lag, user)) == []
    postings = layer.store.postings(scope, ["e:db-17", "t:replica"], 10)
    assert postings.ids == {"e:db-17": [again.id], "t:replica": [again.id]}
    assert postings.df == {"e:db-17": 1, "t:replica": 1}
    _, df, ids = layer.index.lookup(scope, ["e:db-17"], 10)  # the write path's cached view agrees
    assert (df, ids) == ({"e:db-17": 1}, {"e:db-17": [again.id]})
    third = layer.add("DB-17 replica lag alarm fired during the backup.", user_id=user, memory_type="episodic")
    linked = {e["id"] for e in entries(layer, third, user)}
    assert again.id in linked
    assert lag.id not in linked
    assert_symmetric(layer, user)


def test_an_edit_keeps_links_made_by_a_person(layer: MemoryLayer, user: str, quick: QuickStart) -> None:
    layer.graph.link(quick.tea.id, quick.plc.id, "related_to", user_id=user)
    layer.update(quick.tea.id, user_id=user, content="User likes jasmine tea in the afternoon.")
    assert entry_between(layer, quick.tea, quick.plc, user)["by"] == "manual"
    assert_symmetric(layer, user)


def test_a_metadata_only_change_adds_a_structural_link(layer: MemoryLayer, user: str) -> None:
    """Giving a goal a parent later makes it part_of that goal."""
    goal = layer.add("Goal: Ship the Kioko memory layer by December 15.", user_id=user, memory_type="goal")
    sub = layer.add("Goal: Write the migration guide for early users.", user_id=user, memory_type="goal")
    assert entry_between(layer, sub, goal, user) is None
    layer.update(sub.id, user_id=user, metadata={"parent": goal.id})
    entry = entry_between(layer, sub, goal, user)
    assert (entry["type"], entry["dir"], entry["by"]) == ("part_of", "out", "structure")
    assert_symmetric(layer, user)


# --------------------------------------------------------------------------- deletes and merges


def test_delete_removes_the_memory_from_its_neighbours_lists(layer: MemoryLayer, user: str, quick: QuickStart) -> None:
    neighbours = {e["id"] for e in entries(layer, quick.jam, user)}
    assert neighbours == {quick.fault.id, quick.fix.id, quick.procedure.id}
    assert layer.delete(quick.jam.id, user_id=user) is True
    for neighbour in neighbours:
        assert quick.jam.id not in {e["id"] for e in entries(layer, neighbour, user)}
    with pytest.raises(MemoryNotFound):
        layer.get(quick.jam.id, user_id=user)
    assert layer.delete(quick.jam.id, user_id=user) is False
    assert_symmetric(layer, user)


def test_merge_moves_the_duplicates_links_to_the_survivor(layer: MemoryLayer, user: str, quick: QuickStart) -> None:
    """Consolidation merges a near-duplicate into an older memory; the links follow, same type and direction."""
    duplicate = layer.add(
        "Found it: a loose encoder cable on line 3 caused the E-217 faults.",
        user_id=user,
        memory_type="episodic",
        session_id="s1",
        created_at=T0 + 230,
    )
    layer.graph.link(duplicate.id, quick.plc.id, "related_to", why="the encoder sits on the PLC network", user_id=user)
    moved = [e for e in entries(layer, duplicate, user) if e["id"] != quick.fix.id]
    assert moved, "the duplicate should have links of its own to move"
    survivor = layer.graph.merge(duplicate.id, quick.fix.id, user_id=user)
    assert survivor.id == quick.fix.id
    with pytest.raises(MemoryNotFound):
        layer.get(duplicate.id, user_id=user)
    for entry in moved:
        mine = entry_between(layer, quick.fix, entry["id"], user)
        assert mine is not None, f"the link to {entry['id']} did not move"
        if links.author_rank(entry["by"]) <= links.author_rank(mine["by"]):
            assert (mine["type"], mine["dir"], mine["by"]) == (entry["type"], entry["dir"], entry["by"])
        assert duplicate.id not in {e["id"] for e in entries(layer, entry["id"], user)}
    manual = entry_between(layer, quick.fix, quick.plc, user)
    assert (manual["by"], manual["why"]) == ("manual", "the encoder sits on the PLC network")
    assert_symmetric(layer, user)


def test_a_memory_cannot_be_merged_into_itself(layer: MemoryLayer, user: str, quick: QuickStart) -> None:
    with pytest.raises(InvalidRecordError):
        layer.graph.merge(quick.fix.id, quick.fix.id, user_id=user)
    assert layer.get(quick.fix.id, user_id=user).content == quick.fix.content
    assert {e["id"] for e in entries(layer, quick.fix, user)} == {quick.fault.id, quick.jam.id}


def test_merge_keeps_the_survivor_within_the_degree_cap(make_layer: Callable[..., MemoryLayer], user: str) -> None:
    """Moved links count towards the cap: the weakest give way on both sides."""
    layer = make_layer(linker={"max_degree": 2})
    notes = [
        layer.add("Line 3 keeps faulting with error E-217.", user_id=user, memory_type="episodic", id=f"{user}-n{i}")
        for i in range(6)
    ]  # fixed ids: equal weights tie-break by id
    duplicate, survivor = notes[0], notes[3]
    layer.graph.merge(duplicate.id, survivor.id, user_id=user)
    for record in scope_records(layer.store, Scope(user)):
        assert len(links.capped_entries(record)) <= 2
    assert_symmetric(layer, user)


# --------------------------------------------------------------------------- supersede and takeover


@pytest.fixture
def decisions(layer: MemoryLayer, user: str) -> dict[str, str]:
    """A goal, the decision serving it (via Kioko uses pgvector) and a benchmark that informs the decision."""
    goal = layer.add("Goal: Ship the Kioko memory layer by December 15.", user_id=user, memory_type="goal")
    layer.graph.add("Kioko", "uses", "pgvector", user_id=user)
    old = layer.add(
        "Decision: Vector database - chose pgvector because we already run Postgres.",
        user_id=user,
        memory_type="decision",
    )
    bench = layer.add(
        "Benchmark: pgvector with HNSW answered vector queries in 12 ms on Postgres 17.",
        user_id=user,
        memory_type="semantic",
    )
    return {"goal": goal.id, "old": old.id, "bench": bench.id}


def test_supersede_takes_over_the_old_decisions_links_at_90_percent(
    layer: MemoryLayer, user: str, decisions: dict[str, str]
) -> None:
    """The new decision gets the goal and the benchmark, weight * 0.9, marked from; the old keeps only supersedes."""
    old = decisions["old"]
    before = {e["id"]: e for e in entries(layer, old, user)}
    assert set(before) == {decisions["goal"], decisions["bench"]}
    assert all(e["by"] == "auto" for e in before.values())
    new = layer.add(
        "Decision: move the embeddings to Qdrant next quarter.",
        user_id=user,
        memory_type="decision",
        metadata={"supersedes": old},
    )
    taken = {e["id"]: e for e in entries(layer, new, user) if e["id"] != old}
    assert set(taken) == set(before)
    for other, entry in taken.items():
        assert entry["w"] == pytest.approx(round(0.9 * before[other]["w"], 4))
        assert (entry["type"], entry["dir"], entry["by"], entry["from"]) == (
            before[other]["type"],
            before[other]["dir"],
            "auto",
            old,
        )
        assert entry["why"] == f"taken over from the decision it replaced ({before[other]['why']})"
    serves = entry_between(layer, new.id, decisions["goal"], user)
    assert (serves["type"], serves["dir"], serves["w"]) == ("serves", "out", 0.54)
    [kept] = entries(layer, old, user)
    assert (kept["id"], kept["type"], kept["dir"], kept["by"]) == (new.id, "supersedes", "in", "structure")
    assert fresh(layer, old, user).metadata["superseded_by"] == new.id
    assert {e["id"] for e in entries(layer, decisions["goal"], user)} == {new.id}
    by_ends = {(k.source, k.type, k.target): k for k in layer.graph.links(new.id, user_id=user)}
    assert by_ends[(new.id, "serves", decisions["goal"])].taken_from == old
    assert_symmetric(layer, user)


def test_a_new_decision_that_found_the_goal_itself_just_drops_the_old_link(layer: MemoryLayer, user: str) -> None:
    goal = layer.add("Goal: Ship the Kioko memory layer by December 15.", user_id=user, memory_type="goal")
    layer.graph.add("Kioko", "uses", "pgvector", user_id=user)
    old = layer.add(
        "Decision: Vector database - chose pgvector because we already run Postgres.",
        user_id=user,
        memory_type="decision",
    )
    new = layer.add(
        "Decision: switch the vector store to Qdrant because pgvector is too slow for Kioko.",
        user_id=user,
        memory_type="decision",
        metadata={"supersedes": old.id},
    )
    [to_goal] = [e for e in entries(layer, new, user) if e["id"] == goal.id]
    assert to_goal["by"] == "auto"  # its own link, not a copy
    assert "from" not in to_goal
    assert [e["id"] for e in entries(layer, goal, user)] == [new.id]
    assert [(e["type"], e["by"]) for e in entries(layer, old, user)] == [("supersedes", "structure")]
    assert_symmetric(layer, user)


def test_links_a_person_made_stay_on_the_old_decision_and_are_copied(
    layer: MemoryLayer, user: str, decisions: dict[str, str]
) -> None:
    note = layer.add(
        "Note from the architecture review on the vector database choice.", user_id=user, memory_type="semantic"
    )
    layer.graph.link(note.id, decisions["old"], "informs", 0.9, "the review weighed it", user_id=user)
    new = layer.add(
        "Decision: move the embeddings to Qdrant next quarter.",
        user_id=user,
        memory_type="decision",
        metadata={"supersedes": decisions["old"]},
    )
    on_old = entry_between(layer, decisions["old"], note.id, user)
    on_new = entry_between(layer, new.id, note.id, user)
    assert (on_old["by"], on_old["w"]) == ("manual", 0.9)
    assert (on_new["by"], on_new["type"], on_new["dir"], on_new["from"]) == (
        "manual",
        "informs",
        "in",
        decisions["old"],
    )
    assert {(e["type"], e["by"]) for e in entries(layer, decisions["old"], user)} == {
        ("supersedes", "structure"),
        ("informs", "manual"),
    }
    assert_symmetric(layer, user)


def test_taken_over_links_survive_an_edit_and_a_rebuild(
    layer: MemoryLayer, user: str, decisions: dict[str, str]
) -> None:
    new = layer.add(
        "Decision: move the embeddings to Qdrant next quarter.",
        user_id=user,
        memory_type="decision",
        metadata={"supersedes": decisions["old"]},
    )
    taken = {e["id"]: e for e in entries(layer, new, user) if e.get("from")}
    assert set(taken) == {decisions["goal"], decisions["bench"]}
    layer.update(new.id, user_id=user, content="Decision: move the embeddings to Qdrant in January.")
    assert {e["id"]: e for e in entries(layer, new, user) if e.get("from")} == taken
    layer.graph.connect(user_id=user, rebuild=True)
    assert {e["id"]: e for e in entries(layer, new, user) if e.get("from")} == taken
    assert [(e["type"], e["by"]) for e in entries(layer, decisions["old"], user)] == [("supersedes", "structure")]
    assert_symmetric(layer, user)


def test_a_taken_over_link_someone_removed_stays_removed(
    layer: MemoryLayer, user: str, decisions: dict[str, str]
) -> None:
    """The takeover happens once per replacement: an edit or a rebuild does not bring an unlinked goal back."""
    new = layer.add(
        "Decision: move the embeddings to Qdrant next quarter.",
        user_id=user,
        memory_type="decision",
        metadata={"supersedes": decisions["old"]},
    )
    assert layer.graph.unlink(new.id, decisions["goal"], user_id=user)
    layer.update(new.id, user_id=user, content="Decision: move the embeddings to Qdrant in January.")
    layer.update(new.id, user_id=user, metadata={"owner": "platform team"})
    layer.graph.connect(user_id=user, rebuild=True)
    assert entry_between(layer, new, decisions["goal"], user) is None
    assert entry_between(layer, decisions["old"], decisions["goal"], user) is None
    assert_symmetric(layer, user)


def test_a_replaced_decision_is_never_a_candidate_again(
    layer: MemoryLayer, user: str, decisions: dict[str, str]
) -> None:
    layer.add(
        "Decision: move the embeddings to Qdrant next quarter.",
        user_id=user,
        memory_type="decision",
        metadata={"supersedes": decisions["old"]},
    )
    echo = layer.add(
        "We chose pgvector for the vector database because we already run Postgres.",
        user_id=user,
        memory_type="semantic",
    )
    assert decisions["old"] not in {e["id"] for e in entries(layer, echo, user)}
    assert [e["type"] for e in entries(layer, decisions["old"], user)] == ["supersedes"]


def test_a_superseded_decisions_backfill_links_go_to_the_newest_decision(
    make_layer: Callable[..., MemoryLayer], user: str
) -> None:
    """Written before linking was on, then replaced: what connect() finds for the old decision is linked to the
    decision that replaced it, marked ``from`` the old one, never to the old one (spec section 5)."""
    unlinked = make_layer(auto_link=False)
    goal = unlinked.add("Goal: Ship the Kioko memory layer by December 15.", user_id=user, memory_type="goal")
    unlinked.graph.add("Kioko", "uses", "pgvector", user_id=user)
    old = unlinked.add(
        "Decision: Vector database - chose pgvector because we already run Postgres.",
        user_id=user,
        memory_type="decision",
    )
    linking = make_layer()
    new = linking.add(
        "Decision: move the embeddings to Qdrant next quarter.",
        user_id=user,
        memory_type="decision",
        metadata={"supersedes": old.id},
    )
    linking.graph.connect(user_id=user)
    assert [(e["id"], e["type"]) for e in entries(linking, old, user)] == [(new.id, "supersedes")]
    assert old.id not in {e["id"] for e in entries(linking, goal, user)}
    on_goal = entry_between(linking, goal, new, user)
    assert on_goal is not None
    assert on_goal["type"] == "serves"
    assert on_goal["dir"] == "in"
    assert on_goal["from"] == old.id
    assert on_goal["why"] == "via Kioko uses pgvector"
    assert entry_between(linking, new, goal, user)["from"] == old.id
    assert_symmetric(linking, user)


# --------------------------------------------------------------------------- backfill


def test_connect_backfills_memories_written_without_linking(make_layer: Callable[..., MemoryLayer], user: str) -> None:
    """connect() links what auto_link=False stored, reports progress, honours limit, and sets linked_at."""
    quick = seed_quickstart(make_layer(auto_link=False), user)
    linking = make_layer()
    seen: list[tuple[int, int]] = []
    first = linking.graph.connect(user_id=user, limit=4, progress=lambda done, total: seen.append((done, total)))
    assert first.memories == 4
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert isinstance(first.duration_ms, float)
    assert first.duration_ms >= 0
    rest = linking.graph.connect(user_id=user)
    assert rest.memories == 5
    assert all(isinstance(links.linked_at(fresh(linking, r, user)), float) for r in quick.named().values())
    assert (quick.fix.id, "resolves", quick.fault.id) in link_triples(scope_records(linking.store, Scope(user)))
    assert_symmetric(linking, user)


# --------------------------------------------------------------------------- foreign entries, failures, scopes


def test_entries_that_are_not_link_dicts_are_left_alone(layer: MemoryLayer, user: str, quick: QuickStart) -> None:
    """A user's own "links": ["https://..."] survives linking, manual links, deletes, merges, prune and edits."""
    own = layer.add(
        "Clear a conveyor jam on line 3: press stop, open the guard, remove the bottle, reset the drive.",
        user_id=user,
        memory_type="procedural",
        metadata={"links": [RUNBOOK, {"note": "not a link"}]},
    )
    foreign = lambda: [e for e in fresh(layer, own, user).metadata["links"] if not links.is_link_entry(e)]  # noqa: E731
    assert foreign() == [RUNBOOK, {"note": "not a link"}]
    assert entries(layer, own, user), "the procedure should have been linked"
    layer.graph.link(own.id, quick.tea.id, "related_to", user_id=user)
    layer.graph.unlink(own.id, quick.tea.id, user_id=user)
    layer.delete(quick.jam.id, user_id=user)
    layer.graph.merge(quick.procedure.id, own.id, user_id=user)
    layer.store.update_many([Delete(id=quick.lesson.id, scope=Scope(user))])
    layer.graph.prune(user_id=user)
    layer.update(own.id, user_id=user, content="Clear a conveyor jam on line 3: stop, open, remove, reset the drive.")
    assert foreign() == [RUNBOOK, {"note": "not a link"}]
    assert_symmetric(layer, user)


def test_an_entity_graph_failure_never_breaks_a_write(store: Store, user: str) -> None:
    """The entity graph's index fails on every call: add and update still store the memory."""
    broken = CountingStore(
        store, fail_when=lambda method, args: method == "postings" and args[0].agent_id == GRAPH_AGENT
    )
    layer = MemoryLayer(broken, auto_link=True)
    fault = layer.add("Line 3 keeps faulting with error E-217.", user_id=user, memory_type="episodic", session_id="s1")
    assert layer.get(fault.id, user_id=user).content == "Line 3 keeps faulting with error E-217."
    fix = layer.add(
        "Found it: the encoder cable on line 3 was loose.", user_id=user, memory_type="episodic", session_id="s1"
    )
    layer.update(fix.id, user_id=user, content="Found it: the encoder cable on line 3 was loose; reseated it.")
    assert layer.get(fix.id, user_id=user).content.endswith("reseated it.")
    with pytest.raises(InjectedFailure):  # the failure was real: the graph itself does raise
        layer.graph.relations("line 3", user_id=user)
    assert_symmetric(layer, user)


def test_a_failing_link_write_stores_the_memory_without_links_and_connect_links_it_later(
    store: Store, user: str
) -> None:
    """The linker cannot read its candidates: the memory is stored unlinked, and connect() links it later."""
    failing = {"on": True}
    wrapped = CountingStore(
        store, fail_when=lambda method, args: failing["on"] and method == "get" and args[0] == Scope(user)
    )
    layer = MemoryLayer(wrapped, auto_link=True)
    fault = layer.add("Line 3 keeps faulting with error E-217.", user_id=user, memory_type="episodic", session_id="s1")
    fix = layer.add(
        "Found it: the encoder cable on line 3 was loose.", user_id=user, memory_type="episodic", session_id="s1"
    )
    assert wrapped.calls["get"] >= 1  # the failure did happen, on the second write's candidate read
    failing["on"] = False
    stored = layer.get(fix.id, user_id=user)
    assert stored.content == "Found it: the encoder cable on line 3 was loose."
    assert links.link_entries(stored) == []
    assert links.linked_at(stored) is None
    report = layer.graph.connect(user_id=user)
    assert report.memories == 1
    assert entry_between(layer, fix, fault, user)["type"] == "resolves"
    assert_symmetric(layer, user)


def test_no_link_crosses_users_or_agents(layer: MemoryLayer, user: str) -> None:
    """The same words in another user's and another agent's memories never join them."""
    texts = ["Line 3 keeps faulting with error E-217.", "Found it: the encoder cable on line 3 was loose."]
    scopes = [(user, None), (user + "-other", None), (user, "planner")]
    written = {
        scope: [
            layer.add(t, user_id=scope[0], agent_id=scope[1], memory_type="episodic", session_id="s1") for t in texts
        ]
        for scope in scopes
    }
    for (u, agent), records in written.items():
        own = {r.id for r in records}
        for record in records:
            linked = {e["id"] for e in entries(layer, record, u, agent)}
            assert linked
            assert linked <= own


CONCURRENT_NOTES = [
    ("episodic", "Line 3 keeps faulting with error E-217."),
    ("episodic", "Found it: the encoder cable on line 3 was loose."),
    ("episodic", "The line 3 conveyor jammed twice this morning."),
    ("procedural", "Clear a conveyor jam on line 3: press stop, open the guard, remove the bottle, reset the drive."),
    ("strategy", "For clearing conveyor jams: reset the drive before reopening the guard."),
    ("episodic", "Pump 7 leaks coolant near the E-41 valve."),
    ("episodic", "Replaced the E-41 valve seal on pump 7; the leak stopped."),
]


def test_concurrent_writers_keep_both_halves_of_every_link(store: Store, user: str) -> None:
    """Three layers write into one scope at once: version checks and retries keep adjacency whole."""
    failures: list[BaseException] = []

    def writer(offset: int) -> None:
        layer = MemoryLayer(store, auto_link=True, linker={"max_degree": 4})
        try:
            for i in range(12):
                kind, text = CONCURRENT_NOTES[(i + offset) % len(CONCURRENT_NOTES)]
                # each text once per writer and round: the same text again would return the stored memory
                layer.add(f"{text} (report {offset}.{i})", user_id=user, memory_type=kind, session_id=f"s{i % 2}")
        except BaseException as error:  # reported below: a thread's exception is otherwise lost
            failures.append(error)

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    layer = MemoryLayer(store, auto_link=True)
    records = scope_records(store, Scope(user))
    assert len(records) == 36
    assert link_triples(records), "the writers should have linked something"
    for record in records:
        assert len(links.capped_entries(record)) <= 4
    assert_symmetric(layer, user)


def test_a_metadata_update_that_sets_own_links_keeps_the_link_entries(
    layer: MemoryLayer, user: str, quick: QuickStart
) -> None:
    """A caller's own "links" key is the caller's data, stored as given; the layer's link entries stay as they were."""
    before = entries(layer, quick.fix, user)
    layer.update(quick.fix.id, user_id=user, metadata={"links": [RUNBOOK]})
    stored = fresh(layer, quick.fix, user).metadata["links"]
    assert stored == [RUNBOOK]
    assert entries(layer, quick.fix, user) == before
    assert_symmetric(layer, user)


def test_a_link_a_person_removed_is_not_made_again(layer: MemoryLayer, user: str, quick: QuickStart) -> None:
    """unlink() is remembered: a rebuild does not bring the automatic link back; a manual link() may."""
    assert layer.graph.unlink(quick.fix.id, quick.fault.id, user_id=user)
    layer.graph.connect(user_id=user, rebuild=True)
    layer.update(quick.fix.id, user_id=user, content="Found it: the encoder cable on line 3 was loose again.")
    assert entry_between(layer, quick.fix, quick.fault, user) is None
    assert entry_between(layer, quick.fault, quick.fix, user) is None
    layer.graph.link(quick.fix.id, quick.fault.id, "resolves", user_id=user)
    assert entry_between(layer, quick.fix, quick.fault, user)["by"] == "manual"
    assert not links.was_unlinked(fresh(layer, quick.fix, user), quick.fault.id)
    assert_symmetric(layer, user)
