"""The read path's planner: every intent row of the plan table, several intents, the graph, validation."""

from __future__ import annotations

import pytest
from plan_support import plant
from remote_support import fresh_url, serving

import kioko
from kioko_intelligence import Intelligence, QueryPlanner, RecallPlan
from kioko_intelligence.brain import IntelligenceConfigError
from kioko_intelligence.planner import TABLE, plan_for

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


@pytest.fixture(params=["library", "remote-memory", "remote-sqlite"])
def memory(request, tmp_path):
    """A layer without intelligence over memory://; ``remote-``: over a new store of that kind, served on loopback,
    through RemoteMemory."""
    if request.param == "library":
        layer = kioko.connect("memory://")
        yield layer
        layer.close()
        return
    with serving() as serve:
        yield serve(kioko.connect(fresh_url(request.param.removeprefix("remote-"), tmp_path)))


@pytest.mark.parametrize("query,intents,links,caps", ROWS, ids=[r[1][0] if r[1] else "none" for r in ROWS])
def test_each_intent_row_of_the_table(memory, query, intents, links, caps) -> None:
    plan = memory.plan(query, user_id="kumar")
    assert plan.intents == intents
    assert plan.links == links
    for section, cap in caps.items():
        assert plan.section_limits[section] == cap, section
    assert plan.reason
    if not intents:
        assert plan.section_limits == {}
        assert plan.fill_recent == []
        assert plan.limit is None


def test_the_decision_plan_fills_an_empty_decision_section_and_the_temporal_plan_asks_for_more() -> None:
    assert plan_for(["decision"]).fill_recent == ["decisions"]
    assert plan_for(["temporal"]).limit == 10
    assert plan_for(["howto"]).fill_recent == []
    assert plan_for(["howto"]).limit is None


def test_small_talk_retrieves_nothing_and_a_question_retrieves() -> None:
    assert not plan_for(["smalltalk"]).retrieves
    assert not plan_for(["feedback"]).retrieves
    assert plan_for(["howto"]).retrieves
    assert plan_for([]).retrieves


def test_several_intents_the_largest_cap_wins_per_section(memory) -> None:
    plan = memory.plan("Why did we decide on this procedure and how do I run it?", user_id="kumar")
    assert plan.intents == ["howto", "decision"]
    for section in ("memories", "decisions", "procedures", "skills", "lessons"):
        assert plan.section_limits[section] == max(TABLE["howto"].caps[section], TABLE["decision"].caps[section])
    assert plan.section_limits["decisions"] == 5
    assert plan.section_limits["procedures"] == 3
    assert plan.section_limits["skills"] == 2  # howto needs skills, so the decision plan's 0 does not drop them
    assert plan.links == 4
    assert plan.fill_recent == ["decisions"]
    assert "how-to" in plan.reason
    assert "decision" in plan.reason


def test_small_talk_with_a_question_is_planned_for_the_question(memory) -> None:
    plan = memory.plan("thanks! that worked. When did line 3 stop last week?", user_id="kumar")
    assert plan.intents == ["temporal", "feedback"]
    assert plan.section_limits["memories"] == 10
    assert plan.links == 2
    assert plan.retrieves


@pytest.mark.parametrize("memory", ["library"], indirect=True)  # left out over HTTP before
def test_an_entity_the_users_graph_knows_adds_relational(memory) -> None:
    query = "What about Krutika's pump?"
    assert memory.plan(query, user_id="kumar").intents == []
    memory.entities.add("Krutika", "works_at", "Acme", user_id="kumar")
    planned = memory.plan(query, user_id="kumar")
    assert planned.intents == ["relational"]
    assert planned.links == 6
    # only this user's graph counts, and the graph can be left out
    assert memory.plan(query, user_id="asha").intents == []
    assert QueryPlanner(use_graph=False).plan(memory, query, user_id="kumar").intents == []
    # a known entity widens the graph without lifting a how-to's caps
    both = memory.plan("How do I calibrate Krutika's pump?", user_id="kumar")
    assert both.intents == ["howto", "relational"]
    assert both.links == 6
    assert both.section_limits == {**TABLE["howto"].caps, "graph": 15}  # relational only lifts the relations


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


