"""The offline write path (spec: intelligent memory, "What it decides"): the transcript and every table row.

Each test states a row of the spec's table "The user says / Operation / Kind of memory" and checks both
the operations reported and what the store holds afterwards, on the reference store and on SQLite.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Iterator

import pytest
from intelligence_support import TRANSCRIPT
from remote_support import served

import kioko
from kioko.remote.client import RemoteMemory
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_intelligence import ManageReport, MemoryOp

U = "kumar"
S = "s1"


@pytest.fixture(params=["memory", "sqlite", "remote"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryLayer | RemoteMemory]:
    """``kioko.intelligent()`` (offline) on the reference store and on a SQLite file; ``remote``: on memory://,
    served on loopback and called through RemoteMemory (``manage`` runs on the server and its ManageReport
    comes back whole)."""
    if request.param == "remote":
        with kioko.intelligent("memory://", auto_link=True) as layer, served(layer) as remote:
            yield remote
        return
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'intelligent.db'}"
    layer = kioko.intelligent(url)
    yield layer
    layer.close()


@pytest.fixture(params=["library", "remote"])
def plain(request: pytest.FixtureRequest) -> Iterator[MemoryLayer | RemoteMemory]:
    """A layer without intelligence and without the graph: manage() still decides, offline, on demand."""
    if request.param == "remote":
        with kioko.connect("memory://", auto_link=False) as layer, served(layer) as remote:
            yield remote
        return
    layer = kioko.connect("memory://")
    yield layer
    layer.close()


def lines(report: ManageReport) -> list[str]:
    return [f"{op.op} {op.description}" for op in report.ops]


def only(report: ManageReport, name: str) -> MemoryOp:
    found = [op for op in report.ops if op.op == name]
    assert len(found) == 1, report.summary()
    return found[0]


def say(memory: MemoryLayer, text: str, **options) -> ManageReport:
    return memory.manage(text, user_id=U, session_id=S, **options)


# --------------------------------------------------------------------------- the transcript


@pytest.mark.parametrize("memory", ["memory", "sqlite"], indirect=True)  # reads the layer's own intelligence.stats()
def test_the_seven_turn_transcript_produces_exactly_the_listed_operations(memory: MemoryLayer) -> None:
    """examples/cookbook/20_intelligent_memory.py, offline: every turn's operations, in order, all applied."""
    for text, expected in TRANSCRIPT:
        report = memory.record_turn(text, "Noted.", user_id=U, session_id=S)
        assert lines(report) == expected, f"{text!r}\n{report.summary()}"
        assert all(op.status == "applied" for op in report.ops), report.summary()
        assert report.router == "heuristic"
        assert report.model_calls == 0
    assert report.skipped == "small talk"
    assert report.summary() == "nothing to remember (small talk)"
    goal = memory.goals.list(user_id=U)[0]
    assert goal.metadata["progress"] == 0.6
    assert goal.metadata["status"] == "open"
    assert memory.profile.all(user_id=U) == {"name": "Kumar", "location": "Pune"}
    assert memory.working.all(user_id=U, session_id=S) == {
        "ticket": "INC-4521",
        "error": "E-217",
        "task": "Debugging ticket INC-4521, the drive shows error E-217 on line 3",
    }
    current = memory.decisions.current(user_id=U)
    assert [d.content for d in current] == [
        "Decision: use pgvector for the maintenance notes because we already run Postgres."
    ]
    assert len(memory.decisions.chain(current[0].id, user_id=U)) == 2  # the old decision stays, as history
    assert memory.procedures.list(user_id=U)[0].metadata["steps"] == [
        "Switch off the breaker",
        "Press reset for 5 seconds",
        "Switch it back on",
    ]
    assert {(t.relation, t.object) for t in memory.graph.relations("user", user_id=U)} == {
        ("named", "Kumar"),
        ("lives_in", "Pune"),
    }
    stats = memory.intelligence.stats()
    assert (stats["turns"], stats["gated"], stats["operations"], stats["model_calls"]) == (7, 1, 12, 0)


def test_the_task_is_not_also_stored_as_a_fact(memory: MemoryLayer) -> None:
    say(memory, "I'm debugging ticket INC-4521, the drive shows error E-217 on line 3.")
    kinds = {r.kind for r in memory.memories(user_id=U)}
    assert kinds == {"working"}


