"""RemoteMemory is a kioko.Memory with the library's keywords and types (each test failed on the old client)."""

from __future__ import annotations

import inspect
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest

import kioko
from kioko.api.auth import add_key
from kioko.api.errors import Forbidden
from kioko.http import create_app
from kioko.http.live import LiveServer
from kioko.remote.client import RemoteMemory
from kioko_core.graph.entities import Triple
from kioko_core.kinds import MANAGERS
from kioko_core.store import InvalidRecordError

U = "kumar"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any, dict[str, str]]]:
    keys_file = tmp_path_factory.mktemp("keys") / "keys.json"
    keys = {"kumar": add_key(keys_file, name="kumar", users=[U]), "admin": add_key(keys_file, name="ops", admin=True)}
    layer = kioko.intelligent("memory://")
    with LiveServer(create_app(layer, api_keys=keys_file)) as server:
        yield server, layer, keys
    layer.close()


@pytest.fixture
def admin(served: Any) -> Iterator[RemoteMemory]:
    server, _, keys = served
    with RemoteMemory(server.url, api_key=keys["admin"]) as remote:
        yield remote


def test_both_surfaces_are_a_memory(admin: RemoteMemory) -> None:
    layer = kioko.connect("memory://")
    assert isinstance(layer, kioko.Memory)
    assert isinstance(admin, kioko.Memory)
    assert isinstance(admin.scoped(user_id=U), kioko.Memory)
    layer.close()


def test_a_user_bound_key_may_omit_user_id(served: Any) -> None:
    server, layer, keys = served
    with kioko.connect(server.url, api_key=keys["kumar"]) as remote:
        stored = remote.add("Kumar keeps his notes in one place.")
        assert stored.user_id == U
        assert remote.get(stored.id).id == stored.id
        assert layer.get(stored.id, user_id=U).content == stored.content
        assert stored.id in [r.id for r in remote.memories()]
        assert remote.goals.add("Ship the remote client").user_id == U


def test_add_takes_an_embedding_and_a_datetime(admin: RemoteMemory, served: Any) -> None:
    layer = served[1]
    vector = np.random.default_rng(7).standard_normal(layer.embedder.dim).astype(np.float32)
    vector /= np.linalg.norm(vector)
    when = datetime(2024, 3, 1, 9, 30, tzinfo=UTC)
    stored = admin.add("A note with its own vector.", user_id=U, embedding=vector, created_at=when)
    assert stored.created_at == when.timestamp()
    kept = layer.store.get(stored.scope, [stored.id])[0]
    assert np.allclose(np.asarray(kept.embedding, dtype=np.float32), vector, atol=1e-6)


def test_managers_are_the_library_types_with_the_library_signatures(admin: RemoteMemory) -> None:
    for name, cls in MANAGERS.items():
        manager = getattr(admin, name)
        assert isinstance(manager, cls), name
        for method, function in inspect.getmembers(cls, inspect.isfunction):
            if method.startswith("_"):
                continue
            library = inspect.signature(function)
            assert inspect.signature(getattr(type(manager), method)) == library, f"{name}.{method}"
    with pytest.raises(TypeError, match="nope"):
        admin.goals.add("A goal", user_id=U, nope=1)  # type: ignore[call-arg]


def test_entities_intelligence_stats_and_pin_types(admin: RemoteMemory, served: Any) -> None:
    triple = admin.entities.add("Kumar", "works at", "Acme", user_id=U)
    assert isinstance(triple, Triple)
    assert triple.relation == "works_at"
    assert [t.id for t in admin.entities.relations("Kumar", user_id=U)] == [triple.id]
    assert [n.lower() for n in admin.entities.neighbors("Kumar", user_id=U)] == ["acme"]
    closed = admin.entities.invalidate(triple.id, user_id=U)
    assert closed is not None
    assert closed.valid_to is not None
    admin.record_turn("I prefer tea over coffee.", user_id=U, session_id="s1")
    assert admin.intelligence is not None
    stats = admin.intelligence.stats()
    assert stats == served[1].intelligence.stats()
    assert stats["turns"] >= 1
    fact = admin.add("The office is on the third floor.", user_id=U)
    assert admin.pin(fact.id, user_id=U).metadata["pinned"] is True
    report = admin.manage("Remember that the car is blue.", user_id=U)
    assert type(report).__name__ == "ManageReport"
    assert report.ops


def test_stats_need_an_admin_key(served: Any) -> None:
    server, _, keys = served
    with kioko.connect(server.url, api_key=keys["kumar"]) as remote:
        assert remote.intelligence is not None
        with pytest.raises(Forbidden):
            remote.intelligence.stats()


def test_events_on_and_off(served: Any) -> None:
    server, _, keys = served
    heard: list[dict[str, Any]] = []
    arrived = threading.Event()

    def listener(payload: dict[str, Any]) -> None:
        heard.append(payload)
        arrived.set()

    with kioko.connect(server.url, api_key=keys["kumar"]) as remote:
        assert remote.on("memory.added", listener) is listener
        stored = remote.add("An event for Kumar.")
        assert arrived.wait(15), "no event arrived"
        assert heard[0]["event"] == "memory.added"
        assert heard[0]["memory"]["id"] == stored.id
        assert remote.off("memory.added", listener) is True
        assert remote.off("memory.added", listener) is False


def test_a_scoped_view_fills_in_and_guards_its_user(admin: RemoteMemory) -> None:
    kumar = admin.scoped(user_id=U)
    assert kumar.scope is not None
    assert kumar.scope.user_id == U
    goal = kumar.goals.add("Bound goal")
    assert goal.user_id == U
    assert kumar.goals.get(goal.id).id == goal.id
    with pytest.raises(InvalidRecordError, match="bound to user"):
        kumar.get(goal.id, user_id="someone-else")
    with pytest.raises(InvalidRecordError, match="bound to user"):
        kumar.goals.get(goal.id, user_id="someone-else")
    kumar.close()  # a view leaves the client open
    assert admin.get(goal.id, user_id=U).id == goal.id


def test_every_manager_call_has_an_operation() -> None:
    from kioko.remote.calls import missing_operations

    assert missing_operations() == []
    assert admin_alias_is_same()


def admin_alias_is_same() -> bool:
    remote = RemoteMemory("http://127.0.0.1:9")  # never called: building a client sends nothing
    try:
        return remote.lessons is remote.strategies
    finally:
        remote.close()
