"""A live server in a background thread on a free loopback port: for tests, benchmarks and notebooks.

with serve_in_thread(create_app(layer)) as server:
    remote = kioko.connect(server.url)
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any


class LiveServer:
    """uvicorn serving ``app`` on 127.0.0.1 in a daemon thread; ``url`` is where it answers."""

    def __init__(self, app: Any, *, host: str = "127.0.0.1", log_level: str = "warning") -> None:
        import uvicorn

        self.app = app
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, 0))
        self.port = self._socket.getsockname()[1]
        self.url = f"http://{host}:{self.port}"
        config = uvicorn.Config(app, log_level=log_level, access_log=False, lifespan="on", timeout_graceful_shutdown=5)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, name=f"kioko-live-{self.port}", daemon=True)

    def _run(self) -> None:
        asyncio.run(self._server.serve(sockets=[self._socket]))

    def start(self, timeout: float = 20.0) -> LiveServer:
        """Start serving on a thread; return once the server accepts connections (RuntimeError after ``timeout``)."""
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the live server on port {self.port} did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Stop the server and free its port."""
        self._server.should_exit = True
        self._thread.join(timeout=15)
        self._socket.close()

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_in_thread(app: Any, **options: Any) -> LiveServer:
    """A LiveServer for ``app`` on a loopback port (start it with :meth:`LiveServer.start`)."""
    return LiveServer(app, **options)