# --------------------------------------------------------------------------- the table, row by row


def test_profile_name_and_location_with_relations_when_the_graph_is_on(memory: MemoryLayer) -> None:
    report = say(memory, "I'm Kumar, I live in Pune.")
    assert [op.op for op in report.ops] == ["profile.set", "profile.set", "relation.add", "relation.add"]
    assert memory.profile.all(user_id=U) == {"name": "Kumar", "location": "Pune"}


def test_profile_without_the_graph_adds_no_relation(plain: MemoryLayer) -> None:
    report = plain.manage("I'm Kumar, I live in Pune.", user_id=U)
    assert lines(report) == ["profile.set name = Kumar", "profile.set location = Pune"]


def test_a_move_sets_the_location_and_adds_an_episode_dated_a_month_ago(memory: MemoryLayer) -> None:
    say(memory, "I live in Pune.")
    report = say(memory, "I moved from Pune to Hyderabad last month.")
    assert [op.op for op in report.ops][:2] == ["profile.set", "episode.add"]
    assert memory.profile.get("location", user_id=U) == "Hyderabad"
    episode = memory.episodes.list(user_id=U)[0]
    days_ago = (time.time() - episode.created_at) / 86400
    assert 27 <= days_ago <= 32, days_ago


def test_moving_between_tools_is_no_change_of_location(memory: MemoryLayer) -> None:
    """'I moved from A to B' changes the location only when A and B can be places."""
    say(memory, "I live in Pune.")
    report = say(memory, "I moved from Qdrant to pgvector.")
    assert memory.profile.get("location", user_id=U) == "Pune"
    assert [op.op for op in report.ops] == ["decision.add"]


def test_a_goal_with_its_due_date(memory: MemoryLayer) -> None:
    report = say(memory, "My goal is to pass the Azure exam by March 31.")
    assert lines(report) == ['goal.add "Goal: Pass the Azure exam by March 31."']
    goal = memory.goals.open(user_id=U)[0]
    assert goal.metadata["due"].endswith("-03-31")


def test_a_restated_goal_is_not_added_twice(memory: MemoryLayer) -> None:
    say(memory, "My goal is to pass the Azure exam by March 31.")
    report = say(memory, "My goal is to pass the Azure exam.")
    assert report.ops[0].status == "skipped"
    assert "already an open goal" in report.ops[0].error
    assert len(memory.goals.list(user_id=U)) == 1


def test_progress_on_a_piece_counts_as_progress_on_the_goal(memory: MemoryLayer) -> None:
    say(memory, "My goal is to pass the Azure exam by March 31.")
    report = say(memory, "I'm about 60% done with the Azure exam prep.")
    op = only(report, "goal.progress")
    assert op.status == "applied"
    assert op.fields["progress"] == 0.6
    assert memory.goals.open(user_id=U)[0].metadata["progress"] == 0.6


def test_finishing_a_step_towards_a_goal_is_an_episode_and_the_goal_stays_open(memory: MemoryLayer) -> None:
    say(memory, "My goal is to pass the Azure exam by March 31.")
    report = say(memory, "I finished the prep for the Azure exam.")
    assert [op.op for op in report.ops] == ["episode.add"]
    assert len(memory.goals.open(user_id=U)) == 1


def test_passing_the_exam_completes_the_goal_and_giving_up_drops_one(memory: MemoryLayer) -> None:
    say(memory, "My goal is to pass the Azure exam by March 31.")
    say(memory, "My goal is to learn Rust.")
    assert [op.op for op in say(memory, "I passed the Azure exam!").ops] == ["goal.complete"]
    assert [op.op for op in say(memory, "I gave up on learning Rust.").ops] == ["goal.drop"]
    statuses = {g.metadata["title"]: g.metadata["status"] for g in memory.goals.list(user_id=U)}
    assert statuses == {"Pass the Azure exam by March 31": "done", "Learn Rust": "dropped"}


def test_generic_words_never_match_a_goal_alone(memory: MemoryLayer) -> None:
    say(memory, "My goal is to ship the inventory project by Friday.")
    report = say(memory, "I'm 50% done with the project.")
    assert "goal.progress" not in [op.op for op in report.ops]
    assert memory.goals.open(user_id=U)[0].metadata["progress"] == 0.0