@pytest.mark.parametrize(
    "bad",
    [
        {"section_limits": {"nope": 1}},
        {"section_limits": {"skills": -1}},
        {"section_limits": {"skills": True}},
        {"section_limits": [("skills", 1)]},
        {"fill_recent": "decisions"},
        {"fill_recent": ["goals"]},
        {"links": -1},
        {"links": 1.5},
        {"limit": 0},
        {"intents": ["weather"]},
    ],
)
def test_a_bad_plan_is_a_typed_error(bad) -> None:
    with pytest.raises(kioko.InvalidRecordError):
        RecallPlan(**bad)


def test_plan_refuses_a_non_string_query(memory) -> None:
    with pytest.raises(kioko.InvalidRecordError):
        memory.plan(None, user_id="kumar")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- recall follows the plan


def _sections(ctx) -> dict[str, int]:
    counts: dict[str, int] = {}
    for m in ctx.memories:
        counts[m.section] = counts.get(m.section, 0) + 1
    return counts


@pytest.fixture(params=["memory", "sqlite", "remote-memory", "remote-sqlite"])
def smart(request, tmp_path):
    """A planted layer with intelligence; ``remote-``: over a new store of that kind, through RemoteMemory."""
    if request.param.startswith("remote-"):
        with serving() as serve:
            remote = serve(kioko.connect(fresh_url(request.param.removeprefix("remote-"), tmp_path), intelligence=True))
            plant(remote)
            yield remote
        return
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'plan.db'}"
    layer = kioko.connect(url, intelligence=True)
    plant(layer)
    yield layer
    layer.close()


def test_without_intelligence_recall_is_plain_and_plan_false_is_the_same(memory) -> None:
    plant(memory)
    query = "How do I reset the safety relay?"
    plain = memory.recall(query, user_id="kumar")
    assert plain.plan is None
    assert _sections(plain)["memories"] == 6  # no cap without a plan
    same = memory.recall(query, user_id="kumar", plan=False)
    assert [m.id for m in same.memories] == [m.id for m in plain.memories]
    assert same.text == plain.text
    planned = memory.recall(query, user_id="kumar", plan="auto")
    assert planned.plan.intents == ["howto"]
    assert _sections(planned)["memories"] == 3


def test_with_intelligence_recall_plans_by_default_and_caps_each_section(smart) -> None:
    ctx = smart.recall("How do I reset the safety relay?", user_id="kumar")
    assert ctx.plan is not None
    assert ctx.plan.intents == ["howto"]
    sections = _sections(ctx)
    assert sections["memories"] == 3
    assert sections["procedures"] == 1
    assert sections["lessons"] == 1
    assert "Procedures that may apply:" in ctx.text
    plain = smart.recall("How do I reset the safety relay?", user_id="kumar", plan=False)
    assert plain.plan is None
    assert _sections(plain)["memories"] == 6


def test_explicit_options_win_over_the_plan(smart) -> None:
    ctx = smart.recall(
        "How do I reset the safety relay?",
        user_id="kumar",
        plan="auto",
        section_limits={"procedures": 0, "memories": 5},
        links=0,
        limit=6,
    )
    assert "procedures" not in _sections(ctx)
    assert _sections(ctx)["memories"] == 5
    assert ctx.plan.section_limits["procedures"] == 0
    assert ctx.plan.section_limits["lessons"] == 3
    assert ctx.plan.links == 0
    assert ctx.plan.limit == 6
    assert ctx.plan.intents == ["howto"]
    # options alone, no plan: the options are followed and shown as the plan
    only = smart.recall("safety relay", user_id="kumar", plan=False, section_limits={"memories": 1})
    assert _sections(only)["memories"] == 1
    assert only.plan.intents == []
    assert only.plan.section_limits == {"memories": 1}


def test_a_plan_built_by_hand_is_followed(smart) -> None:
    mine = RecallPlan(intents=["skills"], reason="mine", section_limits={"memories": 2, "lessons": 0}, links=0)
    ctx = smart.recall("safety relay", user_id="kumar", plan=mine)
    assert ctx.plan.reason == "mine"
    assert _sections(ctx)["memories"] == 2
    assert "lessons" not in _sections(ctx)


