"""A live Kioko service on a free loopback port, for the service tests."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

import kioko
from kioko.http import create_app
from kioko.http.live import LiveServer


@contextmanager
def live_service(url: str, **app_options: Any) -> Iterator[tuple[LiveServer, Any]]:
    """(server, layer): a layer with linking on over ``url``, served until the block ends."""
    layer = kioko.connect(url, auto_link=True)
    try:
        with LiveServer(create_app(layer, **app_options)) as server:
            yield server, layer
    finally:
        layer.close()


class Receiver:
    """A webhook receiver on a loopback port: records each POST; ``fail_first`` answers 500 that many times;
    while ``gate`` is clear, requests wait (a receiver that hangs)."""

    def __init__(self, fail_first: int = 0) -> None:
        self.received: list[dict] = []
        self.fail_first = fail_first
        self.gate = threading.Event()
        self.gate.set()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802  (the http.server name)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                owner.gate.wait(10)
                owner.received.append({"headers": dict(self.headers), "body": body})
                failing = owner.fail_first > 0
                owner.fail_first -= 1
                self.send_response(500 if failing else 204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, count: int, timeout: float = 20.0) -> list[dict]:
        deadline = time.monotonic() + timeout
        while len(self.received) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.received

    def close(self) -> None:
        self.gate.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()
