"""The read path's planner: every intent row of the plan table, several intents, the graph, validation."""

from __future__ import annotations

import pytest

import kioko
from kioko_core.intelligence import Intelligence, QueryPlanner, RecallPlan
from kioko_core.intelligence.brain import IntelligenceConfigError
from kioko_core.intelligence.planner import TABLE, plan_for

# (query, intents, links, the caps it must set) - one row per intent of the spec's table
ROWS = [
    ("How do I reset the safety relay?", ["howto"], 3, {"procedures": 3, "lessons": 3, "skills": 2, "decisions": 1}),
    ("Why did we choose pgvector?", ["decision"], 4, {"decisions": 5, "skills": 0}),
    ("What should I focus on next?", ["goals"], 4, {"decisions": 2, "skills": 0}),
    ("When did line 3 stop last week?", ["temporal"], 2, {"memories": 10}),
    ("What do you know about me?", ["personal"], 1, {"memories": 8, "procedures": 0, "skills": 0, "lessons": 0}),
    ("Who is Krutika?", ["relational"], 6, {}),
    ("What is the default OPC UA port?", ["knowledge"], 2, {"memories": 6}),
    ("Do we have a prompt template for alarm logs?", ["skills"], 2, {"skills": 4, "procedures": 2}),
    ("What's the best way to debug a drive fault?", ["strategy"], 3, {"lessons": 4, "decisions": 2}),
    ("thanks!", ["smalltalk"], 0, {"memories": 0, "decisions": 0, "procedures": 0, "skills": 0, "lessons": 0}),
    ("that worked", ["feedback"], 0, {"memories": 0, "decisions": 0, "procedures": 0, "skills": 0, "lessons": 0}),
    ("Which device does station 12 use?", [], 3, {}),
]


@pytest.fixture
def memory():
    layer = kioko.connect("memory://")
    yield layer
    layer.close()


@pytest.mark.parametrize("query,intents,links,caps", ROWS, ids=[r[1][0] if r[1] else "none" for r in ROWS])
def test_each_intent_row_of_the_table(memory, query, intents, links, caps) -> None:
    plan = memory.plan(query, user_id="kumar")
    assert plan.intents == intents
    assert plan.links == links
    for section, cap in caps.items():
        assert plan.section_limits[section] == cap, section
    assert plan.reason
    if not intents:
        assert plan.section_limits == {} and plan.fill_recent == [] and plan.limit is None


def test_the_decision_plan_fills_an_empty_decision_section_and_the_temporal_plan_asks_for_more() -> None:
    assert plan_for(["decision"]).fill_recent == ["decisions"]
    assert plan_for(["temporal"]).limit == 10
    assert plan_for(["howto"]).fill_recent == [] and plan_for(["howto"]).limit is None


def test_small_talk_retrieves_nothing_and_a_question_retrieves() -> None:
    assert not plan_for(["smalltalk"]).retrieves and not plan_for(["feedback"]).retrieves
    assert plan_for(["howto"]).retrieves and plan_for([]).retrieves


def test_several_intents_the_largest_cap_wins_per_section(memory) -> None:
    plan = memory.plan("Why did we decide on this procedure and how do I run it?", user_id="kumar")
    assert plan.intents == ["howto", "decision"]
    for section in ("memories", "decisions", "procedures", "skills", "lessons"):
        assert plan.section_limits[section] == max(TABLE["howto"].caps[section], TABLE["decision"].caps[section])
    assert plan.section_limits["decisions"] == 5 and plan.section_limits["procedures"] == 3
    assert plan.section_limits["skills"] == 2  # howto needs skills, so the decision plan's 0 does not drop them
    assert plan.links == 4 and plan.fill_recent == ["decisions"]
    assert "how-to" in plan.reason and "decision" in plan.reason


def test_small_talk_with_a_question_is_planned_for_the_question(memory) -> None:
    plan = memory.plan("thanks! that worked. When did line 3 stop last week?", user_id="kumar")
    assert plan.intents == ["temporal", "feedback"]
    assert plan.section_limits["memories"] == 10 and plan.links == 2 and plan.retrieves


def test_an_entity_the_users_graph_knows_adds_relational(memory) -> None:
    query = "What about Krutika's pump?"
    assert memory.plan(query, user_id="kumar").intents == []
    memory.entities.add("Krutika", "works_at", "Acme", user_id="kumar")
    planned = memory.plan(query, user_id="kumar")
    assert planned.intents == ["relational"] and planned.links == 6
    # only this user's graph counts, and the graph can be left out
    assert memory.plan(query, user_id="asha").intents == []
    assert QueryPlanner(use_graph=False).plan(memory, query, user_id="kumar").intents == []
    # a known entity widens the graph without lifting a how-to's caps
    both = memory.plan("How do I calibrate Krutika's pump?", user_id="kumar")
    assert both.intents == ["howto", "relational"] and both.links == 6
    assert both.section_limits == TABLE["howto"].caps


def test_plan_on_a_scoped_view_and_with_intelligence_counts_plans() -> None:
    layer = kioko.connect("memory://", intelligence=True)
    try:
        assert layer.scoped(user_id="kumar").plan("How do I reset it?").intents == ["howto"]
        with pytest.raises(kioko.InvalidRecordError):
            layer.scoped(user_id="kumar").plan("How?", user_id="asha")
        assert layer.intelligence.stats()["plans"] == 1
    finally:
        layer.close()


def test_a_custom_planner_is_used_and_a_bad_one_is_refused() -> None:
    class Always:
        def plan(self, memory, query, *, user_id, agent_id=None, session_id=None, limit=None):
            return RecallPlan(intents=["skills"], reason="mine", section_limits={"skills": 1}, links=0)

    layer = kioko.MemoryLayer(kioko.open_store("memory://"), intelligence=Intelligence(planner=Always()))
    try:
        assert layer.plan("anything", user_id="kumar").reason == "mine"
    finally:
        layer.close()
    with pytest.raises(IntelligenceConfigError):
        Intelligence(planner=object())


@pytest.mark.parametrize("bad", [
    {"section_limits": {"nope": 1}}, {"section_limits": {"skills": -1}}, {"section_limits": {"skills": True}},
    {"section_limits": [("skills", 1)]}, {"fill_recent": "decisions"}, {"fill_recent": ["memories"]},
    {"links": -1}, {"links": 1.5}, {"limit": 0}, {"intents": ["weather"]},
])
def test_a_bad_plan_is_a_typed_error(bad) -> None:
    with pytest.raises(kioko.InvalidRecordError):
        RecallPlan(**bad)


def test_plan_refuses_a_non_string_query(memory) -> None:
    with pytest.raises(kioko.InvalidRecordError):
        memory.plan(None, user_id="kumar")  # type: ignore[arg-type]