def test_fill_recent_brings_the_newest_decisions_in_force(smart) -> None:
    query = "which database did we settle on?"
    assert "decisions" not in _sections(smart.recall(query, user_id="kumar", plan=False))
    ctx = smart.recall(query, user_id="kumar")
    assert ctx.plan.fill_recent == ["decisions"]
    decisions = [m for m in ctx.memories if m.section == "decisions"]
    assert len(decisions) == 2
    assert all(m.signals == {"recent": 1.0} for m in decisions)
    assert "Decisions in force:" in ctx.text
    # a superseded decision is history, not in force
    old = next(d for d in smart.decisions.list(user_id="kumar") if "Qdrant" in d.content)
    smart.decisions.supersede(old.id, "Decision: use pgvector for the maintenance notes.", user_id="kumar")
    shown = [m.content for m in smart.recall(query, user_id="kumar").memories if m.section == "decisions"]
    assert any("pgvector" in c for c in shown)
    assert not any("Qdrant" in c for c in shown)
    # the same on request, without a plan; and never another user's decisions
    asked = smart.recall(query, user_id="kumar", plan=False, fill_recent=["decisions"])
    assert [m.content for m in asked.memories if m.section == "decisions"] == shown
    assert not [m for m in smart.recall(query, user_id="asha").memories if m.section == "decisions"]


def test_fill_recent_leaves_a_section_the_search_filled_alone(smart) -> None:
    ctx = smart.recall("Why did we decide to store alarms in Postgres?", user_id="kumar")
    decisions = [m for m in ctx.memories if m.section == "decisions"]
    assert decisions
    assert all("recent" not in m.signals for m in decisions)


def test_small_talk_shows_only_the_goals(smart) -> None:
    ctx = smart.recall("thanks!", user_id="kumar")
    assert ctx.plan.intents == ["smalltalk"]
    assert set(_sections(ctx)) == {"goals"}
    assert ctx.text.startswith("Open goals:")
    assert smart.recall("thanks!", user_id="kumar", section_limits={"goals": 0}).memories == []


def test_the_temporal_plan_lifts_the_limit(memory) -> None:
    for day in range(12):
        memory.episodes.add(f"Line 3 stopped for a jam on day {day}.", user_id="kumar")
    assert len(memory.recall("line 3 jam", user_id="kumar").memories) == 8
    ctx = memory.recall("When did line 3 stop for a jam?", user_id="kumar", plan="auto")
    assert ctx.plan.limit == 10
    assert len(ctx.memories) == 10


def test_search_is_never_planned(smart) -> None:
    found = smart.search("thanks! the safety relay", user_id="kumar", limit=10)
    assert len(found) >= 6  # a small-talk plan would have shown nothing


@pytest.mark.parametrize(
    "options",
    [
        {"plan": "sometimes"},
        {"plan": {"intents": []}},
        {"section_limits": {"relations": 2}},
        {"section_limits": {"skills": -1}},
        {"fill_recent": ["goals"]},
        {"fill_recent": "decisions"},
    ],
)
def test_bad_recall_plan_options_are_typed_errors(memory, options) -> None:
    with pytest.raises(kioko.InvalidRecordError):
        memory.recall("anything", user_id="kumar", **options)


# --------------------------------------------------------------------------- a model names the intents