def test_a_switch_supersedes_the_decision_and_the_old_one_stays_linked(memory: MemoryLayer) -> None:
    say(memory, "We decided to use Qdrant for the maintenance notes because it is fast.")
    report = say(memory, "We switched from Qdrant to pgvector because we already run Postgres.")
    op = only(report, "decision.supersede")
    assert op.status == "applied"
    old = memory.decisions.list(user_id=U)[0]
    assert old.metadata["superseded_by"] == op.memory_id
    assert any(link.type == "supersedes" for link in memory.graph.links(op.memory_id, user_id=U))
    assert any("supersedes" in line for line in op.linked)


def test_a_number_change_is_an_update_with_history(memory: MemoryLayer) -> None:
    say(memory, "I have two kids.")
    report = say(memory, "I have three kids.")
    op = only(report, "fact.update")
    facts = memory.facts.list(user_id=U)
    assert len(facts) == 1
    assert facts[0].content == "User has three kids."
    assert facts[0].metadata["history"][0]["content"] == "User has two kids."
    assert op.target == facts[0].id


def test_forget_my_phone_number_deletes_the_slot(memory: MemoryLayer) -> None:
    say(memory, "My phone number is 555 0134.")
    assert memory.profile.get("phone_number", user_id=U) == "555 0134"
    report = say(memory, "Forget my phone number.")
    assert [(op.op, op.status) for op in report.ops] == [("memory.delete", "applied")]
    assert memory.profile.get("phone_number", user_id=U) is None


def test_forget_that_i_love_hiking_deletes_the_preference(memory: MemoryLayer) -> None:
    say(memory, "I love hiking.")
    say(memory, "I have two kids.")
    report = say(memory, "Forget that I love hiking.")
    assert [(op.op, op.status) for op in report.ops] == [("memory.delete", "applied")]
    assert [r.content for r in memory.memories(user_id=U, kinds={"preference", "factual"})] == ["User has two kids."]


@pytest.mark.parametrize(
    "text", ["delete the staging database", "clear the memory on the PLC", "forget everything", "Forget it."]
)
def test_requests_about_the_users_work_and_forget_everything_delete_nothing(memory: MemoryLayer, text: str) -> None:
    say(memory, "The PLC on line 2 uses the 10.20.0.0/16 subnet.")
    say(memory, "The staging database runs on host db-7.")
    before = sorted(r.id for r in memory.memories(user_id=U))
    report = say(memory, text)
    assert all(op.status != "applied" for op in report.ops), report.summary()
    assert sorted(r.id for r in memory.memories(user_id=U)) == before


def test_clear_all_memories_about_the_plc_deletes_them(memory: MemoryLayer) -> None:
    say(memory, "The PLC on line 2 uses the 10.20.0.0/16 subnet.")
    say(memory, "The staging database runs on host db-7.")
    report = say(memory, "Clear all memories about the PLC.")
    assert [(op.op, op.status) for op in report.ops] == [("memory.delete", "applied")]
    assert [r.content for r in memory.memories(user_id=U)] == ["The staging database runs on host db-7."]


def test_a_forget_that_matches_nothing_is_reported_as_skipped(memory: MemoryLayer) -> None:
    report = say(memory, "Forget that I own a boat.")
    assert report.ops[0].status == "skipped"
    assert "nothing" in report.ops[0].error


def test_the_debugging_task_and_identifiers_go_to_the_scratchpad(memory: MemoryLayer) -> None:
    report = say(memory, "I'm debugging ticket INC-4521, error E-217.")
    assert sorted(op.fields["key"] for op in report.ops) == ["error", "task", "ticket"]
    assert memory.working.get("ticket", user_id=U, session_id=S) == "INC-4521"


def test_without_a_session_there_is_no_scratchpad(memory: MemoryLayer) -> None:
    report = memory.manage("I'm debugging ticket INC-4521, error E-217.", user_id=U)
    assert "working.set" not in [op.op for op in report.ops]
    assert not list(memory.memories(user_id=U, kinds={"working"}))


