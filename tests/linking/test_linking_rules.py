"""The linking algorithm's rules one at a time (spec graph-memory sections 2 and 3), on the reference store.

Section 4's worked examples run on every store (test_linking_examples.py); these rules are about the
algorithm, not the storage, so they run on memory:// only: which memories take part, what a memory is
about, how terms are weighed, the evidence, the priors, the gate and the type table.
"""

from __future__ import annotations

import math

import pytest

from kioko_backends.memory import MemoryStore
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.linking import links
from kioko_core.linking.index import idf, is_hub, nominates, term_weight
from kioko_core.linking.linker import prior
from kioko_core.linking.scoring import Side
from kioko_core.reading.analysis import analyze
from kioko_core.store import Record, Scope

U = "kumar"
T0 = 1_790_000_000.0
HOUR = 3600.0


@pytest.fixture
def layer() -> MemoryLayer:
    return MemoryLayer(MemoryStore(), auto_link=True)


def add(layer: MemoryLayer, text: str, kind: str = "episodic", **options) -> str:
    return layer.add(text, user_id=U, memory_type=kind, **options).id


def linked_ids(layer: MemoryLayer, memory_id: str, user: str = U, agent: str | None = None) -> set[str]:
    return {e["id"] for e in links.link_entries(layer.get(memory_id, user_id=user, agent_id=agent))}


# --------------------------------------------------------------------------- step 0: who takes part


@pytest.mark.parametrize("kind", ["instruction", "working", "profile"])
def test_instructions_working_memory_and_profile_slots_are_never_linked(layer: MemoryLayer, kind: str) -> None:
    """They are stored unlinked, are nobody's candidate, and hold no terms that would count in n."""
    fault = add(layer, "Line 3 keeps faulting with error E-217.", session_id="s1", created_at=T0)
    other = add(layer, "Line 3 keeps faulting with error E-217.", kind, session_id="s1", created_at=T0 + 60)
    fix = add(layer, "Found it: the encoder cable on line 3 was loose.", session_id="s1", created_at=T0 + 120)
    assert linked_ids(layer, other) == set()
    assert other not in linked_ids(layer, fix) | linked_ids(layer, fault)
    assert layer.get(other, user_id=U).terms == []
    assert layer.store.postings(Scope(U), ["e:e-217"], 10).n == 2


# --------------------------------------------------------------------------- step 1: the anchor


@pytest.mark.parametrize(
    "text, entity",
    [
        ("Ticket INC-4521 is still open.", "inc-4521"),
        ("Line 3 keeps faulting with error E-217.", "e-217"),
        ("The S7-1500 controller rebooted.", "s7-1500"),
        ("The plant's PLC network uses the 10.20.0.0/16 subnet.", "10.20.0.0/16"),
        ("The conveyor on line 3 jammed.", "line 3"),
        ("Die change on press 12 took an hour.", "press 12"),
        ("The robot in cell 4B stopped.", "cell 4b"),
        ("Backups on server 2 finished.", "server 2"),
        ("We met Rockwell Automation about the upgrade.", "rockwell automation"),
        ("The dashboards move to FactoryTalk Optix next year.", "factorytalk optix"),
        ("Tags come in over OPC UA from the line.", "opc ua"),
    ],
)
def test_identifiers_numbered_assets_and_names_are_entities(text: str, entity: str) -> None:
    assert entity in analyze(text).entities


def test_a_plain_capitalised_first_word_and_framing_words_are_not_names() -> None:
    """ "Found it", "Clear a jam", "Yesterday", months and "Decision" start sentences; none is an entity."""
    assert analyze("Found it: the encoder cable on line 3 was loose.").entities == ["line 3"]
    assert analyze("Clear a conveyor jam on line 3.").entities == ["line 3"]
    assert analyze("Decision: use the spare pump until Monday.").entities == []
    assert analyze("Yesterday the belt slipped in December.").entities == []


def test_a_distinctive_first_word_is_a_name() -> None:
    """ALLCAPS, CamelCase or a digit make a name even at the start of a sentence."""
    assert "plc" in analyze("PLC firmware was updated.").entities
    assert "factorytalk" in analyze("FactoryTalk crashed twice.").entities


def test_after_a_framing_prefix_the_action_verb_is_dropped() -> None:
    """ "Goal: Ship the Kioko memory layer" is about Kioko, not about "Ship Kioko"."""
    assert analyze("Goal: Ship the Kioko memory layer by December 15.").entities == ["kioko"]


