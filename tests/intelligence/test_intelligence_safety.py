"""Safety and control (spec: intelligent memory, "Safety and control"): previews write nothing, bad input
gets a report or a typed error, secrets never become memories, no turn reaches another user's memory,
events never break a write.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kioko
from kioko_core.graph.entities import GRAPH_AGENT
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.privacy.secrets import DropSecrets
from kioko_core.store import InvalidRecordError, KiokoError, Scope

U, OTHER, S = "kumar", "krutika", "s1"


@pytest.fixture(params=["memory", "sqlite"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryLayer]:
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'safety.db'}"
    layer = kioko.intelligent(url)
    yield layer
    layer.close()


def snapshot(memory: MemoryLayer, user: str) -> list[tuple[Any, ...]]:
    """Every record of the user's memory scope and entity graph, field by field."""
    rows = []
    for scope in (Scope(user, None), Scope(user, GRAPH_AGENT)):
        for r in memory.store.scan(scope):
            rows.append(
                (
                    r.id,
                    r.kind,
                    r.content,
                    r.version,
                    r.created_at,
                    r.updated_at,
                    r.session_id,
                    json.dumps(r.metadata, sort_keys=True, default=str),
                    tuple(r.terms),
                )
            )
    return sorted(rows)


def seed(memory: MemoryLayer, user: str = U) -> None:
    for text in [
        "I'm Kumar, I live in Pune. My goal is to pass the Azure exam by March 31.",
        "We decided to use Qdrant for the maintenance notes because it is fast.",
        "I have two kids.",
        "My phone number is 555 0134.",
        "I love hiking.",
    ]:
        memory.record_turn(text, "", user_id=user, session_id=S)


# --------------------------------------------------------------------------- dry run


def test_a_dry_run_plans_every_op_and_writes_nothing(memory: MemoryLayer) -> None:
    seed(memory)
    before = snapshot(memory, U)
    text = (
        "I moved from Pune to Hyderabad last month. I'm 60% done with the Azure exam prep. I have three kids. "
        "We switched from Qdrant to pgvector because we already run Postgres. Forget my phone number. "
        "Forget that I love hiking. I'm debugging ticket INC-4521."
    )
    report = memory.manage(text, user_id=U, session_id=S, dry_run=True)
    assert report.dry_run
    assert {op.status for op in report.ops} == {"planned"}
    assert {
        "profile.set",
        "episode.add",
        "goal.progress",
        "fact.update",
        "decision.supersede",
        "memory.delete",
        "working.set",
    } <= {op.op for op in report.ops}
    assert snapshot(memory, U) == before
    applied = memory.manage(text, user_id=U, session_id=S)
    assert [op.op for op in applied.ops] == [op.op for op in report.ops]
    assert snapshot(memory, U) != before


# --------------------------------------------------------------------------- bad input


def test_an_empty_turn_is_a_report_with_nothing_to_remember(memory: MemoryLayer) -> None:
    for text in ["", "   ", "\n"]:
        report = memory.record_turn(text, user_id=U)
        assert report.ops == []
        assert report.skipped == "empty"
    assert snapshot(memory, U) == []


def test_a_one_megabyte_turn_is_refused_before_anything_is_written(memory: MemoryLayer) -> None:
    seed(memory)
    before = snapshot(memory, U)
    huge = "I have two kids and the line 3 drive shows error E-217. " * 18_000
    assert len(huge) > 1_000_000
    with pytest.raises(InvalidRecordError, match="at most"):
        memory.record_turn(huge, user_id=U, session_id=S)
    with pytest.raises(InvalidRecordError):
        memory.manage(huge, user_id=U)
    assert snapshot(memory, U) == before


@pytest.mark.parametrize("bad", [123, None, b"bytes", {"text": "hi"}, ["hi"], [{"role": "user", "content": 5}]])
def test_a_turn_that_is_not_text_is_a_typed_error(memory: MemoryLayer, bad: Any) -> None:
    with pytest.raises(InvalidRecordError):
        if isinstance(bad, list):
            memory.manage(bad, user_id=U)
        else:
            memory.record_turn(bad, user_id=U)
    assert snapshot(memory, U) == []


@pytest.mark.parametrize("user_id", ["", None, 7])
def test_a_missing_user_is_a_typed_error(memory: MemoryLayer, user_id: Any) -> None:
    with pytest.raises(KiokoError):
        memory.manage("I have two kids.", user_id=user_id)


def test_secrets_are_dropped_by_the_offline_router_too(memory: MemoryLayer) -> None:
    report = memory.record_turn(
        "My API key is sk-EXAMPLE-not-a-real-key-000, keep it for later. My password is hunter2.", user_id=U
    )
    assert report.ops
    assert all(op.status == "skipped" for op in report.ops)
    assert all("rejected by a processor" in op.error for op in report.ops)
    assert snapshot(memory, U) == []


# --------------------------------------------------------------------------- events


