"""The entity graph: triples per user with temporal validity, read through postings and get only.

Every test takes the ``store`` fixture, defined here for memory:// (the reference store); another
store runs the same tests by overriding that fixture.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from contract_tests.counting import CountingStore
from kioko_backends.memory import MemoryStore
from kioko_core.graph.entities import (
    GRAPH_AGENT,
    SINGLE_VALUED,
    EntityGraph,
    Triple,
    entity_key,
    relation_key,
)
from kioko_core.store import InvalidRecordError, Scope, Store

U = "kumar"


@pytest.fixture
def store() -> Iterator[Store]:
    """A fresh reference store per test."""
    opened = MemoryStore()
    yield opened
    opened.close()


@pytest.fixture
def graph(store: Store) -> EntityGraph:
    return EntityGraph(store)


def before_first_write(racing: Callable[[], object]) -> Callable[[str, tuple], None]:
    """A CountingStore hook: ``racing`` runs once, just before the first update_many is passed on."""
    pending = [racing]

    def hook(method: str, _args: tuple) -> None:
        if method == "update_many" and pending:
            pending.pop()()

    return hook


# --------------------------------------------------------------------------- keys and values


def test_entity_key_lowercases_collapses_whitespace_and_strips_surrounding_punctuation() -> None:
    """Keys ignore case, spacing and the sentence's punctuation, but keep a name's own punctuation."""
    assert entity_key("Line 3") == "line 3"
    assert entity_key(" Kioko ") == "kioko"
    assert entity_key("Rockwell \n  Automation") == "rockwell automation"
    assert entity_key("(pgvector),") == "pgvector"
    assert entity_key("E-217.") == "e-217"
    assert entity_key("10.20.0.0/16") == "10.20.0.0/16"
    assert entity_key("C++") == "c++"
    assert entity_key("?!") == ""


def test_relation_key_is_lower_snake_case() -> None:
    """Relations written as words, with hyphens or in camelCase become one snake_case name."""
    assert relation_key("reports to") == "reports_to"
    assert relation_key("Reports-To") == "reports_to"
    assert relation_key("worksAt") == "works_at"
    assert relation_key("  uses ") == "uses"


def test_triple_line_and_valid_at() -> None:
    """A triple reads as a sentence and holds on [valid_from, valid_to)."""
    triple = Triple(
        id="x",
        subject="Kumar",
        relation="reports_to",
        object="Krutika",
        subject_key="kumar",
        object_key="krutika",
        valid_from=10.0,
        valid_to=20.0,
        created_at=10.0,
    )
    assert triple.line() == "Kumar reports to Krutika"
    assert not triple.valid_at(9.9)
    assert triple.valid_at(10.0)
    assert triple.valid_at(19.9)
    assert not triple.valid_at(20.0)
    assert triple.model_copy(update={"valid_to": None}).valid_at(1e12)


def test_single_valued_names_the_documented_relations() -> None:
    """The usual one-at-a-time relations are single-valued; "uses" is not."""
    assert {
        "reports_to",
        "works_at",
        "lives_in",
        "located_in",
        "status",
        "owned_by",
        "managed_by",
        "version",
        "role",
    } <= SINGLE_VALUED
    assert "uses" not in SINGLE_VALUED


# --------------------------------------------------------------------------- writes


def test_add_stores_a_triple_record_in_the_users_graph_scope(graph: EntityGraph, store: Store) -> None:
    """A triple is a record of kind "triple" in Scope(user, "@graph") with entity and relation terms."""
    triple = graph.add("Kioko", "uses", "pgvector", user_id=U, source="manual")
    assert triple.line() == "Kioko uses pgvector"
    assert (triple.subject_key, triple.relation, triple.object_key, triple.source) == (
        "kioko",
        "uses",
        "pgvector",
        "manual",
    )
    record = store.get(Scope(U, GRAPH_AGENT), [triple.id])[0]
    assert record is not None
    assert record.kind == "triple"
    assert record.content == "Kioko uses pgvector"
    assert {"e:kioko", "e:pgvector", "r:uses"} <= set(record.terms)
    assert record.metadata["valid_to"] is None
    assert record.metadata["source"] == "manual"
    # never mixed into a memory scope: the user's memory scopes have no records and no postings
    assert store.get(Scope(U, None), [triple.id]) == [None]
    assert store.postings(Scope(U, None), ["e:kioko"], 10).n == 0


def test_adding_the_same_valid_triple_again_returns_the_existing_one(graph: EntityGraph) -> None:
    """Idempotent add: same id, nothing new stored, whatever the spelling of names and relation."""
    first = graph.add("Kioko", "uses", "pgvector", user_id=U, source="m1")
    again = graph.add(" kioko ", "Uses", "PGVector", user_id=U, source="m2")
    assert again == first
    assert graph.known(user_id=U) == 1


def test_relation_is_normalised_on_add(graph: EntityGraph) -> None:
    """ "reports to" is stored as reports_to and found as the same relation."""
    triple = graph.add("Kumar", "reports to", "Krutika", user_id=U)
    assert triple.relation == "reports_to"
    assert graph.add("Kumar", "Reports-To", "Krutika", user_id=U).id == triple.id


def test_single_valued_change_invalidates_the_old_triple_and_keeps_history(graph: EntityGraph) -> None:
    """A new manager closes the old reports_to triple at the new one's valid_from; as_of reads the past."""
    old = graph.add("Kumar", "reports_to", "Krutika", user_id=U, valid_from=1000.0)
    new = graph.add("Kumar", "reports_to", "Ravi", user_id=U, valid_from=2000.0)
    assert [t.object for t in graph.relations("Kumar", user_id=U)] == ["Ravi"]
    assert [t.object for t in graph.relations("Kumar", user_id=U, as_of=1500.0)] == ["Krutika"]
    assert graph.relations("Kumar", user_id=U, as_of=500.0) == []
    history = graph.relations("Kumar", user_id=U, include_invalid=True)
    assert [(t.id, t.valid_to) for t in history] == [(old.id, 2000.0), (new.id, None)]
    assert graph.known(user_id=U) == 2