def test_that_worked_credits_the_procedure_the_last_recall_gave_once(memory: MemoryLayer) -> None:
    say(memory, "To reset the relay, first switch off the breaker, then press reset, finally switch it on.")
    problem = say(memory, "The relay failed again this morning.").ops[0]
    memory.recall("How do I reset the relay?", user_id=U, session_id=S)
    report = memory.record_turn("That worked, thanks!", "Glad the reset helped.", user_id=U, session_id=S)
    op = only(report, "procedure.outcome")
    assert op.status == "applied"
    assert op.fields["worked"] is True
    procedure = memory.procedures.list(user_id=U)[0]
    assert procedure.metadata["successes"] == 1
    resolves = [k for k in memory.graph.links(procedure.id, user_id=U) if k.type == "resolves"]
    assert [(k.target, k.by) for k in resolves] == [(problem.memory_id, "feedback")]
    again = memory.record_turn("That worked, thanks!", "", user_id=U, session_id=S)
    assert not again.ops
    assert memory.procedures.list(user_id=U)[0].metadata["successes"] == 1


def test_a_procedure_from_to_then_finally(memory: MemoryLayer) -> None:
    report = say(memory, "To reset the relay, first switch off the breaker, then press reset, finally switch it on.")
    op = only(report, "procedure.add")
    assert op.fields["steps"] == ["Switch off the breaker", "Press reset", "Switch it on"]
    assert memory.procedures.list(user_id=U)[0].metadata["title"] == "How to reset the relay"


def test_a_lesson_learned_is_a_strategy(memory: MemoryLayer) -> None:
    report = say(memory, "Lesson learned: when debugging drives, check the cable first.")
    assert lines(report) == ['strategy.add "For debugging drives: check the cable first."']
    assert memory.strategies.list(user_id=U)[0].metadata["context"] == "debugging drives"


def test_a_jam_this_morning_is_a_dated_episode(memory: MemoryLayer) -> None:
    report = say(memory, "The line 3 conveyor jammed twice this morning.")
    assert [op.op for op in report.ops] == ["episode.add"]
    episode = memory.episodes.list(user_id=U)[0]
    assert time.localtime(episode.created_at)[:3] == time.localtime()[:3]
    assert episode.created_at <= time.time()


def test_general_knowledge_goes_to_the_users_own_scope(memory: MemoryLayer) -> None:
    report = say(memory, "OPC UA servers listen on port 4840 by default.")
    assert [op.op for op in report.ops] == ["knowledge.add"]
    stored = memory.knowledge.list(user_id=U)
    assert len(stored) == 1
    assert stored[0].user_id == U
    assert stored[0].metadata["importance"] >= 0.4


@pytest.mark.parametrize(
    "text, content",
    [
        ("Please always answer in German.", "Always answer in German."),
        ("I prefer short answers.", "User prefers short answers."),
    ],
)
def test_how_to_answer_is_a_standing_instruction(memory: MemoryLayer, text: str, content: str) -> None:
    report = say(memory, text)
    assert lines(report) == [f'instruction.add "{content}"']
    assert [r.content for r in memory.instructions.list(user_id=U)] == [content]


def test_a_plain_preference_stays_a_preference(memory: MemoryLayer) -> None:
    assert lines(say(memory, "I love hiking.")) == ['preference.add "User loves hiking."']


@pytest.mark.parametrize(
    "text, reason",
    [
        ("thanks!", "small talk"),
        ("Can you summarize this document?", "a question"),
        ("ok great, thank you so much", "small talk"),
        ("Hi there!", "small talk"),
    ],
)
def test_the_gate_skips_small_talk_and_requests(memory: MemoryLayer, text: str, reason: str) -> None:
    report = say(memory, text)
    assert report.ops == []
    assert report.skipped == reason
    assert not list(memory.memories(user_id=U))


def test_a_remember_request_is_never_gated(memory: MemoryLayer) -> None:
    report = say(memory, "Remember that my wife is allergic to peanuts.")
    op = only(report, "fact.add")
    assert op.fields["text"] == "User's wife is allergic to peanuts."
    assert op.importance >= 0.9


def test_a_hedged_short_statement_is_skipped_for_low_importance(memory: MemoryLayer) -> None:
    """The spec's example: ('skipped', 'importance 0.37 < 0.4')."""
    report = say(memory, "I think maybe it's raining.")
    assert (report.ops[0].status, report.ops[0].error) == ("skipped", "importance 0.37 < 0.4")
    assert not list(memory.memories(user_id=U))


