"""What only the HTTP surface of plans, pins, the stable prefix and maintenance has (the library's own tests of
them, tests/intelligence/test_recall_plan.py, test_pins.py and test_maintenance.py, run over RemoteMemory as a surface of
their own modules; the served layer is over memory:// or a SQLite file).
Here: the routes' own answers, the admin-only "every user", and the typed errors a client gets before anything
is sent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from plan_support import plant
from remote_support import remote_for, served_store, server  # noqa: F401  (fixtures)

import kioko
from kioko.api.auth import KeyRing, hash_key
from kioko.api.errors import Forbidden
from kioko.http import create_app
from kioko.http.live import LiveServer
from kioko.remote.client import RemoteMemory
from kioko_intelligence.planner import RecallPlan

U = {"user_id": "kumar"}


@pytest.fixture
def memory(remote_for: Callable[..., RemoteMemory]) -> RemoteMemory:
    return remote_for(make=lambda url, auto_link: kioko.connect(url))


@pytest.fixture
def open_memory(remote_for: Callable[..., RemoteMemory]) -> Callable[..., RemoteMemory]:
    return lambda **options: remote_for(make=lambda url, auto_link: kioko.connect(url, **options))


# --------------------------------------------------------------------------- only over HTTP


def test_the_routes_answer_what_the_layer_answers(server: tuple[LiveServer, Any], memory: RemoteMemory) -> None:
    live, app = server
    layer = app.state.kioko.layer
    fact = memory.facts.add("The plant's PLC network uses the 10.20.0.0/16 subnet", **U)
    http = memory._http
    planned = http.post("/v1/plan", json={"query": "How do I reset the relay?", **U}).json()
    assert planned == layer.plan("How do I reset the relay?", **U).to_dict()
    assert http.post(f"/v1/memories/{fact.id}/pin", json=U).json()["metadata"]["pinned"] is True
    assert [r["id"] for r in http.get("/v1/pins", params=U).json()] == [fact.id]
    prefix = http.get("/v1/kv", params=U).json()
    assert prefix == {"text": layer.kv(**U).text, "digest": layer.kv(**U).digest, "memory_ids": [fact.id]}
    ctx = http.post("/v1/recall", json={"query": "How do I reset the relay?", "plan": "auto", **U}).json()
    assert ctx["plan"]["intents"] == ["howto"]
    assert http.post("/v1/recall", json={"query": "subnet", **U}).json()["plan"] is None
    assert http.delete(f"/v1/memories/{fact.id}/pin", params=U).json()["metadata"]["pinned"] is False
    assert http.post("/v1/sessions/none-such/end", json=U).json() is None


def test_a_plan_crosses_the_wire_whole(memory: RemoteMemory) -> None:
    plant(memory)
    mine = RecallPlan(
        intents=["decision"], reason="mine", section_limits={"decisions": 1}, links=0, fill_recent=["decisions"]
    )
    ctx = memory.recall("which database?", plan=mine, **U)
    assert ctx.plan == mine
    assert memory.context("which database?", plan=mine, **U).plan == mine
    for bad in ({"intents": []}, "sometimes", 3):
        with pytest.raises(kioko.InvalidRecordError):
            memory.recall("anything", plan=bad, **U)
    with pytest.raises(kioko.InvalidRecordError):  # the server checks what a RecallPlan checks
        memory.request("POST", "/v1/recall", body={"query": "x", "plan": {"intents": ["weather"]}, **U})


def test_every_user_is_an_admin_keys_call(tmp_path) -> None:
    keys = KeyRing.from_config(
        {
            "keys": [
                {"name": "kumar", "sha256": hash_key("k-kumar"), "users": ["kumar"]},
                {"name": "ops", "sha256": hash_key("k-ops"), "admin": True},
            ]
        }
    )
    layer = kioko.connect(f"sqlite:///{tmp_path / 'keys.db'}", intelligence=True)
    try:
        with LiveServer(create_app(layer, api_keys=keys)) as live:
            with kioko.connect(live.url, api_key="k-kumar") as kumar, kioko.connect(live.url, api_key="k-ops") as ops:
                kumar.record_turn("I'm debugging ticket INC-4521, error E-217 on line 3.", session_id="s1", **U)
                ops.record_turn("I'm debugging ticket INC-7, error P-3 on line 5.", session_id="t1", user_id="asha")
                assert set(kumar.maintain(tasks=["end_sessions"], **U)) == {"kumar"}
                # a key bound to one user leaves user_id out and means that user, never every user
                assert set(kumar.maintain(tasks=["end_sessions"])) == {"kumar"}
                with pytest.raises(Forbidden):
                    kumar.maintain(tasks=["end_sessions"], user_id="asha")
                with pytest.raises(Forbidden):
                    kumar.plan("How do I reset it?", user_id="asha")
                assert set(ops.maintain(tasks=["end_sessions"])) == {"kumar", "asha"}
                with pytest.raises(kioko.InvalidRecordError):
                    ops.maintain(tasks=["no-such-task"])
                with pytest.raises(kioko.InvalidRecordError):
                    ops.maintain(agent_id="bot")  # an agent without its user
    finally:
        layer.close()


def test_reflect_runs_on_the_server_and_answers_what_the_library_answers(open_memory) -> None:
    with open_memory(intelligence=True) as memory:
        for day in (1, 2, 3):
            memory.episodes.add(f"Line 3 stopped on day {day}: the conveyor jammed at guard B.", **U)
        done = memory.reflect(**U)
        assert set(done) == {"insights", "themes", "error"}
        assert done["error"] is None
        assert done["insights"] == []
        themes = [memory.get(i, **U) for i in done["themes"]]
        assert themes
        assert any("line 3" in t.content.lower() for t in themes)
        assert all(t.metadata["reflection"] is True for t in themes)
        assert memory.reflect(**U)["themes"] == done["themes"]  # updated in place, not written again
        assert memory.scoped(**U).reflect() == memory.reflect(**U)
        with pytest.raises(kioko.InvalidRecordError):
            memory.reflect(user_id="@graph")