def test_multi_valued_relations_accumulate(graph: EntityGraph) -> None:
    """A relation outside SINGLE_VALUED keeps every object valid at once."""
    graph.add("Kioko", "uses", "pgvector", user_id=U)
    graph.add("Kioko", "uses", "Qdrant", user_id=U)
    assert sorted(t.object for t in graph.relations("Kioko", user_id=U)) == ["Qdrant", "pgvector"]


def test_single_valued_can_be_chosen_per_call(graph: EntityGraph) -> None:
    """single_valued=True replaces for any relation; single_valued=False accumulates for a listed one."""
    graph.add("Kioko", "default store", "SQLite", user_id=U, single_valued=True)
    graph.add("Kioko", "default store", "pgvector", user_id=U, single_valued=True)
    assert [t.object for t in graph.relations("Kioko", user_id=U)] == ["pgvector"]
    graph.add("Kumar", "role", "engineer", user_id=U, single_valued=False)
    graph.add("Kumar", "role", "on-call lead", user_id=U, single_valued=False)
    assert len(graph.relations("Kumar", user_id=U)) == 2


def test_re_adding_a_single_valued_value_is_idempotent_and_does_not_touch_history(graph: EntityGraph) -> None:
    """Adding the current value again neither closes it nor creates a second record."""
    current = graph.add("Kumar", "works_at", "Acme", user_id=U, valid_from=1.0)
    assert graph.add("Kumar", "works at", "ACME", user_id=U, valid_from=5.0) == current
    assert graph.known(user_id=U) == 1


def test_back_dated_value_is_stored_closed_at_the_current_values_start(graph: EntityGraph) -> None:
    """Learning late where Kumar lived before keeps the current city valid and files the old one as history."""
    pune = graph.add("Kumar", "lives_in", "Pune", user_id=U, valid_from=2000.0)
    mumbai = graph.add("Kumar", "lives_in", "Mumbai", user_id=U, valid_from=1000.0)
    assert mumbai.valid_to == 2000.0
    assert [t.object for t in graph.relations("Kumar", user_id=U)] == ["Pune"]
    assert [t.object for t in graph.relations("Kumar", user_id=U, as_of=1500.0)] == ["Mumbai"]
    assert graph.relations("Kumar", user_id=U, include_invalid=True)[-1].id == pune.id


def test_invalidate_closes_a_triple_and_keeps_it_as_history(graph: EntityGraph) -> None:
    """invalidate sets valid_to; the fact disappears from current reads but stays readable as of before."""
    triple = graph.add("Kioko", "uses", "Redis", user_id=U, valid_from=100.0)
    closed = graph.invalidate(triple.id, user_id=U, at=300.0)
    assert closed is not None
    assert closed.id == triple.id
    assert closed.valid_to == 300.0
    assert graph.relations("Kioko", user_id=U) == []
    assert [t.id for t in graph.relations("Kioko", user_id=U, as_of=200.0)] == [triple.id]
    assert graph.invalidate(triple.id, user_id=U, at=999.0) == closed  # already closed: unchanged
    assert graph.known(user_id=U) == 1