class Scripted:
    """A model that answers from a script and records the prompts it saw."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer


@pytest.mark.parametrize("memory", ["library"], indirect=True)  # installs a planner in this process
def test_the_llm_planner_follows_a_valid_answer_and_drops_unknown_intents(memory) -> None:
    from kioko_intelligence.planner import LLMPlanner

    model = Scripted('```json\n{"intents": ["decision", "weather"], "reason": "asks why"}\n```', '{"intents": []}')
    planner = LLMPlanner(model)
    plan = planner.plan(memory, "which database won?", user_id="kumar")
    assert plan.intents == ["decision"]
    assert plan.reason == "the model: asks why"
    assert plan.fill_recent == ["decisions"]
    assert "which database won?" in model.prompts[0]
    assert planner.plan(memory, "station 12", user_id="kumar").intents == []  # none fits: the general plan
    assert (planner.calls, planner.fallbacks) == (2, 0)


@pytest.mark.parametrize("memory", ["library"], indirect=True)  # installs a planner in this process
@pytest.mark.parametrize(
    "answer", ["not json at all", '{"intents": "howto"}', '{"intents": ["weather"]}', RuntimeError("model down")]
)
def test_the_llm_planner_falls_back_offline_on_a_bad_answer_or_an_error(memory, answer) -> None:
    from kioko_intelligence.planner import LLMPlanner

    planner = LLMPlanner(Scripted(answer))
    plan = planner.plan(memory, "How do I reset the safety relay?", user_id="kumar")
    assert plan.intents == ["howto"]
    assert planner.fallbacks == 1


def test_plan_with_llm_is_off_by_default() -> None:
    from kioko_intelligence.planner import LLMPlanner

    model = Scripted('{"intents": ["skills"]}')
    assert isinstance(Intelligence(llm=model).planner, QueryPlanner)
    layer = kioko.MemoryLayer(kioko.open_store("memory://"), intelligence=Intelligence(llm=model, plan_with_llm=True))
    try:
        assert isinstance(layer.intelligence.planner, LLMPlanner)
        ctx = layer.recall("anything at all", user_id="kumar")
        assert ctx.plan.intents == ["skills"]
        assert len(model.prompts) == 1
    finally:
        layer.close()


@pytest.mark.parametrize(
    "query,topicless",
    [
        ("What do I like doing?", True),
        ("What should I know?", True),
        ("Anything I should keep in mind?", True),
        ("what am I up to these days?", True),
        ("Who is Krutika?", False),
        ("What do I like to cook?", False),
        ("Do it.", False),  # a statement, not a question
        ("", False),
    ],
)
def test_a_question_that_names_no_topic_is_about_the_user(query, topicless) -> None:
    from kioko_intelligence.planner import asks_without_topic

    assert asks_without_topic(query) is topicless
    if topicless:
        assert "personal" in QueryPlanner().intents(query)


def test_a_topicless_question_shows_the_newest_preferences_and_facts(tmp_path) -> None:
    with kioko.intelligent(f"sqlite:///{tmp_path / 'topicless.db'}") as smart:
        smart.preferences.add("User likes hiking.", user_id="mo")
        smart.facts.add("User works at a bakery in Porto.", user_id="mo")
        for question in ("What do I like doing?", "What should I know?"):
            ctx = smart.recall(question, user_id="mo")
            assert "personal" in ctx.plan.intents
            assert "- User likes hiking." in ctx.text, question
            assert "- User works at a bakery in Porto." in ctx.text, question


def test_a_what_is_next_question_shows_the_list_kept_as_a_memory(tmp_path) -> None:
    with kioko.intelligent(f"sqlite:///{tmp_path / 'next.db'}") as smart:
        smart.knowledge.add("Wedding to-dos: book the venue, then send invitations.", user_id="mo")
        ctx = smart.recall("What's next on the wedding list?", user_id="mo")
        assert ctx.plan.intents == ["goals"]
        assert "Wedding to-dos: book the venue, then send invitations." in ctx.text


@pytest.mark.parametrize(
    "query,about",
    [
        ("What do I study?", True),
        ("What did I do for work?", True),
        ("What's my position at the firm?", True),
        ("What is the default OPC UA port?", False),
        ("I study medicine.", False),  # a statement
    ],
)
def test_a_question_about_the_user_fills_their_newest_memories(memory, query, about) -> None:
    from kioko_intelligence.planner import asks_about_user

    assert asks_about_user(query) is about
    assert ("memories" in memory.plan(query, user_id="kumar").fill_recent) is about


def test_a_question_about_the_user_is_answered_by_a_memory_sharing_no_word(tmp_path) -> None:
    with kioko.intelligent(f"sqlite:///{tmp_path / 'about.db'}") as smart:
        smart.facts.add("User is a 2nd year medic at Edinburgh.", user_id="mo")
        smart.episodes.add("Made partner at Hart & Doyle this spring.", user_id="mo")
        smart.episodes.add("Her fence was repainted.", user_id="mo")
        ctx = smart.recall("What do I study?", user_id="mo")
        assert "- User is a 2nd year medic at Edinburgh." in ctx.text
        # an event written without a subject is the user's; one about someone else is not
        assert "Made partner at Hart & Doyle this spring." in ctx.text
        assert "fence" not in ctx.text
        # a how-to keeps its own plan: no fill with the user's facts
        assert "memories" not in smart.plan("How do I study for the exam?", user_id="mo").fill_recent


def test_a_question_for_a_lesson_or_a_note_fills_the_newest_lessons(tmp_path) -> None:
    with kioko.intelligent(f"sqlite:///{tmp_path / 'lessons.db'}") as smart:
        smart.record_turn("Lesson learned: never deploy on a Friday afternoon.", "Noted.", user_id="mo")
        for question in ("What lesson did I learn?", "What was the note?"):
            ctx = smart.recall(question, user_id="mo")
            assert "strategy" in ctx.plan.intents, question
            assert "lessons" in ctx.plan.fill_recent
            assert "Friday afternoon" in ctx.text, question