def test_entities_the_users_graph_knows_count_even_in_lower_case(layer: MemoryLayer) -> None:
    assert "pgvector" not in layer.linker.analyze("we chose pgvector for vectors", U).entities
    layer.graph.add("Kioko", "uses", "pgvector", user_id=U)
    assert "pgvector" in layer.linker.analyze("we chose pgvector for vectors", U).entities
    assert "pgvector" not in layer.linker.analyze("we chose pgvector for vectors", "someone-else").entities


def test_salient_terms_leave_out_stop_words_digits_framing_vocabulary_and_light_verbs() -> None:
    """ "The fault came back" and "the theme came up" share nothing."""
    assert set(analyze("The fault came back").terms) & set(analyze("the theme came up").terms) == set()
    terms = analyze("User prefers the decided lesson: it keeps going 42 times.").terms
    assert [t for t in terms if not t.startswith("n:")] == ["t:time"]
    assert terms == ["t:time", "n:42"]  # the number is indexed for recall only (``Side`` leaves it out)
    assert Side.of(Record(id="x", user_id="u", kind="factual", content="42 times"), analyze("42 times")).terms == [
        "t:time"
    ]


# --------------------------------------------------------------------------- step 1: IDF


def test_idf_is_bm25s_smoothed_with_20_virtual_memories() -> None:
    for df, n in [(1, 2), (4, 9), (3, 30), (15, 30)]:
        assert idf(df, n) == pytest.approx(math.log(1 + (n + 20 - df + 0.5) / (df + 0.5)))
    # with two memories a shared word still weighs almost as much as a rare one
    assert idf(2, 2) / idf(1, 2) > 0.75


def test_a_term_in_most_memories_weighs_nothing_once_there_are_20() -> None:
    assert idf(11, 20) == 0.0
    assert idf(10, 20) > 0.0
    assert idf(15, 19) > 0.0  # fewer than 20 memories: the rule does not apply yet


def test_entities_weigh_half_again_as_much_as_words() -> None:
    assert term_weight("e:line 3", 4, 9) == pytest.approx(1.5 * term_weight("t:line", 4, 9))
    assert term_weight("e:line 3", 4, 9) == pytest.approx(2.85, abs=0.005)


def test_hubs_and_nominating_terms_follow_the_spec_thresholds() -> None:
    assert is_hub(4, 9)  # max(4, 0.15 n)
    assert not is_hub(3, 9)
    assert is_hub(15, 100)
    assert not is_hub(14, 100)
    assert nominates(50, 100)  # max(50, 0.2 n)
    assert not nominates(51, 100)
    assert nominates(200, 1000)
    assert not nominates(201, 1000)


# --------------------------------------------------------------------------- step 2: candidates


def test_candidates_of_another_agent_or_user_are_discarded(layer: MemoryLayer) -> None:
    for user, agent in [(U, None), (U, "planner"), ("krutika", None)]:
        layer.add(
            "Line 3 keeps faulting with error E-217.",
            user_id=user,
            agent_id=agent,
            memory_type="episodic",
            session_id="s1",
            created_at=T0,
        )
    fix = layer.add(
        "Found it: the encoder cable on line 3 was loose.",
        user_id=U,
        agent_id="planner",
        memory_type="episodic",
        session_id="s1",
        created_at=T0 + 60,
    )
    [only] = links.link_entries(layer.get(fix.id, user_id=U, agent_id="planner"))
    assert layer.get(only["id"], user_id=U, agent_id="planner").agent_id == "planner"


def test_chunks_of_the_same_document_are_not_linked_to_each_other(layer: MemoryLayer) -> None:
    meta = {"document_id": "manual-line-3"}
    one = add(
        layer, "Line 3 conveyor: reset the drive after a jam, then check the photo-eye.", "semantic", metadata=meta
    )
    two = add(
        layer,
        "Line 3 conveyor: after a jam reset the drive and check the photo-eye alignment.",
        "semantic",
        metadata=meta,
    )
    three = add(layer, "Line 3 conveyor: reset the drive after every jam, then check the photo-eye.", "semantic")
    assert one not in linked_ids(layer, two)
    assert {one, two} <= linked_ids(layer, three)


def test_at_most_max_new_links_are_made_per_write(layer: MemoryLayer) -> None:
    for i in range(8):
        add(layer, f"Pump 7 leaks coolant near the E-41 valve, round {i}.")
    newest = add(layer, "The E-41 valve on pump 7 leaks coolant again.")
    assert len(linked_ids(layer, newest)) == 5


