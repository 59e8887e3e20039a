"""LLM mode with a scripted stand-in model (spec: intelligent memory, "With an LLM").

The stand-in (``intelligence_models.ask``) answers by the user's words, so each test states what the
model proposes and checks what Kioko makes of it: validation against the refs shown, the gate, the
fallback, DropSecrets, and isolation from other users.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Iterator

import intelligence_models as model
import pytest

import kioko
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_intelligence import DEFAULT_MANAGE_PROMPT, Intelligence, LLMRouter
from kioko_intelligence.summaries import SUMMARY_PROMPT

U, OTHER, S = "kumar", "krutika", "s1"
GOAL = "Cut unplanned downtime on line 3 by 20%"


@pytest.fixture(autouse=True)
def fresh_script() -> Iterator[None]:
    model.SCRIPT.clear()
    model.CALLS.clear()
    yield
    model.SCRIPT.clear()
    model.CALLS.clear()


@pytest.fixture(params=["memory", "sqlite"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryLayer]:
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'llm.db'}"
    layer = kioko.intelligent(url, llm=model.ask)
    yield layer
    layer.close()


def turn(memory: MemoryLayer, text: str, **options):
    return memory.record_turn(text, "", user_id=U, session_id=S, **options)


def test_the_four_turns_of_the_spec_with_a_stand_in_model(memory: MemoryLayer) -> None:
    """examples/cookbook/21_llm_intelligence.py: progress, a secret dropped, small talk gated, a fallback."""
    memory.goals.add(GOAL, user_id=U)
    model.SCRIPT["Downtime is already down 12%."] = {
        "operations": [
            {"op": "goal.progress", "target": "g1", "progress": 0.6, "reason": "12 of the 20 percentage points"}
        ]
    }
    # the model is shown the turn redacted: it never sees the key, and an op quoting the marker is refused
    model.SCRIPT["My API key is [redacted: api_key], keep it for later."] = {
        "operations": [
            {"op": "fact.add", "text": "User's API key is [redacted: api_key]", "reason": "asked to keep it"}
        ]
    }
    model.SCRIPT["I prefer bullet points over long paragraphs."] = "Sure, I will remember that!"

    first = turn(memory, "Downtime is already down 12%.")
    assert first.summary().splitlines() == ["[llm, 1 LLM call(s)]", f'goal.progress "{GOAL}" -> 60%']
    assert memory.goals.open(user_id=U)[0].metadata["progress"] == 0.6

    second = turn(memory, "My API key is sk-EXAMPLE-not-a-real-key-000, keep it for later.")
    assert (second.router, second.model_calls) == ("llm", 1)
    assert second.ops[0].status == "skipped"
    assert second.ops[0].error.startswith("rejected by a processor")
    assert second.summary().splitlines()[1].startswith('fact.add "User\'s API key is [redacted: api_key]"')
    assert not any("sk-EXAMPLE" in prompt for prompt in model.CALLS)

    third = turn(memory, "thanks!")
    assert third.summary().splitlines() == ["[llm, 0 LLM call(s)]", "skipped before calling the model: small talk"]

    fourth = turn(memory, "I prefer bullet points over long paragraphs.")
    assert fourth.summary().splitlines() == [
        "[llm->heuristic, 1 LLM call(s)]",
        'instruction.add "User prefers bullet points over long paragraphs."',
        "the model failed (ValueError: no operations JSON found in the model output); "
        "the offline router decided instead",
    ]
    assert len(model.CALLS) == 3
    stored = [r.content for r in memory.memories(user_id=U)]
    assert not any("sk-EXAMPLE" in c for c in stored)
    stats = memory.intelligence.stats()
    assert (stats["turns"], stats["gated"], stats["model_calls"], stats["fallbacks"]) == (4, 1, 3, 1)


def test_the_prompt_shows_refs_goals_decisions_working_memory_and_today(memory: MemoryLayer) -> None:
    memory.goals.add(GOAL, user_id=U)
    memory.decisions.add("use pgvector because we already run Postgres", user_id=U)
    memory.facts.add("The line 3 drive is a Siemens G120.", user_id=U)
    memory.working.set("ticket", "INC-4521", user_id=U, session_id=S)
    turn(memory, "The line 3 drive tripped again.")
    prompt = model.CALLS[-1]
    assert f"g1: [goal] {GOAL}" in prompt
    assert "d1: [decision] use pgvector" in prompt
    assert "m1: [factual] The line 3 drive is a Siemens G120" in prompt
    assert "ticket: INC-4521" in prompt
    assert "user: The line 3 drive tripped again." in prompt
    import datetime

    assert datetime.date.today().isoformat() in prompt


def test_a_made_up_target_is_skipped(memory: MemoryLayer) -> None:
    memory.facts.add("The plant runs three shifts.", user_id=U)
    model.SCRIPT["The night shift was cancelled."] = {
        "operations": [
            {"op": "memory.delete", "target": "m9"},
            {"op": "fact.update", "target": "x123", "text": "Two shifts."},
        ]
    }
    before = [(r.id, r.version) for r in memory.memories(user_id=U)]
    report = turn(memory, "The night shift was cancelled.")
    assert [op.status for op in report.ops] == ["skipped", "skipped"]
    assert "not one of the memories shown" in report.ops[0].error
    assert [(r.id, r.version) for r in memory.memories(user_id=U)] == before


def test_a_model_naming_another_users_memory_reaches_nothing(memory: MemoryLayer) -> None:
    theirs = memory.facts.add("Krutika's badge number is 4471.", user_id=OTHER)
    model.SCRIPT["Krutika's badge number changed last week."] = {
        "operations": [
            {"op": "memory.delete", "target": theirs.id},
            {"op": "fact.update", "target": theirs.id, "text": "gone"},
        ]
    }
    report = turn(memory, "Krutika's badge number changed last week.")
    assert all(op.status == "skipped" for op in report.ops)
    assert len(report.ops) == 2
    assert memory.get(theirs.id, user_id=OTHER).content == "Krutika's badge number is 4471."


def test_ownership_is_checked_again_by_the_executor(memory: MemoryLayer) -> None:
    """Even a router that hands the executor another user's real id reaches nothing."""
    from kioko_intelligence import MemoryOp, OpExecutor

    theirs = memory.facts.add("Krutika likes tea.", user_id=OTHER)
    ops = OpExecutor(memory).apply([MemoryOp("memory.delete", target=theirs.id)], user_id=U)
    assert ops[0].status == "skipped"
    assert memory.get(theirs.id, user_id=OTHER)