def test_capture_rules_keeps_only_what_rules_recognise() -> None:
    from kioko_intelligence import HeuristicRouter, Intelligence

    layer = kioko.connect("memory://", intelligence=Intelligence(router=HeuristicRouter(capture="rules")))
    report = layer.record_turn("OPC UA servers listen on port 4840 by default. I love hiking.", user_id=U)
    assert [op.op for op in report.ops] == ["preference.add"]


def test_capture_all_keeps_low_importance_statements() -> None:
    from kioko_intelligence import Intelligence

    layer = kioko.connect("memory://", intelligence=Intelligence(capture="all"))
    report = layer.record_turn("I think maybe it's raining.", user_id=U)
    assert [op.status for op in report.ops] == ["applied"]


def test_the_report_is_json_safe_and_reads_well(memory: MemoryLayer) -> None:
    import json

    report = say(memory, "I'm Kumar, I live in Pune. My goal is to stabilise line 3 by November 30.")
    data = json.loads(json.dumps(report.to_dict()))
    assert data["router"] == "heuristic"
    assert len(data["ops"]) == 5
    assert {"op", "description", "reason", "importance", "confidence", "status", "error", "linked"} <= set(
        data["ops"][0]
    )
    assert report.summary().splitlines()[0] == "profile.set name = Kumar"


def test_extra_rules_run_before_the_built_in_ones() -> None:
    """HeuristicRouter(extractor=RuleBasedExtractor(extra_rules=[...])): a pattern of the user's own."""
    import re

    from kioko_intelligence import HeuristicRouter, Intelligence, RuleBasedExtractor

    def shift(sentence: str, turn) -> list[MemoryOp] | None:
        found = re.match(r"^I work the (\w+) shift", sentence)
        if not found:
            return None
        return [MemoryOp("profile.set", fields={"key": "shift", "value": found.group(1)}, reason="my rule")]

    router = HeuristicRouter(extractor=RuleBasedExtractor(extra_rules=[shift]))
    layer = kioko.connect("memory://", intelligence=Intelligence(router=router))
    report = layer.record_turn("I work the night shift. I love hiking.", user_id=U)
    assert lines(report) == ["profile.set shift = night", 'preference.add "User loves hiking."']
    assert layer.profile.get("shift", user_id=U) == "night"


def test_a_relation_holding_a_secret_is_dropped() -> None:
    from kioko_intelligence import OpExecutor

    layer = kioko.intelligent("memory://")
    ops = OpExecutor(layer).apply(
        [
            MemoryOp(
                "relation.add",
                fields={"subject": "user", "relation": "has_key", "object": "sk-EXAMPLE-not-a-real-key-000"},
            )
        ],
        user_id=U,
    )
    assert ops[0].status == "skipped"
    assert "secret" in ops[0].error
    assert layer.graph.relations("user", user_id=U) == []


def test_goals_and_decisions_are_found_by_the_index_and_by_a_scan_when_words_are_common(
    memory: MemoryLayer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With every term more frequent than the postings limit, the router scans the kind instead: same ops."""
    from kioko_intelligence import turn_reading

    for text, expected in TRANSCRIPT[:2]:
        assert lines(say(memory, text)) == expected
    monkeypatch.setattr(turn_reading, "POSTINGS_LIMIT", 0)
    for text, expected in TRANSCRIPT[4:6]:
        assert lines(say(memory, text)) == expected


def test_feedback_credits_the_served_memory_the_previous_reply_echoed(memory: MemoryLayer) -> None:
    """Two procedures served: "that worked" credits the one the agent's answer was about."""
    say(memory, "To reset the relay, first switch off the breaker, then press reset, finally switch it on.")
    say(memory, "To restart the relay controller, first unplug it, then wait ten seconds, finally plug it in.")
    context = memory.recall("relay reset or restart?", user_id=U, session_id=S)
    served = [m.record.metadata["title"] for m in context.memories if m.record.kind == "procedural"]
    assert served == ["How to restart the relay controller", "How to reset the relay"]  # recall's order
    memory.record_turn(
        "The relay is stuck again.", "Switch off the breaker, press reset, then switch it on.", user_id=U, session_id=S
    )
    report = memory.record_turn("That worked, thanks!", "Great.", user_id=U, session_id=S)
    op = only(report, "procedure.outcome")
    assert op.description == '"How to reset the relay" -> success'