# --------------------------------------------------------------------------- step 3: evidence


def test_share_is_an_overlap_coefficient_so_a_short_memory_matches_a_long_one(layer: MemoryLayer) -> None:
    short = add(layer, "User likes Darjeeling tea.", "preference")
    long = add(
        layer,
        "Darjeeling tea from the first flush tastes best brewed at 85 degrees for three minutes, "
        "in a small pot, with soft water and no milk.",
        "semantic",
    )
    result = layer.graph.explain(short, long, user_id=U)
    terms = [[t for t in layer.get(i, user_id=U).terms if t[:2] in ("e:", "t:")] for i in (short, long)]
    stats = layer.store.postings(Scope(U), terms[0] + terms[1], 0)
    weight = lambda ts: sum(term_weight(t, stats.df[t], stats.n) for t in ts)  # noqa: E731
    shared = set(terms[0]) & set(terms[1])
    assert result.signals["share"] == pytest.approx(weight(shared) / min(weight(terms[0]), weight(terms[1])))
    assert result.signals["share"] >= 0.5  # the long memory's extra words do not dilute it ...
    assert weight(shared) / weight(set(terms[0]) | set(terms[1])) < 0.2  # ... as they would a Jaccard


def test_sem_is_the_cosine_calibrated_to_h(layer: MemoryLayer) -> None:
    a = add(layer, "Pump 7 leaks coolant near the E-41 valve.")
    b = add(layer, "Coolant pump 7 pressure dropped below spec.")
    signals = layer.graph.explain(a, b, user_id=U).signals
    assert signals["sem"] == pytest.approx(min(1.0, max(0.0, (signals["cos"] - 0.15) / 0.15)))


@pytest.mark.parametrize(
    "apart, session, expected", [(60.0, "s1", 1.0), (2 * HOUR, "s1", 1.0), (3 * HOUR, "s1", 0.5), (60.0, None, 0.0)]
)
def test_time_is_one_within_two_hours_of_a_session_and_half_later(
    layer: MemoryLayer, apart: float, session: str | None, expected: float
) -> None:
    a = add(layer, "Line 3 keeps faulting with error E-217.", session_id=session, created_at=T0)
    b = add(layer, "The shift lead called about the E-217 faults.", session_id=session, created_at=T0 + apart)
    assert layer.graph.explain(a, b, user_id=U).signals["time"] == expected


def test_cue_needs_a_fix_after_a_problem_in_the_same_session_within_two_hours_and_a_shared_term(
    layer: MemoryLayer,
) -> None:
    fault = add(layer, "Line 3 keeps faulting with error E-217.", session_id="s1", created_at=T0)
    fix = add(layer, "Found it: the encoder cable on line 3 was loose.", session_id="s1", created_at=T0 + 600)
    late = add(layer, "Found it: the encoder cable on line 3 was loose.", session_id="s1", created_at=T0 + 3 * HOUR)
    other = add(layer, "Found it: the photo-eye had drifted.", session_id="s1", created_at=T0 + 900)
    assert layer.graph.explain(fix, fault, user_id=U).signals["cue"] == 1.0
    assert layer.graph.explain(late, fault, user_id=U).signals["cue"] == 0.0  # more than two hours later
    assert layer.graph.explain(other, fault, user_id=U).signals["cue"] == 0.0  # nothing shared


def test_share_is_halved_when_only_a_place_is_shared(layer: MemoryLayer) -> None:
    """Two faults on line 3 may be unrelated: "line 3" alone is weak common ground, even when it is no hub."""
    a = add(layer, "Line 3 keeps faulting with error E-217.")
    b = add(layer, "The label printer on line 3 ran out of ribbon.")
    result = layer.graph.explain(a, b, user_id=U)
    stats = layer.store.postings(Scope(U), ["e:line 3", "t:line"], 0)
    assert not is_hub(stats.df["e:line 3"], stats.n)
    shared = sum(term_weight(t, stats.df[t], stats.n) for t in ("e:line 3", "t:line"))
    a_terms = layer.get(a, user_id=U).terms
    b_terms = layer.get(b, user_id=U).terms
    weights = [
        sum(
            term_weight(t, layer.store.postings(Scope(U), [t], 0).df[t], stats.n)
            for t in terms
            if t[:2] in ("e:", "t:")
        )
        for terms in (a_terms, b_terms)
    ]
    assert result.signals["share"] == pytest.approx(shared / min(weights) / 2)
    assert not result.linked


