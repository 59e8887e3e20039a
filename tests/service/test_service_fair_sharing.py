"""One tenant cannot starve the others (issue 35): an API key runs a bounded number of requests at once (the rest
wait their turn, then 429), and one user's slow webhook receivers do not hold up another user's deliveries.

Nothing here measures time: the tests hold requests and receivers still with a lock and events, read the
server's own counts of what runs and waits, and check what has happened, in order. (benchmarks/tenant_flood.py
measures the latencies.)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_support import Receiver, live_service

from kioko.api.auth import add_key

LOOPBACK = ["127.0.0.1"]


def _until(condition: Callable[[], bool], what: str, limit: float = 30.0) -> None:
    """Wait for a state the server reaches on its own (bounded, so a broken server fails instead of hanging)."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.01)


@pytest.fixture
def keyed(tmp_path: Path) -> Iterator[tuple[Any, Any, dict[str, str]]]:
    keys_file = tmp_path / "keys.json"
    keys = {
        "flood": add_key(keys_file, name="flood", users=["ana"]),
        "other": add_key(keys_file, name="other", users=["ben"]),
        "wide": add_key(keys_file, name="wide", users=["cy"], concurrency=3),
    }
    with live_service("memory://", api_keys=keys_file, key_concurrency=2, key_waiting=2) as (server, layer):
        yield server, layer, keys


def _svc(server: Any) -> Any:
    return server._server.config.app.state.kioko


def test_a_key_runs_at_most_its_limit_at_once_and_the_rest_wait_their_turn(keyed: tuple[Any, Any, dict]) -> None:
    server, layer, keys = keyed
    svc = _svc(server)
    flood = {"authorization": f"Bearer {keys['flood']}"}
    answers: list[int] = []

    def write(n: int) -> None:
        reply = httpx.post(f"{server.url}/v1/memories", json={"content": f"Note {n}."}, headers=flood, timeout=60)
        answers.append(reply.status_code)

    key_id = svc.keys.authenticate(keys["flood"]).key_id
    svc.write_lock.acquire()  # every write that reaches its route stops there until released
    writers = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    try:
        for writer in writers:
            writer.start()
        _until(lambda: svc.flights.running.get(key_id) == 2 and svc.flights.waiting(key_id) == 2, "2 run, 2 wait")
        over = httpx.post(f"{server.url}/v1/memories", json={"content": "One more."}, headers=flood)
        assert over.status_code == 429
        assert over.json()["error"]["type"] == "TooManyRequests"
        assert over.headers["retry-after"] == "1"
        # another key is not held up by the first one's queue
        other = {"authorization": f"Bearer {keys['other']}"}
        assert httpx.get(f"{server.url}/v1/memories", headers=other).status_code == 200
        assert answers == []  # nothing of the flood finished while its writes were held
    finally:
        svc.write_lock.release()
        for writer in writers:
            writer.join(timeout=60)
    assert answers == [201] * 4
    # the gate counts a request done once the app returns, just after the client has its answer
    _until(lambda: svc.flights.running.get(key_id) is None, "every turn given back")
    assert svc.flights.peak[key_id] == 2
    assert len(list(layer.memories(user_id="ana"))) == 4


def test_a_keys_own_concurrency_wins_over_the_servers(keyed: tuple[Any, Any, dict]) -> None:
    server, _, keys = keyed
    svc = _svc(server)
    wide = {"authorization": f"Bearer {keys['wide']}"}
    key_id = svc.keys.authenticate(keys["wide"]).key_id
    answers: list[int] = []
    svc.write_lock.acquire()
    writers = [
        threading.Thread(
            target=lambda n=n: answers.append(
                httpx.post(
                    f"{server.url}/v1/memories", json={"content": f"N {n}."}, headers=wide, timeout=60
                ).status_code
            )
        )
        for n in range(3)
    ]
    try:
        for writer in writers:
            writer.start()
        _until(lambda: svc.flights.running.get(key_id) == 3, "3 running")
        assert svc.flights.waiting(key_id) == 0
    finally:
        svc.write_lock.release()
        for writer in writers:
            writer.join(timeout=60)
    assert answers == [201] * 3


def test_one_users_hanging_receivers_do_not_hold_up_another_users_deliveries() -> None:
    slow, slower, quick = Receiver(), Receiver(), Receiver()
    slow.gate.clear()  # both of ana's receivers hold every request until released
    slower.gate.clear()
    try:
        with (
            live_service("memory://", webhook_allow=LOOPBACK) as (server, _),
            httpx.Client(base_url=server.url) as api,
        ):
            for url in (slow.url, slower.url):
                api.post("/v1/webhooks", json={"url": url, "user_id": "ana", "events": ["memory.added"]})
            api.post("/v1/webhooks", json={"url": quick.url, "user_id": "ben", "events": ["memory.added"]})
            for n in range(3):
                assert (
                    api.post("/v1/memories", json={"content": f"Ana's note {n}.", "user_id": "ana"}).status_code == 201
                )
            dispatcher = server._server.config.app.state.webhooks.dispatcher
            _until(lambda: dispatcher.pending("ana") == 5, "one of ana's six deliveries taken, five waiting")
            assert api.post("/v1/memories", json={"content": "Ben's note.", "user_id": "ben"}).status_code == 201
            delivered = quick.wait_for(1)
            assert len(delivered) == 1
            assert b"Ben's note." in delivered[0]["body"]
            assert slow.received == []  # ana's receivers still hold her first delivery
            assert slower.received == []
            slow.gate.set()
            slower.gate.set()
            assert len(slow.wait_for(3)) == 3
            assert len(slower.wait_for(3)) == 3
    finally:
        for receiver in (slow, slower, quick):
            receiver.gate.set()
            receiver.close()