def test_invalidate_unknown_or_foreign_triple_returns_none(graph: EntityGraph) -> None:
    """Another user's triple id, or an id that does not exist, is nothing to invalidate."""
    triple = graph.add("Kioko", "uses", "pgvector", user_id="alice")
    assert graph.invalidate(triple.id, user_id="bob") is None
    assert graph.invalidate("no-such-triple", user_id="alice") is None
    assert graph.relations("Kioko", user_id="alice") == [triple]


def test_invalidate_before_valid_from_is_refused(graph: EntityGraph) -> None:
    """A fact cannot end before it started; at=valid_from retracts it."""
    triple = graph.add("Kioko", "uses", "Redis", user_id=U, valid_from=100.0)
    with pytest.raises(InvalidRecordError, match="at=100.0"):
        graph.invalidate(triple.id, user_id=U, at=50.0)
    retracted = graph.invalidate(triple.id, user_id=U, at=100.0)
    assert retracted is not None
    assert not retracted.valid_at(100.0)


def test_re_adding_after_invalidation_creates_a_new_triple(graph: EntityGraph) -> None:
    """History keeps the closed triple; the fact that holds again is a new record."""
    first = graph.add("Kioko", "uses", "Redis", user_id=U, valid_from=100.0)
    graph.invalidate(first.id, user_id=U, at=200.0)
    second = graph.add("Kioko", "uses", "Redis", user_id=U, valid_from=300.0)
    assert second.id != first.id
    assert second.valid_to is None
    assert [(t.valid_from, t.valid_to) for t in graph.relations("Kioko", user_id=U, include_invalid=True)] == [
        (100.0, 200.0),
        (300.0, None),
    ]
    assert graph.relations("Kioko", user_id=U, as_of=250.0) == []


def test_single_valued_switch_back_keeps_the_whole_history(graph: EntityGraph) -> None:
    """Krutika, then Ravi, then Krutika again: three triples, one valid at each time."""
    graph.add("Kumar", "reports_to", "Krutika", user_id=U, valid_from=1.0)
    graph.add("Kumar", "reports_to", "Ravi", user_id=U, valid_from=2.0)
    graph.add("Kumar", "reports_to", "Krutika", user_id=U, valid_from=3.0)
    history = graph.relations("Kumar", user_id=U, include_invalid=True)
    assert [(t.object, t.valid_from, t.valid_to) for t in history] == [
        ("Krutika", 1.0, 2.0),
        ("Ravi", 2.0, 3.0),
        ("Krutika", 3.0, None),
    ]
    assert len({t.id for t in history}) == 3


def test_single_valued_add_retries_when_another_writer_got_in_first(store: Store) -> None:
    """A concurrent change of the same slot makes the first write conflict; the retry closes the winner."""
    other = EntityGraph(store)
    other.add("Kumar", "reports_to", "Krutika", user_id=U, valid_from=1.0)
    racing = CountingStore(
        store,
        before_call=before_first_write(lambda: other.add("Kumar", "reports_to", "Ravi", user_id=U, valid_from=2.0)),
    )
    mine = EntityGraph(racing).add("Kumar", "reports_to", "Meera", user_id=U, valid_from=3.0)
    assert racing.calls["update_many"] == 2
    assert [t.object for t in other.relations("Kumar", user_id=U)] == ["Meera"]
    history = other.relations("Kumar", user_id=U, include_invalid=True)
    assert [(t.object, t.valid_to) for t in history] == [("Krutika", 2.0), ("Ravi", 3.0), ("Meera", None)]
    assert history[-1] == mine


def test_concurrent_first_values_of_a_slot_do_not_both_stay_valid(store: Store) -> None:
    """Two writers giving a subject its first value at once: the loser retries and replaces the winner."""
    other = EntityGraph(store)
    racing = CountingStore(
        store, before_call=before_first_write(lambda: other.add("Kumar", "works_at", "Acme", user_id=U, valid_from=1.0))
    )
    EntityGraph(racing).add("Kumar", "works_at", "Globex", user_id=U, valid_from=2.0)
    assert [t.object for t in other.relations("Kumar", user_id=U)] == ["Globex"]
    assert graph_objects(other, "Kumar", include_invalid=True) == ["Acme", "Globex"]