# --------------------------------------------------------------------------- step 4: priors


@pytest.mark.parametrize(
    "a, b, value",
    [
        ("decision", "goal", 1.00),
        ("lesson", "procedure", 1.00),
        ("lesson", "skill", 0.90),
        ("lesson", "event", 0.90),
        ("event", "procedure", 0.90),
        ("event", "insight", 0.90),
        ("procedure", "goal", 0.85),
        ("event", "goal", 0.85),
        ("event", "event", 0.85),
        ("event", "decision", 0.85),
        ("knowledge", "procedure", 0.85),
        ("knowledge", "decision", 0.85),
        ("procedure", "skill", 0.85),
        ("lesson", "decision", 0.85),
        ("goal", "goal", 0.80),
        ("decision", "decision", 0.80),
        ("decision", "procedure", 0.80),
        ("skill", "goal", 0.70),
        ("fact", "goal", 0.70),
        ("lesson", "goal", 0.70),
        ("insight", "goal", 0.70),
        ("preference", "goal", 0.50),
        ("preference", "event", 0.50),
    ],
)
def test_priors_are_the_spec_table_and_symmetric(a: str, b: str, value: float) -> None:
    assert prior(a, b) == prior(b, a) == value


def test_priors_the_spec_gives_as_a_range_stay_in_it() -> None:
    for pair in [("fact", "fact"), ("knowledge", "event"), ("fact", "lesson"), ("insight", "fact")]:
        assert 0.60 <= prior(*pair) <= 0.75


# --------------------------------------------------------------------------- step 5: the gate


def test_similarity_on_a_framing_word_alone_never_links(layer: MemoryLayer) -> None:
    """ "ops prefers one database" vs "User prefers Python": 0.25 cosine on "prefers" alone, no link."""
    a = add(layer, "ops prefers one database", "preference")
    b = add(layer, "User prefers Python", "preference")
    result = layer.graph.explain(a, b, user_id=U)
    assert result.signals["share"] == 0.0
    assert not result.linked
    assert linked_ids(layer, a) == set()


def test_a_raised_threshold_turns_a_link_away() -> None:
    # the turn-before rule links consecutive events whatever their score: it is tested on its own below
    strict = MemoryLayer(MemoryStore(), auto_link=True, linker={"threshold": 0.7, "link_turns": False})
    fault = strict.add(
        "Line 3 keeps faulting with error E-217.", user_id=U, memory_type="episodic", session_id="s1", created_at=T0
    )
    fix = strict.add(
        "Found it: the encoder cable on line 3 was loose.",
        user_id=U,
        memory_type="episodic",
        session_id="s1",
        created_at=T0 + 20,
    )
    assert strict.graph.explain(fix.id, fault.id, user_id=U).score < 0.7
    assert links.link_entries(strict.get(fix.id, user_id=U)) == []


def test_an_event_is_linked_to_the_turn_before_it_in_its_session() -> None:
    """A reply shares no word with the question it answers; it still follows it, as the weakest link."""
    layer = MemoryLayer(MemoryStore(), auto_link=True)
    asked = layer.add(
        "Melanie: What did you paint last weekend?", user_id=U, memory_type="episodic", session_id="chat", created_at=T0
    )
    answer = layer.add(
        "Caroline: A sunrise over the lake, with my kids.",
        user_id=U,
        memory_type="episodic",
        session_id="chat",
        created_at=T0 + 60,
    )
    elsewhere = layer.add(
        "Caroline: A sunrise over the lake, again.",
        user_id=U,
        memory_type="episodic",
        session_id="other",
        created_at=T0 + 120,
    )
    entry = next(e for e in links.link_entries(layer.get(answer.id, user_id=U)) if e["id"] == asked.id)
    assert entry["type"] == "follows"
    assert entry["dir"] == "out"
    assert entry["w"] == pytest.approx(0.35)
    assert "turn before" in entry["why"]
    assert not any(
        e["id"] == answer.id and e["type"] == "follows" for e in links.link_entries(layer.get(elsewhere.id, user_id=U))
    )
    off = MemoryLayer(MemoryStore(), auto_link=True, linker={"link_turns": False})
    a = off.add(
        "Melanie: What did you paint last weekend?", user_id=U, memory_type="episodic", session_id="chat", created_at=T0
    )
    b = off.add(
        "Caroline: A sunrise over the lake, with my kids.",
        user_id=U,
        memory_type="episodic",
        session_id="chat",
        created_at=T0 + 60,
    )
    assert not any(e["id"] == a.id for e in links.link_entries(off.get(b.id, user_id=U)))


