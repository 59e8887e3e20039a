"""A Kioko service's events, read from its stream (``GET /v1/events``, server-sent events) on a thread.

:meth:`RemoteMemory.on` / :meth:`AsyncRemoteMemory.on` keep one :class:`EventStream` per client: it
connects when the first callback is added (and waits until the server has it listening, so a write made
after ``on`` returns is heard), calls each callback with the event's payload as the layer's bus would
(``payload["event"]`` names it), and disconnects when the last one is removed or the client closes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from kioko.remote.calls import where
from kioko_core.privacy.secrets import get_logger
from kioko_core.store import ConnectionLostError

ALL = "*"
CONNECT_TIMEOUT = 10.0
log = get_logger("kioko.remote.events")

Callback = Callable[[dict[str, Any]], Any]


class EventStream:
    def __init__(self, url: str, headers: dict[str, str], user_id: str | None) -> None:
        self.url, self.headers, self.user_id = url, headers, user_id
        self._callbacks: dict[str, list[Callback]] = {}
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._failure: str | None = None
        self._thread: threading.Thread | None = None
        self._http: Any = None
        self._response: Any = None

    @property
    def idle(self) -> bool:
        """Whether no callback is left (the stream can close)."""
        with self._lock:
            return not any(self._callbacks.values())

    def on(self, event: str, callback: Callback) -> Callback:
        """Call ``callback(payload)`` for each ``event`` the service streams (``"*"``: all); starts the stream."""
        if not isinstance(event, str) or not event:
            raise ValueError("event must be a non-empty string such as 'memory.added' or '*'")
        if not callable(callback):
            raise TypeError("callback must be callable as callback(payload)")
        with self._lock:
            self._callbacks.setdefault(event, []).append(callback)
        self._start()
        return callback

    def off(self, event: str, callback: Callback) -> bool:
        """Stop calling ``callback`` for ``event``; False when it was not registered."""
        with self._lock:
            listed = self._callbacks.get(event, [])
            if callback in listed:
                listed.remove(callback)
                return True
        return False

    def _start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        import httpx

        self._ready.clear()
        self._failure = None
        self._http = httpx.Client(base_url=self.url, headers=self.headers, timeout=httpx.Timeout(10.0, read=None))
        self._thread = threading.Thread(target=self._read, name="kioko-remote-events", daemon=True)
        self._thread.start()
        if not self._ready.wait(CONNECT_TIMEOUT) or self._failure is not None:
            self.close()
            raise ConnectionLostError(
                f"the Kioko service at {self.url} did not open its event stream: {self._failure or 'no answer'}"
            )

    def _read(self) -> None:
        params = {"user_id": self.user_id} if self.user_id is not None else {}
        try:
            with self._http.stream(*where("on"), params=params) as response:
                self._response = response
                if response.status_code >= 400:
                    response.read()
                    self._failure = f"HTTP {response.status_code}: {response.text[:200]}"
                    self._ready.set()
                    return
                event, data = "", ""
                for line in response.iter_lines():
                    if self._stop.is_set():
                        return
                    if line.startswith(": connected"):
                        self._ready.set()
                    elif line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:"):
                        data += line[5:].strip()
                    elif not line and event:
                        self._dispatch(event, data)
                        event, data = "", ""
        except Exception as error:  # the stream ended (closed by close(), or the server went away)
            if not self._stop.is_set():
                self._failure = str(error)
                log.warning("the event stream of %s ended: %s", self.url, error)
        finally:
            self._ready.set()

    def _dispatch(self, event: str, data: str) -> None:
        try:
            payload = {"event": event, **json.loads(data or "{}")}
        except ValueError:
            return
        with self._lock:
            targets = [*self._callbacks.get(event, []), *self._callbacks.get(ALL, [])]
        for callback in targets:
            try:
                callback(payload)
            except Exception:  # one failing callback does not stop the others, as on the layer's bus
                log.exception("an event callback for %s failed", event)

    def close(self) -> None:
        """Stop the stream and its reader thread."""
        self._stop.set()
        _shut(self._response)  # wakes the reader blocked on the socket (closing the client alone may not)
        if self._http is not None:
            self._http.close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)


def _shut(response: Any) -> None:
    import socket

    stream = getattr(response, "extensions", {}).get("network_stream") if response is not None else None
    sock = stream.get_extra_info("socket") if stream is not None else None
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