def test_concurrent_identical_adds_store_one_triple(store: Store) -> None:
    """Two writers adding the same fact at once: one record; the loser returns the winner's triple."""
    other = EntityGraph(store)
    winner: list[Triple] = []
    racing = CountingStore(
        store, before_call=before_first_write(lambda: winner.append(other.add("Kioko", "uses", "pgvector", user_id=U)))
    )
    mine = EntityGraph(racing).add("Kioko", "uses", "pgvector", user_id=U)
    assert mine == winner[0]
    assert other.known(user_id=U) == 1


def graph_objects(graph: EntityGraph, entity: str, **options: Any) -> list[str]:
    return [t.object for t in graph.relations(entity, user_id=U, **options)]


# --------------------------------------------------------------------------- reads


def test_relations_find_an_entity_as_subject_or_object(graph: EntityGraph) -> None:
    """relations() returns triples where the entity is either end, matched by key."""
    graph.add("Kioko", "uses", "pgvector", user_id=U)
    graph.add("Kumar", "maintains", "Kioko", user_id=U)
    graph.add("Kumar", "reports_to", "Krutika", user_id=U)
    assert sorted(t.line() for t in graph.relations("KIOKO", user_id=U)) == [
        "Kioko uses pgvector",
        "Kumar maintains Kioko",
    ]


def test_neighbors_are_the_names_one_relation_away(graph: EntityGraph) -> None:
    """neighbors() lists each adjacent entity once, as written, and only through valid triples."""
    graph.add("Kioko", "uses", "pgvector", user_id=U, valid_from=1.0)
    graph.add("Kumar", "maintains", "Kioko", user_id=U, valid_from=1.0)
    graph.add("Kioko", "stores data in", "pgvector", user_id=U, valid_from=1.0)
    old = graph.add("Kioko", "uses", "Redis", user_id=U, valid_from=1.0)
    graph.invalidate(old.id, user_id=U, at=5.0)
    assert sorted(graph.neighbors("kioko", user_id=U)) == ["Kumar", "pgvector"]
    assert sorted(graph.neighbors("kioko", user_id=U, as_of=2.0)) == ["Kumar", "Redis", "pgvector"]
    assert graph.neighbors("nobody", user_id=U) == []


def test_path_is_the_shortest_chain_in_either_direction(graph: EntityGraph) -> None:
    """path() walks breadth first over valid triples, whichever way they point, and returns them in order."""
    graph.add("Kumar", "maintains", "Kioko", user_id=U)
    graph.add("Kioko", "uses", "pgvector", user_id=U)
    graph.add("pgvector", "extends", "Postgres", user_id=U)
    graph.add("Postgres", "runs on", "Linux", user_id=U)
    graph.add("Kumar", "knows", "Linux", user_id=U)  # closes a ring of five: every pair has one shortest chain
    assert [t.line() for t in graph.path("Kioko", "Postgres", user_id=U)] == [
        "Kioko uses pgvector",
        "pgvector extends Postgres",
    ]
    assert [t.line() for t in graph.path("pgvector", "Kumar", user_id=U)] == [
        "Kioko uses pgvector",
        "Kumar maintains Kioko",
    ]
    assert [t.line() for t in graph.path("Kioko", "Linux", user_id=U)] == ["Kumar maintains Kioko", "Kumar knows Linux"]
    assert [t.line() for t in graph.path("Kumar", "Linux", user_id=U)] == ["Kumar knows Linux"]


def test_path_is_empty_when_no_chain_fits(graph: EntityGraph) -> None:
    """No connection, a chain longer than max_depth, or the same entity twice give []."""
    graph.add("A", "links", "B", user_id=U)
    graph.add("B", "links", "C", user_id=U)
    graph.add("C", "links", "D", user_id=U)
    graph.add("X", "links", "Y", user_id=U)
    assert len(graph.path("A", "D", user_id=U)) == 3
    assert graph.path("A", "D", user_id=U, max_depth=2) == []
    assert graph.path("A", "Y", user_id=U) == []
    assert graph.path("A", "a", user_id=U) == []
    assert graph.path("A", "unknown", user_id=U) == []