def test_events_report_managed_turns_and_new_links_and_a_failing_listener_breaks_nothing(memory: MemoryLayer) -> None:
    seen: list[dict[str, Any]] = []

    def broken(payload: dict[str, Any]) -> None:
        raise RuntimeError("listener bug")

    memory.on("memory.managed", broken)
    memory.on("memory.managed", seen.append)
    memory.on("memory.linked", seen.append)
    memory.record_turn("We decided to use Qdrant for the maintenance notes because it is fast.", user_id=U)
    report = memory.record_turn("We switched from Qdrant to pgvector because we already run Postgres.", user_id=U)
    assert report.ops[0].status == "applied"
    managed = [e for e in seen if e["event"] == "memory.managed"]
    linked = [e for e in seen if e["event"] == "memory.linked"]
    assert len(managed) == 2
    assert managed[1]["ops"][0]["op"] == "decision.supersede"
    assert any(e["type"] == "supersedes" for e in linked)
    assert all(e["user_id"] == U for e in linked)
    assert memory.off("memory.managed", broken)
    assert not memory.off("memory.managed", broken)


# --------------------------------------------------------------------------- plain layers


def test_learn_without_intelligence_keeps_the_user_messages_as_episodes() -> None:
    memory = kioko.connect("memory://")
    report = memory.learn(
        [
            {"role": "user", "content": "thanks!"},
            {"role": "assistant", "content": "You're welcome"},
            {"role": "user", "content": "The line 3 drive tripped."},
        ],
        user_id=U,
        session_id=S,
    )
    assert report.router == "plain"
    assert [op.status for op in report.ops] == ["applied", "applied"]
    assert sorted(r.content for r in memory.memories(user_id=U)) == ["The line 3 drive tripped.", "thanks!"]
    assert memory.intelligence is None
    assert memory.manage("I have two kids.", user_id=U).router == "heuristic"  # on demand, offline


def test_a_service_url_is_rejected_by_intelligent() -> None:
    with pytest.raises(KiokoError, match="service"):
        kioko.intelligent("http://localhost:8000")


def test_intelligent_on_an_existing_layer_turns_everything_on() -> None:
    """The layer returned has linking, the graph and intelligence on; the layer given is left as it was."""
    # a layer with linking off (connect() links by default), so "left as it was" shows in auto_link as well
    layer = kioko.connect("memory://", auto_link=False)
    smart = kioko.intelligent(layer)
    assert smart.auto_link
    assert smart.auto_graph
    assert smart.intelligence is not None
    assert smart.store is layer.store
    assert not layer.auto_link
    assert not layer.auto_graph
    assert layer.intelligence is None
    default = kioko.connect("memory://")
    assert default.auto_link  # links by default
    assert not default.auto_graph  # the entity graph is intelligence's
    assert kioko.intelligent(default).auto_graph
    assert not default.auto_graph


# --------------------------------------------------------------------------- property


VOCABULARY = [
    "I",
    "I'm",
    "we",
    "my",
    "the",
    "a",
    "to",
    "from",
    "with",
    "by",
    "on",
    "line",
    "3",
    "60%",
    "done",
    "goal",
    "is",
    "decided",
    "use",
    "Qdrant",
    "pgvector",
    "switched",
    "moved",
    "Pune",
    "Hyderabad",
    "forget",
    "delete",
    "remember",
    "everything",
    "phone",
    "number",
    "password",
    "is",
    "hunter2",
    "sk-EXAMPLE-not-a-real-key-000",
    "thanks",
    "!",
    "?",
    ".",
    ",",
    "then",
    "To",
    "reset",
    "relay",
    "finished",
    "passed",
    "exam",
    "gave",
    "up",
    "on",
    "love",
    "hiking",
    "prefer",
    "short",
    "answers",
    "always",
    "ticket",
    "INC-4521",
    "error",
    "E-217",
    "lesson",
    "learned:",
    "yesterday",
    "last",
    "month",
    "have",
    "two",
    "three",
    "kids",
    "Krutika",
    "reports",
    "Kumar",
    "clear",
    "all",
    "memories",
    "about",
    "your",
    "memory",
    "debugging",
    "api",
    "key",
    "\n",
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    turns=st.lists(st.lists(st.sampled_from(VOCABULARY), min_size=0, max_size=25).map(" ".join), min_size=1, max_size=5)
)
def test_random_turns_never_raise_never_store_a_secret_never_touch_another_user(turns: list[str]) -> None:
    memory = kioko.intelligent("memory://")
    memory.record_turn(
        "I'm Krutika, I live in Berlin. My password manager is 1Password. I love tea.", "", user_id=OTHER, session_id=S
    )
    theirs = snapshot(memory, OTHER)
    detector = DropSecrets()
    for text in turns:
        memory.record_turn(text, "ok", user_id=U, session_id=S)
        memory.manage(text, user_id=U, dry_run=True)
    for record in memory.store.scan(Scope(U, None)):
        assert not detector.check(record.content), record.content
        assert not detector.check(json.dumps(record.metadata, default=str)), record.metadata
    assert snapshot(memory, OTHER) == theirs
