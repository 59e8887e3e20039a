"""The intelligence across the store matrix (memory, SQLite, PostgreSQL, Qdrant local): the spec's
offline transcript, the LLM transcript with a stand-in model, and a dry run that writes nothing.

Each test has a user of its own, so the session's shared stores serve every test.
"""

from __future__ import annotations

import json

import intelligence_models as model
from intelligence_support import TRANSCRIPT
from linking_support import layer, linking_stores, make_layer, matrix_store, store, user  # noqa: F401

from kioko_core.layer.memory_layer import MemoryLayer
from kioko_intelligence import Intelligence

S = "s1"


def test_the_offline_transcript_on_every_store(make_layer, user: str) -> None:
    memory: MemoryLayer = make_layer(intelligence=True, auto_graph=True)
    for text, expected in TRANSCRIPT:
        report = memory.record_turn(text, "Noted.", user_id=user, session_id=S)
        assert [f"{op.op} {op.description}" for op in report.ops] == expected, report.summary()
        assert all(op.status == "applied" for op in report.ops)
    assert memory.goals.list(user_id=user)[0].metadata["progress"] == 0.6
    assert len(memory.decisions.current(user_id=user)) == 1


def test_the_llm_transcript_on_every_store(make_layer, user: str) -> None:
    model.SCRIPT.clear()
    model.CALLS.clear()
    memory: MemoryLayer = make_layer(intelligence=Intelligence(llm=model.ask))
    memory.goals.add("Cut unplanned downtime on line 3 by 20%", user_id=user)
    model.SCRIPT["Downtime is already down 12%."] = {
        "operations": [{"op": "goal.progress", "target": "g1", "progress": 0.6}]
    }
    model.SCRIPT["My API key is [redacted: api_key], keep it for later."] = {  # the model sees the turn redacted
        "operations": [{"op": "fact.add", "text": "User's API key is [redacted: api_key]"}]
    }
    model.SCRIPT["I prefer bullet points over long paragraphs."] = "no JSON here"
    statuses = []
    for text in [
        "Downtime is already down 12%.",
        "My API key is sk-EXAMPLE-not-a-real-key-000, keep it for later.",
        "thanks!",
        "I prefer bullet points over long paragraphs.",
    ]:
        report = memory.record_turn(text, "", user_id=user, session_id=S)
        statuses.append((report.router, report.model_calls, [(op.op, op.status) for op in report.ops]))
    assert statuses == [
        ("llm", 1, [("goal.progress", "applied")]),
        ("llm", 1, [("fact.add", "skipped")]),
        ("llm", 0, []),
        ("llm->heuristic", 1, [("instruction.add", "applied")]),
    ]
    assert not any("sk-EXAMPLE" in r.content for r in memory.memories(user_id=user))
    model.SCRIPT.clear()


def test_a_dry_run_writes_nothing_on_every_store(make_layer, user: str) -> None:
    memory: MemoryLayer = make_layer(intelligence=True, auto_graph=True)
    for text, _ in TRANSCRIPT[:3]:
        memory.record_turn(text, "", user_id=user, session_id=S)

    def state() -> list[tuple]:
        return sorted(
            (r.id, r.version, r.content, json.dumps(r.metadata, sort_keys=True, default=str))
            for r in memory.memories(user_id=user)
        )

    before = state()
    report = memory.manage(
        " ".join(text for text, _ in TRANSCRIPT[3:6]) + " Forget my name.", user_id=user, session_id=S, dry_run=True
    )
    assert len(report.ops) == 4
    assert {op.status for op in report.ops} == {"planned"}
    assert state() == before