def test_path_follows_only_triples_valid_at_as_of(graph: EntityGraph) -> None:
    """An invalidated hop breaks the chain now but not as of a date when it held."""
    graph.add("A", "links", "B", user_id=U, valid_from=1.0)
    hop = graph.add("B", "links", "C", user_id=U, valid_from=1.0)
    graph.invalidate(hop.id, user_id=U, at=10.0)
    assert graph.path("A", "C", user_id=U) == []
    assert len(graph.path("A", "C", user_id=U, as_of=5.0)) == 2


def test_match_entities_finds_known_names_as_whole_words(graph: EntityGraph) -> None:
    """Lower-case names, names with numbers and multi-word names are found; substrings are not."""
    graph.add("Kioko", "uses", "pgvector", user_id=U)
    graph.add("Line 3", "has", "conveyor", user_id=U)
    graph.add("Rockwell Automation", "makes", "FactoryTalk Optix", user_id=U)
    text = "We chose pgvector. Line 3 faults; Rockwell Automation ships factorytalk optix."
    assert graph.match_entities(text, user_id=U) == ["pgvector", "line 3", "rockwell automation", "factorytalk optix"]
    assert graph.match_entities("pgvectorx and mypgvector and lines 3", user_id=U) == []
    assert graph.match_entities("(PGVECTOR), Kioko's docs", user_id=U) == ["pgvector", "kioko"]
    assert graph.match_entities("", user_id=U) == []


def test_match_entities_prefers_the_longest_match(graph: EntityGraph) -> None:
    """A known longer name wins over the shorter known names inside it, but not elsewhere in the text."""
    graph.add("Rockwell", "is", "company", user_id=U)
    graph.add("Rockwell Automation", "makes", "PLCs", user_id=U)
    graph.add("Automation", "is", "field", user_id=U)
    assert graph.match_entities("Rockwell Automation support", user_id=U) == ["rockwell automation"]
    assert graph.match_entities("Rockwell Automation, then Rockwell alone", user_id=U) == [
        "rockwell automation",
        "rockwell",
    ]


def test_match_entities_keeps_recognising_names_of_history(graph: EntityGraph) -> None:
    """An entity whose only triple was invalidated is still a name the user's graph knows."""
    triple = graph.add("Kioko", "uses", "Redis", user_id=U)
    graph.invalidate(triple.id, user_id=U)
    assert graph.match_entities("the redis cache", user_id=U) == ["redis"]


def test_related_entities_gives_other_ends_of_valid_triples(graph: EntityGraph) -> None:
    """For each asked key, the (other key, triple) pairs valid now; every asked key is answered."""
    uses = graph.add("Kioko", "uses", "pgvector", user_id=U)
    maintains = graph.add("Kumar", "maintains", "Kioko", user_id=U)
    gone = graph.add("Kioko", "uses", "Redis", user_id=U, valid_from=1.0)
    graph.invalidate(gone.id, user_id=U, at=2.0)
    graph.add("Kioko", "is", "Kioko", user_id=U)  # a self-loop relates nothing
    related = graph.related_entities(["Kioko", "pgvector", "tea"], user_id=U)
    assert set(related) == {"kioko", "pgvector", "tea"}
    assert sorted((other, t.id) for other, t in related["kioko"]) == sorted(
        [("pgvector", uses.id), ("kumar", maintains.id)]
    )
    assert related["pgvector"] == [("kioko", uses)]
    assert related["tea"] == []
    past = graph.related_entities(["kioko"], user_id=U, as_of=1.5)
    assert [(other, t.id) for other, t in past["kioko"]] == [("redis", gone.id)]
    assert graph.related_entities([], user_id=U) == {}


def test_bridges_are_read_once_between_changes_and_another_graph_s_change_is_seen_at_once(store: Store) -> None:
    """On a store that counts its writes per scope, related_entities keeps the triples it read until the graph
    scope's count moves: asking again reads nothing, and a triple added or ended elsewhere is in the next answer."""
    counting = CountingStore(store, generations=True)
    mine, elsewhere = EntityGraph(counting), EntityGraph(store)
    uses = elsewhere.add("Kioko", "uses", "pgvector", user_id=U)
    assert [t.id for _, t in mine.related_entities(["kioko"], user_id=U)["kioko"]] == [uses.id]
    assert (counting.calls["postings"], counting.calls["get"]) == (1, 1)
    assert [t.id for _, t in mine.related_entities(["kioko"], user_id=U)["kioko"]] == [uses.id]
    assert (counting.calls["postings"], counting.calls["get"]) == (1, 1)  # kept: the graph did not change

    maintains = elsewhere.add("Kumar", "maintains", "Kioko", user_id=U)
    related = mine.related_entities(["kioko"], user_id=U)["kioko"]
    assert sorted(t.id for _, t in related) == sorted([uses.id, maintains.id])
    elsewhere.invalidate(uses.id, user_id=U)
    assert [t.id for _, t in mine.related_entities(["kioko"], user_id=U)["kioko"]] == [maintains.id]


