"""Webhooks cannot be turned against the server's own network: loopback, private, link-local, multicast,
unspecified and cloud-metadata targets are refused at registration and again at each connection (on the
address actually used, so a name that rebinds to 127.0.0.1 after registration reaches nothing), redirects
are not followed, and plain http needs the operator's allowance.

Every listener here is on 127.0.0.1 and counts the TCP connections it accepts, not only requests: a
refused delivery must not even connect. No test sends anything to another address: public addresses
appear only as answers of a resolver the test controls, swapped for loopback before any delivery.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from ports import free_port
from service_support import live_service

from kioko.api.webhook_guard import WebhookGuard, WebhookRefused

U = "kumar"


class Listener:
    """An HTTP server on a loopback port that counts accepted connections and records each POST;
    ``redirect_to`` answers every POST with a 307 there."""

    def __init__(self, redirect_to: str | None = None) -> None:
        self.connections = 0
        self.received: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802  (the http.server name)
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                owner.received.append({"headers": dict(self.headers), "body": body, "path": self.path})
                if redirect_to:
                    self.send_response(307)
                    self.send_header("Location", redirect_to)
                else:
                    self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        class Server(ThreadingHTTPServer):
            def verify_request(self, request: Any, client_address: Any) -> bool:
                owner.connections += 1
                return True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    made = Listener()
    yield made
    made.close()


def _until(condition: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _dispatcher(server: Any) -> Any:
    return server._server.config.app.state.webhooks.dispatcher


INTERNAL = [
    ("http://127.0.0.1:{port}/hook", "loopback"),
    ("https://127.0.0.2/hook", "loopback"),
    ("https://[::1]/hook", "loopback"),
    ("https://10.0.0.5/hook", "private"),
    ("https://172.16.3.4/hook", "private"),
    ("https://192.168.1.10/hook", "private"),
    ("https://[fd12:3456::1]/hook", "private"),
    ("http://169.254.169.254/latest/meta-data", "cloud metadata"),
    ("https://169.254.170.2/v2/credentials", "cloud metadata"),
    ("https://[fd00:ec2::254]/latest", "cloud metadata"),
    ("https://100.100.100.200/latest", "cloud metadata"),
    ("https://169.254.1.1/hook", "link-local"),
    ("https://[fe80::1]/hook", "link-local"),
    ("https://224.0.0.1/hook", "multicast"),
    ("https://[ff02::1]/hook", "multicast"),
    ("https://0.0.0.0/hook", "unspecified"),
    ("https://[::]/hook", "unspecified"),
    ("https://[::ffff:127.0.0.1]/hook", "loopback"),  # an IPv4 address in IPv6 clothing goes where it points
    ("https://[64:ff9b::a00:5]/hook", "private"),  # NAT64 of 10.0.0.5
    ("https://[2002:7f00:1::]/hook", "loopback"),  # 6to4 of 127.0.0.1
    ("https://100.64.0.1/hook", "not a public address"),  # carrier-grade NAT
    ("https://localhost/hook", "loopback name"),
    ("https://api.localhost/hook", "loopback name"),
    ("https://metadata.google.internal/computeMetadata/v1/", "cloud metadata name"),
    ("https://2130706433/hook", "not a dotted address"),  # 127.0.0.1 as one number
    ("https://0x7f.1/hook", "not a dotted address"),
    ("https://127.1/hook", "not a dotted address"),
    ("http://hooks.example.com/hook", "https"),  # plain http to a host nobody allowed
]


def test_internal_targets_are_refused_at_registration_with_the_reason(listener: Listener) -> None:
    with live_service("memory://") as (server, layer), httpx.Client(base_url=server.url) as api:
        for template, reason in INTERNAL:
            url = template.format(port=listener.port)
            answer = api.post("/v1/webhooks", json={"url": url, "user_id": U})
            assert answer.status_code == 422, (url, answer.text)
            error = answer.json()["error"]
            assert error["type"] == "WebhookRefused", (url, error)
            assert reason in error["message"], (url, error)
        assert api.get("/v1/webhooks", params={"user_id": U}).json() == []
        api.post("/v1/memories", json={"content": "Line 3 keeps faulting.", "user_id": U})
    assert listener.connections == 0
    assert listener.received == []


def test_a_public_https_target_passes_and_the_operator_can_allow_hosts_addresses_and_networks() -> None:
    # literal public addresses and resolver answers only: nothing is looked up or contacted
    resolved = {"hooks.example.com": ["93.184.215.14"], "split.example.com": ["93.184.215.14", "10.0.0.5"]}
    guard = WebhookGuard(resolve=lambda host, port: resolved[host])
    guard.check_url("https://93.184.215.14/hook")
    guard.check_url("https://[2606:4700::1111]/hook")
    guard.check_url("https://hooks.example.com/hook")
    with pytest.raises(WebhookRefused, match=r"split.example.com \(10.0.0.5\): a private address"):
        guard.check_url("https://split.example.com/hook")  # one internal answer refuses the name
    with pytest.raises(WebhookRefused, match="https"):
        guard.check_url("http://93.184.215.14/hook")

    allowed = WebhookGuard(["10.1.0.0/16", "127.0.0.1", "Hooks.Internal."], resolve=lambda host, port: ["10.1.2.3"])
    allowed.check_url("http://10.1.9.9:8080/hook")  # in the network: http too
    allowed.check_url("http://127.0.0.1:9/hook")
    allowed.check_url("http://hooks.internal/hook")  # a name, matched without case or the final dot
    allowed.check_url("https://builds.corp/hook")  # resolves into the allowed network
    with pytest.raises(WebhookRefused, match="private"):
        allowed.check_url("https://10.2.0.1/hook")
    with pytest.raises(WebhookRefused, match="only to"):
        WebhookGuard(only=["hooks.example.com"]).check_url("https://other.example.com/hook")


def test_a_loopback_listener_gets_nothing_unless_allowed_even_from_a_stored_registration(listener: Listener) -> None:
    with live_service("memory://") as (server, layer), httpx.Client(base_url=server.url) as api:
        assert api.post("/v1/webhooks", json={"url": listener.url, "user_id": U}).status_code == 422
        # a registration already in the store (made before the guard, or by an operator's import) is
        # checked again when delivering: refused, not retried, and no connection is opened
        from kioko.api.webhook_records import WEBHOOK_AGENT, WEBHOOK_KIND
        from kioko_core.store import Record, Upsert

        stored = Record(
            id="whold",
            user_id=U,
            agent_id=WEBHOOK_AGENT,
            kind=WEBHOOK_KIND,
            content=listener.url,
            metadata={"url": listener.url, "events": None, "secret": "s" * 32},
        )
        layer.store.update_many([Upsert(record=stored, expected_version=0)])
        server._server.config.app.state.webhooks.forget(U)
        api.post("/v1/memories", json={"content": "Line 3 keeps faulting.", "user_id": U})
        _until(lambda: _dispatcher(server).refused == 1)
        time.sleep(0.3)
        assert listener.connections == 0
        assert listener.received == []
        assert _dispatcher(server).delivered == 0
        assert _dispatcher(server).failed == 0

    with (
        live_service("memory://", webhook_allow=["127.0.0.1"]) as (server, layer),
        httpx.Client(base_url=server.url) as api,
    ):
        assert api.post("/v1/webhooks", json={"url": listener.url, "user_id": U}).status_code == 201
        api.post("/v1/memories", json={"content": "Line 3 keeps faulting.", "user_id": U})
        # the listener records the request before it answers, the dispatcher counts it once the answer is back
        _until(lambda: len(listener.received) == 1 and _dispatcher(server).delivered == 1)


def test_a_name_that_rebinds_to_loopback_after_registration_is_refused_at_connect_time(listener: Listener) -> None:
    answers = {"hooks.rebind.test": "93.184.215.14"}  # public while the registration is checked
    asked: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        return [answers[host]]

    with (
        live_service("memory://", webhook_resolver=resolve) as (server, layer),
        httpx.Client(base_url=server.url) as api,
    ):
        url = f"https://hooks.rebind.test:{listener.port}/hook"
        assert api.post("/v1/webhooks", json={"url": url, "user_id": U}).status_code == 201
        answers["hooks.rebind.test"] = "127.0.0.1"  # ... and loopback by the time a delivery connects
        api.post("/v1/memories", json={"content": "Line 3 keeps faulting.", "user_id": U})
        _until(lambda: _dispatcher(server).refused == 1)
        time.sleep(0.3)
    assert asked == ["hooks.rebind.test", "hooks.rebind.test"]  # once to register, once to connect
    assert listener.connections == 0
    assert listener.received == []


def test_delivery_connects_to_the_checked_address_and_keeps_the_name_in_the_host_header(listener: Listener) -> None:
    # the name is allowed by the operator; the resolver (not the system's) says where it is
    with (
        live_service(
            "memory://",
            webhook_allow=["hooks.internal.test"],
            webhook_resolver=lambda host, port: ["127.0.0.1"] if host == "hooks.internal.test" else [],
        ) as (server, layer),
        httpx.Client(base_url=server.url) as api,
    ):
        url = f"http://hooks.internal.test:{listener.port}/hook?token=t1"
        assert api.post("/v1/webhooks", json={"url": url, "user_id": U}).status_code == 201
        api.post("/v1/memories", json={"content": "Line 3 keeps faulting.", "user_id": U})
        _until(lambda: len(listener.received) == 1)
    got = listener.received[0]
    assert got["headers"]["Host"] == f"hooks.internal.test:{listener.port}"
    assert got["path"] == "/hook?token=t1"


def test_redirects_are_not_followed() -> None:
    target = Listener()
    bouncer = Listener(redirect_to=target.url)
    try:
        with (
            live_service("memory://", webhook_allow=["127.0.0.1"]) as (server, layer),
            httpx.Client(base_url=server.url) as api,
        ):
            api.post("/v1/webhooks", json={"url": bouncer.url, "user_id": U})
            api.post("/v1/memories", json={"content": "Line 3 keeps faulting.", "user_id": U})
            _until(lambda: len(bouncer.received) >= 2)  # a 307 is a failed delivery, tried again later
        assert target.connections == 0
        assert target.received == []
    finally:
        bouncer.close()
        target.close()


def test_kioko_serve_webhook_allow(tmp_path: Path, listener: Listener) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "kioko", "serve", "--store", "memory://", "--port", str(port)]
        + ["--webhook-allow", "127.0.0.1", "--webhook-allow", "10.1.0.0/16", "--log-level", "warning"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 60
        while True:
            assert process.poll() is None, "kioko serve did not start"
            assert time.monotonic() < deadline, "kioko serve did not start"
            try:
                if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        with httpx.Client(base_url=url) as api:
            assert api.post("/v1/webhooks", json={"url": listener.url, "user_id": U}).status_code == 201
            refused = api.post("/v1/webhooks", json={"url": "http://192.168.1.10/hook", "user_id": U})
            assert refused.status_code == 422
            assert "private" in refused.text
            api.post("/v1/memories", json={"content": "Line 3 keeps faulting.", "user_id": U})
            _until(lambda: len(listener.received) == 1)
    finally:
        process.terminate()
        assert process.wait(30) in (0, -15)
    assert "webhooks may also reach 127.0.0.1, 10.1.0.0/16" in process.stderr.read().decode()
