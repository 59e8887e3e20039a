"""RemoteMemory's own behaviour: scoped views, paging, batches, retries, and an unreachable server."""

from __future__ import annotations

from typing import Any

import pytest
from ports import free_port
from service_support import live_service

import kioko
import kioko.remote.client as remote_module
from kioko.http import create_app
from kioko.http.live import LiveServer
from kioko.remote.client import RemoteMemory
from kioko_core.privacy.limits import TooLargeError
from kioko_core.store import ConnectionLostError, InvalidRecordError, StoreError

U = "kumar"


def test_scoped_view_paging_and_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    with live_service("memory://") as (server, layer), kioko.connect(server.url) as remote:
        kumar = remote.scoped(user_id=U)
        fault = kumar.add("Line 3 keeps faulting with error E-217.", memory_type="episodic", session_id="s1")
        fix = kumar.add("Found it: the encoder cable on line 3 was loose.", memory_type="episodic", session_id="s1")
        assert any(fault.id in (k.source, k.target) for k in kumar.graph.links(fix.id))
        assert "E-217" in kumar.recall("line 3 faulting E-217").text
        stored = remote.add_many(["one note", {"content": "two notes", "memory_type": "preference"}], user_id=U)
        assert [r.kind for r in stored] == ["factual", "preference"]
        with pytest.raises(InvalidRecordError):
            remote.add_many(["fine", {"content": ""}], user_id=U)
        monkeypatch.setattr(remote_module, "PAGE", 2)  # the four memories come back two per page
        assert sorted(r.id for r in remote.memories(user_id=U)) == sorted(r.id for r in layer.memories(user_id=U))
        assert len(list(remote.memories(user_id=U))) == 4
        assert [r.kind for r in remote.memories(user_id=U, kinds={"preference"})] == ["preference"]
        with pytest.raises(TooLargeError):
            remote.add("x" * 300_000, user_id=U)  # over the layer's content limit: 413, the library's error
        assert remote.forget_user(user_id=U) == 4


class _Counting:
    """Counts the requests that reach the app (by method), to see what the client retried."""

    def __init__(self, app: Any) -> None:
        self.app, self.seen = app, []

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.seen.append(scope["method"])
        await self.app(scope, receive, send)


def test_idempotent_calls_are_retried_on_503_and_writes_are_not(tmp_path) -> None:
    layer = kioko.connect(f"sqlite:///{tmp_path / 'gone.db'}")
    counted = _Counting(create_app(layer, webhooks=False))
    with LiveServer(counted) as server:
        remote = RemoteMemory(server.url, retries=2, backoff=0.01)
        layer.store.close()  # every call now finds the store unreachable: 503
        with pytest.raises(StoreError):
            remote.get("x", user_id=U)
        assert counted.seen == ["GET"] * 3
        counted.seen.clear()
        with pytest.raises(StoreError):
            remote.add("a note", user_id=U)
        assert counted.seen == ["POST"]
        remote.close()


def test_an_unreachable_server_is_a_connection_lost_error() -> None:
    port = free_port()  # closed again below: nothing listens there
    remote = kioko.connect(f"http://127.0.0.1:{port}", retries=1, backoff=0.01, timeout=2)
    with pytest.raises(ConnectionLostError, match="did not answer"):
        remote.recall("anything", user_id=U)
    remote.close()