def test_spec_bridge_example_kioko_uses_pgvector(graph: EntityGraph) -> None:
    """The spec's means-to-end example: the decision names pgvector, the goal names Kioko, the graph joins them."""
    graph.add("Kioko", "uses", "pgvector", user_id=U, source="manual")
    graph.add("Line 3", "has", "conveyor", user_id=U)
    decision = "Decision: Vector database - chose pgvector because we already run Postgres."
    goal = "Goal: Ship the Kioko memory layer by December 15."
    assert graph.match_entities(decision, user_id=U) == ["pgvector"]
    assert graph.match_entities(goal, user_id=U) == ["kioko"]
    bridges = graph.related_entities(["pgvector"], user_id=U)["pgvector"]
    assert [(other, "via " + t.line()) for other, t in bridges] == [("kioko", "via Kioko uses pgvector")]
    # the hub example's triple: line 3 relates to conveyor (the linker, not the graph, discounts hubs)
    assert [other for other, _ in graph.related_entities(["line 3"], user_id=U)["line 3"]] == ["conveyor"]


def test_known_counts_triples_with_history(graph: EntityGraph) -> None:
    """known() is the number of stored triples of the user, closed ones included."""
    assert graph.known(user_id=U) == 0
    graph.add("Kumar", "works_at", "Acme", user_id=U, valid_from=1.0)
    graph.add("Kumar", "works_at", "Globex", user_id=U, valid_from=2.0)
    graph.add("Kioko", "uses", "pgvector", user_id=U)
    assert graph.known(user_id=U) == 3
    assert graph.known(user_id="someone else") == 0


# --------------------------------------------------------------------------- isolation and cost


def test_one_users_graph_never_answers_another(graph: EntityGraph) -> None:
    """Every read is scoped: bob sees nothing of alice's triples, and his own change leaves hers alone."""
    alice = graph.add("Kumar", "reports_to", "Krutika", user_id="alice")
    graph.add("Kioko", "uses", "pgvector", user_id="alice")
    assert graph.relations("Kumar", user_id="bob", include_invalid=True) == []
    assert graph.neighbors("Kioko", user_id="bob") == []
    assert graph.path("Kioko", "pgvector", user_id="bob") == []
    assert graph.match_entities("Kioko uses pgvector", user_id="bob") == []
    assert graph.related_entities(["kioko"], user_id="bob") == {"kioko": []}
    assert graph.known(user_id="bob") == 0
    graph.add("Kumar", "reports_to", "Ravi", user_id="bob")
    assert graph.relations("Kumar", user_id="alice") == [alice]


def test_linker_reads_use_one_postings_and_at_most_one_get_and_never_scan(store: Store) -> None:
    """match_entities: one postings, no get; related_entities: one postings and one get; no scan at all."""
    seeding = EntityGraph(store)
    for n in range(30):
        seeding.add(f"Service {n}", "depends on", "pgvector", user_id=U)
        seeding.add("Kioko", "uses", f"Tool {n}", user_id=U)
    counting = CountingStore(store)
    graph = EntityGraph(counting)

    assert graph.match_entities("Kioko talks to pgvector and service 7 " * 20, user_id=U) == [
        "kioko",
        "pgvector",
        "service 7",
    ]
    assert counting.calls == Counter({"postings": 1})

    counting.calls.clear()
    related = graph.related_entities(["kioko", "pgvector", "service 7", "nothing"], user_id=U)
    assert len(related["kioko"]) == 30
    assert len(related["pgvector"]) == 30
    assert counting.calls == Counter({"postings": 1, "get": 1})

    counting.calls.clear()
    graph.relations("Kioko", user_id=U)
    graph.neighbors("Kioko", user_id=U)
    graph.path("Service 1", "Tool 2", user_id=U)
    graph.add("Kumar", "works_at", "Acme", user_id=U)
    graph.known(user_id=U)
    assert counting.calls["scan"] == 0