def test_unknown_linker_options_are_refused() -> None:
    with pytest.raises(TypeError, match="max_dgree"):
        MemoryLayer(MemoryStore(), linker={"max_dgree": 3})


# --------------------------------------------------------------------------- step 6: the type


TYPE_CASES = [
    # (kind a, text a, kind b, text b, type, a is the source)
    (
        "procedural",
        "Restart DB-17 replication: pause the backup, resync the replica, resume the backup.",
        "goal",
        "Goal: Keep DB-17 replica lag under 5 seconds.",
        "serves",
        True,
    ),
    (
        "episodic",
        "Finished the DB-17 replica lag fix; lag is under 5 seconds now.",
        "goal",
        "Goal: Keep DB-17 replica lag under 5 seconds.",
        "advances",
        True,
    ),
    (
        "episodic",
        "DB-17 replica lag failed the 5 second target again.",
        "goal",
        "Goal: Keep DB-17 replica lag under 5 seconds.",
        "concerns",
        True,
    ),
    (
        "semantic",
        "DB-17 replica lag depends on the backup window.",
        "goal",
        "Goal: Keep DB-17 replica lag under 5 seconds.",
        "informs",
        True,
    ),
    (
        "strategy",
        "Lesson: pause the DB-17 backup before you resync the replica.",
        "procedural",
        "Restart DB-17 replication: pause the backup, resync the replica, resume the backup.",
        "refines",
        True,
    ),
    (
        "strategy",
        "Lesson: pause the DB-17 backup before you resync the replica.",
        "episodic",
        "DB-17 replica resync failed because the backup was running.",
        "learned_from",
        True,
    ),
    (
        "procedural",
        "Restart DB-17 replication: pause the backup, resync the replica, resume the backup.",
        "episodic",
        "DB-17 replica resync failed because the backup was running.",
        "applies_to",
        True,
    ),
    (
        "episodic",
        "DB-17 replica lag spiked during the nightly backup.",
        "decision",
        "Decision: run the DB-17 nightly backup from the replica.",
        "informs",
        True,
    ),
    (
        "semantic",
        "DB-17 backups run nightly from the replica since May.",
        "decision",
        "Decision: run the DB-17 nightly backup from the replica.",
        "informs",
        True,
    ),
]


@pytest.mark.parametrize(
    "kind_a, text_a, kind_b, text_b, expected, a_is_source",
    TYPE_CASES,
    ids=[case[4] + "-" + case[0] + "-" + case[2] for case in TYPE_CASES],
)
def test_the_pair_of_kinds_and_the_cue_words_decide_the_type(
    layer: MemoryLayer, kind_a: str, text_a: str, kind_b: str, text_b: str, expected: str, a_is_source: bool
) -> None:
    """Whichever memory is written first, the type and its direction are the spec's."""
    b = add(layer, text_b, kind_b)
    a = add(layer, text_a, kind_a)
    for first, second in ((a, b), (b, a)):
        result = layer.graph.explain(first, second, user_id=U)
        assert result.type == expected
        assert (result.source, result.target) == ((a, b) if a_is_source else (b, a))


def test_a_fix_resolves_a_problem_recorded_before_it_and_not_one_that_came_back_after(layer: MemoryLayer) -> None:
    fault = add(layer, "Line 3 keeps faulting with error E-217.", session_id="s1", created_at=T0)
    fix = add(layer, "Found it: the encoder cable on line 3 was loose.", session_id="s1", created_at=T0 + 60)
    back = add(layer, "Line 3 faulting with error E-217 again.", session_id="s1", created_at=T0 + 600)
    assert layer.graph.explain(fix, fault, user_id=U).type == "resolves"
    after = layer.graph.explain(fix, back, user_id=U)
    assert after.type == "follows"
    assert (after.source, after.target) == (back, fix)


def test_events_of_a_session_follow_each_other_later_to_earlier(layer: MemoryLayer) -> None:
    first = add(layer, "Line 3 conveyor jammed at 06:10.", session_id="s9", created_at=T0)
    second = add(layer, "Line 3 conveyor running slowly after the restart.", session_id="s9", created_at=T0 + 300)
    result = layer.graph.explain(first, second, user_id=U)
    assert (result.type, result.source, result.target) == ("follows", second, first)