def test_small_talk_and_questions_never_reach_the_model_four_calls_for_fourteen_turns(memory: MemoryLayer) -> None:
    conversation = [
        "Hi!",
        "My goal is to cut unplanned downtime on line 3 by 20% by March 31.",
        "What should I look at first?",
        "Can you summarize the alarm log?",
        "thanks!",
        "The line 3 conveyor jammed twice this morning.",
        "ok",
        "How do I clear a jam?",
        "Great, thank you!",
        "We decided to use Grafana for the dashboards.",
        "Could you draft an email to the team?",
        "cool",
        "Downtime is already down 12%.",
        "Bye!",
    ]
    for text in conversation:
        turn(memory, text)
    routed = [p for p in model.CALLS if not p.startswith(SUMMARY_PROMPT.splitlines()[0])]
    assert len(routed) == 4
    # the tenth turn of the session also folded the conversation into its summary with the model:
    # maintenance, not the router (stats count the router's calls)
    assert len(model.CALLS) == 5
    stats = memory.intelligence.stats()
    assert (stats["turns"], stats["gated"], stats["model_calls"]) == (14, 10, 4)


@pytest.mark.parametrize(
    "answer, error",
    [
        (RuntimeError("the model service is down"), "RuntimeError: the model service is down"),
        ("I am not sure what to do here.", "ValueError: no operations JSON found in the model output"),
        ('{"operations": "lots"}', "ValueError: no operations JSON found in the model output"),
    ],
)
def test_a_failing_model_falls_back_to_the_offline_router(memory: MemoryLayer, answer, error: str) -> None:
    model.SCRIPT["I love hiking."] = answer
    report = turn(memory, "I love hiking.")
    assert (report.router, report.model_calls, report.error) == ("llm->heuristic", 1, error)
    assert [op.op for op in report.ops] == ["preference.add"]
    assert report.ops[0].status == "applied"


