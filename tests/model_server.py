"""A real OpenAI-compatible chat server on a free loopback port, answering from a script.

It serves ``POST .../chat/completions`` at any path (``/v1/chat/completions`` for OpenAI, Ollama and
OpenAI-compatible servers, ``/openai/deployments/<name>/chat/completions`` for Azure) and records every
request it gets (path, query, headers, JSON body, when), so a test checks what the provider sent and how
it retried. Each request takes the next :class:`Reply` of the script; an empty script answers
``{"operations": []}``.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Reply:
    """One scripted answer: ``content`` as a chat completion's message, or ``body`` sent as it is."""

    content: Any = None
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0

    def payload(self) -> bytes:
        if self.body is not None:
            return self.body if isinstance(self.body, bytes) else json.dumps(self.body).encode()
        content = self.content if isinstance(self.content, str) else json.dumps(self.content or {"operations": []})
        completion = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        }
        return json.dumps(completion).encode()


def ops(*operations: dict[str, Any]) -> Reply:
    """A 200 whose message is ``{"operations": [...]}``."""
    return Reply(content={"operations": list(operations)})


class ModelServer:
    """``with ModelServer() as server``: ``server.url`` (http://127.0.0.1:PORT), ``script``, ``requests``."""

    def __init__(self) -> None:
        self.script: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                split = urlsplit(self.path)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                with owner._lock:
                    owner.requests.append(
                        {
                            "path": split.path,
                            "query": {k: v[-1] for k, v in parse_qs(split.query).items()},
                            "headers": {k.lower(): v for k, v in self.headers.items()},
                            "json": body,
                            "at": time.monotonic(),
                        }
                    )
                    reply = owner.script.pop(0) if owner.script else Reply()
                if not split.path.endswith("/chat/completions"):
                    reply = Reply(status=404, body={"error": {"message": f"no route {split.path}"}})
                if reply.delay:
                    time.sleep(reply.delay)
                payload = reply.payload()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    pass  # the client gave up (a timeout test): nothing to answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="model-server", daemon=True)

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def said(self, index: int = -1) -> str:
        """The prompt of request ``index`` (its first message's content)."""
        return str(self.requests[index]["json"]["messages"][0]["content"])