def test_add_is_one_lookup_and_one_write(store: Store) -> None:
    """A single-valued change reads one postings and one get, then writes both triples in one update_many."""
    EntityGraph(store).add("Kumar", "works_at", "Acme", user_id=U, valid_from=1.0)
    counting = CountingStore(store)
    EntityGraph(counting).add("Kumar", "works_at", "Globex", user_id=U, valid_from=2.0)
    assert counting.calls == Counter({"postings": 1, "get": 1, "update_many": 1})


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "subject, relation, obj, user_id",
    [
        ("", "uses", "pgvector", U),
        ("   ", "uses", "pgvector", U),
        ("?!", "uses", "pgvector", U),
        ("Kioko", "", "pgvector", U),
        ("Kioko", "--", "pgvector", U),
        ("Kioko", "uses", "", U),
        ("Kioko", "uses", "pgvector", ""),
        (None, "uses", "pgvector", U),
    ],
)
def test_add_refuses_empty_names_and_users(
    graph: EntityGraph, subject: Any, relation: Any, obj: Any, user_id: Any
) -> None:
    """An empty or punctuation-only subject, relation or object, or no user, raises InvalidRecordError."""
    with pytest.raises(InvalidRecordError):
        graph.add(subject, relation, obj, user_id=user_id)
    assert graph.known(user_id=U) == 0


def test_reads_refuse_empty_users_entities_and_bad_times(graph: EntityGraph) -> None:
    """Reads validate their arguments the same way, before touching the store."""
    with pytest.raises(InvalidRecordError):
        graph.relations("Kioko", user_id="")
    with pytest.raises(InvalidRecordError):
        graph.relations("", user_id=U)
    with pytest.raises(InvalidRecordError):
        graph.match_entities("Kioko", user_id="")
    with pytest.raises(InvalidRecordError):
        graph.related_entities(["kioko"], user_id="")
    with pytest.raises(InvalidRecordError):
        graph.known(user_id="")
    with pytest.raises(InvalidRecordError):
        graph.relations("Kioko", user_id=U, as_of=float("nan"))
    with pytest.raises(InvalidRecordError):
        graph.add("Kioko", "uses", "pgvector", user_id=U, valid_from=float("inf"))
    with pytest.raises(InvalidRecordError):
        graph.path("A", "B", user_id=U, max_depth=-1)
    with pytest.raises(InvalidRecordError):
        graph.invalidate("", user_id=U)


@pytest.mark.parametrize(
    "text, name",
    [
        ("Hey Mel! Good to see you!", "mel"),
        ("Thanks Caroline, that means a lot.", "caroline"),
        ("Wow Melanie, congrats on the race!", "melanie"),
    ],
)
def test_a_greeting_is_not_part_of_the_name_it_greets(text: str, name: str) -> None:
    from kioko_core.reading.analysis import analyze

    assert analyze(text).entities == [name]


def test_the_graphs_cache_keeps_a_bounded_number_of_n_grams_least_recently_asked_dropped(store: Store) -> None:
    """match_entities asks the graph's read cache about every n-gram of a text; the counts it keeps per user are
    bounded (least recently asked dropped first, kioko_core.graph.entities.GRAPH_CACHED_TERMS), and a dropped one is
    asked of the store again, with the same answer."""
    counting = CountingStore(store, generations=True)
    graph = EntityGraph(counting)
    graph.add("Kioko", "uses", "pgvector", user_id=U)
    cache = graph._read_cache
    assert cache is not None
    cache.max_terms = 40
    scope = Scope(U, GRAPH_AGENT)
    assert graph.match_entities("We chose pgvector for Kioko.", user_id=U) == ["pgvector", "kioko"]
    for number in range(30):  # texts of new words: 100+ n-grams each, none an entity
        assert graph.match_entities(f"word{number} alpha{number} beta{number} gamma{number} delta", user_id=U) == []
        assert len(cache._scopes[scope].terms) <= 40
    counting.reset()
    again = "Why pgvector and Kioko?"
    assert graph.match_entities(again, user_id=U) == ["pgvector", "kioko"]  # dropped long ago: asked again
    assert counting.calls["postings"] == 1
    counting.reset()
    assert graph.match_entities("word29 alpha29", user_id=U) == []  # every n-gram asked recently: kept
    assert graph.match_entities("pgvector", user_id=U) == ["pgvector"]
    assert counting.calls["postings"] == 0