def test_a_hanging_model_times_out_and_falls_back() -> None:
    release = threading.Event()

    def hangs(prompt: str) -> str:
        release.wait(30)
        return '{"operations": []}'

    memory = kioko.intelligent("memory://", intelligence=Intelligence(llm=hangs, timeout=0.2))
    try:
        report = memory.record_turn("I love hiking.", user_id=U)
        assert report.router == "llm->heuristic"
        assert report.error.startswith("TimeoutError")
        assert [r.content for r in memory.memories(user_id=U)] == ["User loves hiking."]
    finally:
        release.set()


def test_an_invalid_op_is_skipped_and_the_valid_ones_apply(memory: MemoryLayer) -> None:
    memory.goals.add(GOAL, user_id=U)
    model.SCRIPT["Line 3 had a good week."] = {
        "operations": [
            {"op": "goal.teleport", "target": "g1"},
            {"op": "goal.progress", "target": "g1"},
            {"op": "goal.progress", "target": "g1", "progress": "lots"},
            {"op": "episode.add", "text": "Line 3 had a good week."},
        ]
    }
    report = turn(memory, "Line 3 had a good week.")
    assert [(op.op, op.status) for op in report.ops] == [
        ("goal.progress", "skipped"),
        ("goal.progress", "failed"),
        ("episode.add", "applied"),
    ]
    assert "missing field(s): progress" in report.ops[0].error
    assert memory.goals.open(user_id=U)[0].metadata["progress"] == 0.0


def test_objects_with_invoke_or_run_work_as_models() -> None:
    class Reply:
        content = '{"operations": [{"op": "fact.add", "text": "User has two kids."}]}'

    class ChatModel:
        def invoke(self, prompt: str) -> Reply:
            return Reply()

    class Agent:
        def run(self, prompt: str) -> Reply:
            return Reply()

    for llm in (ChatModel(), Agent()):
        memory = kioko.intelligent("memory://", llm=llm)
        report = memory.record_turn("I have two kids.", user_id=U)
        assert report.router == "llm"
        assert report.applied[0].op == "fact.add"


def test_a_prompt_template_must_keep_the_placeholders() -> None:
    with pytest.raises(ValueError, match="conversation"):
        LLMRouter(model.ask, prompt_template="Decide: {related} {goals} {decisions} {served} {working} {today}")
    custom = "Mine. " + DEFAULT_MANAGE_PROMPT
    assert LLMRouter(model.ask, prompt_template=custom).prompt_template.startswith("Mine.")


def test_the_json_config_imports_the_model(tmp_path: Path) -> None:
    config = {
        "url": f"sqlite:///{tmp_path / 'c.db'}",
        "intelligence": {"type": "llm", "llm": {"$import": "intelligence_models:ask"}},
    }
    memory = kioko.connect(json.loads(json.dumps(config)))
    model.SCRIPT["I have two kids."] = {"operations": [{"op": "fact.add", "text": "User has two kids."}]}
    assert memory.record_turn("I have two kids.", user_id=U).router == "llm"
    assert memory.facts.list(user_id=U)[0].content == "User has two kids."
    offline = kioko.connect({"url": "memory://", "intelligence": "heuristic"})
    assert offline.record_turn("I have two kids.", user_id=U).router == "heuristic"


def test_a_bad_import_is_a_typed_error() -> None:
    from kioko_intelligence import IntelligenceConfigError

    with pytest.raises(IntelligenceConfigError, match="could not import"):
        kioko.connect({"url": "memory://", "intelligence": {"type": "llm", "llm": {"$import": "nowhere.at_all:ask"}}})
    with pytest.raises(IntelligenceConfigError):
        kioko.connect({"url": "memory://", "intelligence": "psychic"})


def test_the_model_credits_what_recall_served_by_its_p_ref(memory: MemoryLayer) -> None:
    procedure = memory.procedures.add("Reset the safety relay", ["Switch off the breaker", "Press reset"], user_id=U)
    memory.recall("How do I reset the safety relay?", user_id=U, session_id=S)
    model.SCRIPT["That fixed the relay, it works now."] = {
        "operations": [
            {"op": "procedure.outcome", "target": "p1", "worked": True, "reason": "the user confirmed the fix"}
        ]
    }
    report = turn(memory, "That fixed the relay, it works now.")
    assert "p1: [procedural] Reset the safety relay" in model.CALLS[-1]
    assert [(op.op, op.status, op.target) for op in report.ops] == [("procedure.outcome", "applied", procedure.id)]
    assert memory.procedures.get(procedure.id, user_id=U).metadata["successes"] == 1
