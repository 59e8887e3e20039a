"""Events: the in-process bus, webhooks delivered to a local receiver (signed, retried, never blocking a
write), and the server-sent event stream."""

from __future__ import annotations

import json
import threading
import time

import httpx
from service_support import Receiver, live_service, receiver  # noqa: F401  (fixture)

from kioko.api.webhook_guard import WebhookGuard
from kioko.http.events import Dispatcher, verify

STREAM_WAIT = 120.0
"""How long the listener waits for the stream's headers and lines: httpx's default 5 s read timeout was passed
before the server answered on a machine with both cores busy (the stream itself closes after its own 3 s)."""

U = "kumar"
LOOPBACK = ["127.0.0.1"]  # the receivers here listen on loopback, which webhooks may reach only when allowed


def test_a_failing_subscriber_never_fails_a_write_and_manage_events_reach_the_bus() -> None:
    with live_service("memory://") as (server, layer), httpx.Client(base_url=server.url) as api:
        seen: list[dict] = []

        def broken(payload: dict) -> None:
            raise RuntimeError("subscriber bug")

        layer.on("memory.added", broken)
        layer.on("*", seen.append)
        made = api.post("/v1/memories", json={"content": "Line 3 keeps faulting.", "user_id": U})
        assert made.status_code == 201
        assert [p["event"] for p in seen] == ["memory.added"]
        assert seen[0]["memory"]["id"] == made.json()["id"]
        layer.manage("My name is Kumar and I live in Pune.", user_id=U)  # the library's own events, same bus
        assert "memory.managed" in [p["event"] for p in seen]


def test_webhook_deliveries_are_signed_and_filtered(receiver: Receiver) -> None:
    with live_service("memory://", webhook_allow=LOOPBACK) as (server, layer), httpx.Client(base_url=server.url) as api:
        hook = api.post(
            "/v1/webhooks", json={"url": receiver.url, "user_id": U, "events": ["memory.added", "memory.deleted"]}
        ).json()
        assert len(hook["secret"]) >= 32
        assert api.get("/v1/webhooks", params={"user_id": U}).json()[0]["secret"] is None
        made = api.post("/v1/memories", json={"content": "Line 3 keeps faulting.", "user_id": U}).json()
        api.post("/v1/memories", json={"content": "Someone else's note.", "user_id": "krutika"})
        api.delete(f"/v1/memories/{made['id']}", params={"user_id": U})
        got = receiver.wait_for(2)
        assert [json.loads(r["body"])["event"] for r in got] == ["memory.added", "memory.deleted"]
        first = got[0]
        headers = {k.lower(): v for k, v in first["headers"].items()}
        assert verify(hook["secret"], headers["x-kioko-timestamp"], first["body"], headers["x-kioko-signature"])
        assert not verify(
            "another-secret-of-enough-length", headers["x-kioko-timestamp"], first["body"], headers["x-kioko-signature"]
        )
        assert json.loads(first["body"])["data"]["memory"]["id"] == made["id"]
        assert api.delete(f"/v1/webhooks/{hook['id']}", params={"user_id": U}).json() == {"deleted": True}
        api.post("/v1/memories", json={"content": "After the webhook went.", "user_id": U})
        time.sleep(0.3)
        assert len(receiver.received) == 2
        refused = api.post("/v1/webhooks", json={"url": "ftp://127.0.0.1/x", "user_id": U})
        assert refused.status_code == 422


def test_a_failing_receiver_is_retried_with_the_same_delivery() -> None:
    receiver = Receiver(fail_first=2)
    try:
        with (
            live_service("memory://", webhook_allow=LOOPBACK) as (server, layer),
            httpx.Client(base_url=server.url) as api,
        ):
            api.post("/v1/webhooks", json={"url": receiver.url, "user_id": U, "events": ["memory.added"]})
            api.post("/v1/memories", json={"content": "A note.", "user_id": U})
            got = receiver.wait_for(3)
            ids = {r["headers"]["X-Kioko-Delivery"] for r in got}
            assert len(got) == 3
            assert len(ids) == 1
            dispatcher = server._server.config.app.state.webhooks.dispatcher
            deadline = time.monotonic() + 60  # the receiver records a POST before the dispatcher reads its answer
            while dispatcher.delivered < 1 and time.monotonic() < deadline:
                time.sleep(0.02)
            assert dispatcher.delivered == 1
    finally:
        receiver.close()


def test_writes_never_wait_for_a_hanging_receiver(receiver: Receiver) -> None:
    receiver.gate.clear()  # the receiver holds every request until released
    with live_service("memory://", webhook_allow=LOOPBACK) as (server, layer), httpx.Client(base_url=server.url) as api:
        api.post("/v1/webhooks", json={"url": receiver.url, "user_id": U, "events": ["memory.added"]})
        statuses = [
            api.post("/v1/memories", json={"content": f"Note {i}.", "user_id": U}).status_code for i in range(10)
        ]
        assert statuses == [201] * 10  # every write done, nothing delivered yet
        assert receiver.received == []
        receiver.gate.set()
        assert len(receiver.wait_for(10)) == 10


def test_a_full_queue_drops_deliveries_instead_of_blocking(receiver: Receiver) -> None:
    receiver.gate.clear()
    dispatcher = Dispatcher(guard=WebhookGuard(LOOPBACK), queue_size=2, retry_delays=())
    try:
        accepted = [dispatcher.submit(receiver.url, "s" * 32, "memory.added", {"n": i}) for i in range(6)]
        assert accepted[:2] == [True, True]
        assert accepted.count(False) >= 3
        assert dispatcher.dropped >= 3
    finally:
        receiver.gate.set()
        dispatcher.close()


def test_event_stream_sends_the_users_writes() -> None:
    with live_service("memory://") as (server, layer):
        lines: list[str] = []

        def listen() -> None:
            with httpx.stream(
                "GET", f"{server.url}/v1/events", params={"user_id": U, "timeout": 3}, timeout=STREAM_WAIT
            ) as response:
                for line in response.iter_lines():
                    lines.append(line)

        thread = threading.Thread(target=listen)
        thread.start()
        deadline = time.monotonic() + 60  # a deadline, not a pause: a loaded machine may take long
        while not lines and time.monotonic() < deadline:
            time.sleep(0.02)  # connected once the first comment arrives
        with httpx.Client(base_url=server.url) as api:
            api.post("/v1/memories", json={"content": "Other user's note.", "user_id": "krutika"})
            api.post("/v1/memories", json={"content": "Seen on the stream.", "user_id": U})
        thread.join(10)
        events = [line for line in lines if line.startswith("event: ")]
        data = [json.loads(line[6:]) for line in lines if line.startswith("data: ")]
        assert events == ["event: memory.added"]
        assert data[0]["memory"]["content"] == "Seen on the stream."