def test_events_of_different_sessions_without_a_fix_are_related_to(layer: MemoryLayer) -> None:
    a = add(layer, "DB-17 replica lag spiked during the nightly backup.", session_id="a", created_at=T0)
    b = add(layer, "Replica lag on DB-17 during the nightly backup again.", session_id="b", created_at=T0 + 86400)
    assert layer.graph.explain(a, b, user_id=U).type == "related_to"


def test_only_the_entity_graph_links_a_means_to_its_end_and_keeps_its_type(layer: MemoryLayer) -> None:
    """Bridge alone: a decision serves its goal; a fact is not linked to the goal at all."""
    layer.graph.add("Kioko", "uses", "pgvector", user_id=U)
    goal = add(layer, "Goal: Ship the Kioko memory layer by December 15.", "goal")
    decision = add(layer, "Decision: keep pgvector for the first release.", "decision")
    fact = add(layer, "pgvector 0.8 added iterative index scans.", "factual")
    assert layer.graph.explain(decision, goal, user_id=U).type == "serves"
    assert decision in linked_ids(layer, goal)
    fact_goal = layer.graph.explain(fact, goal, user_id=U)
    assert fact_goal.signals["bridge"] == 1.0
    assert not fact_goal.linked
    assert fact not in linked_ids(layer, goal)


# --------------------------------------------------------------------------- section 2: authors


def test_the_same_authors_newer_manual_link_replaces_the_older_one(layer: MemoryLayer) -> None:
    tea = add(layer, "User likes green tea.", "preference")
    plc = add(layer, "The plant's PLC network uses the 10.20.0.0/16 subnet.", "factual")
    layer.graph.link(tea, plc, "related_to", 0.5, "first thought", user_id=U)
    newer = layer.graph.link(plc, tea, "informs", 0.9, "second thought", user_id=U)
    assert (newer.source, newer.type, newer.weight, newer.why) == (plc, "informs", 0.9, "second thought")
    [on_tea] = links.link_entries(layer.get(tea, user_id=U))
    [on_plc] = links.link_entries(layer.get(plc, user_id=U))
    assert (on_tea["dir"], on_tea["type"], on_tea["why"]) == ("in", "informs", "second thought")
    assert (on_plc["dir"], on_plc["type"], on_plc["w"]) == ("out", "informs", 0.9)


def test_a_link_by_hand_is_checked(layer: MemoryLayer) -> None:
    from kioko_core.layer.memory_layer import MemoryNotFound
    from kioko_core.store import InvalidRecordError

    a = add(layer, "User likes green tea.", "preference")
    b = add(layer, "The plant's PLC network uses the 10.20.0.0/16 subnet.", "factual")
    with pytest.raises(InvalidRecordError):
        layer.graph.link(a, b, "is_near", user_id=U)
    with pytest.raises(InvalidRecordError):
        layer.graph.link(a, a, user_id=U)
    with pytest.raises(InvalidRecordError):
        layer.graph.link(a, b, weight=1.5, user_id=U)
    with pytest.raises(MemoryNotFound):
        layer.graph.link(a, b, user_id="someone-else")
    assert links.link_entries(layer.get(a, user_id=U)) == []


def test_analysing_a_text_again_with_known_names_adds_them_and_changing_an_answer_changes_no_other() -> None:
    """The text-only scan is shared between calls: the user's names add to it, and each call owns its lists."""
    text = "Kumar asked Krutika about line 3 and the pgvector index, port 4842."
    plain = analyze(text)
    named = analyze(text, ["pgvector", "krutika", "kumar", "4842", "unmentioned"])
    assert plain.entities == ["line 3", "krutika"]  # "Kumar" opens the sentence: no name by itself
    assert named.entities == ["line 3", "krutika", "pgvector", "kumar", "4842"]
    assert "n:4842" in plain.terms  # counted through the name it is part of
    assert "n:4842" not in named.terms
    assert named.terms[:5] == ["e:line 3", "e:krutika", "e:pgvector", "e:kumar", "e:4842"]
    plain.entities.append("mutated")
    plain.terms.clear()
    plain.surface.clear()
    again = analyze(text)
    assert again.entities == ["line 3", "krutika"]
    assert again.terms
    assert again.surface["e:line 3"] == "line 3"
