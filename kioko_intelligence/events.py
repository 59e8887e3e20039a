"""A small in-process event bus: ``memory.on("memory.managed", callback)``.

Events are notifications after the fact. A callback that raises is logged and the others still run:
a listener can never break or undo a write.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from kioko_core.privacy.secrets import get_logger

log = get_logger("kioko.events")

MANAGED = "memory.managed"
"""Every managed turn: the report (ops, router, model calls) as ``to_dict()``."""
LINKED = "memory.linked"
"""Every new link a managed write made: source, target, type, weight, why."""
EVENTS = (MANAGED, LINKED)

Callback = Callable[[dict[str, Any]], Any]


class EventBus:
    """Subscribers per event name; ``"*"`` receives every event."""

    def __init__(self) -> None:
        self._subscribers: dict[str, list[Callback]] = {}
        self._lock = threading.Lock()

    def on(self, event: str, callback: Callback) -> Callback:
        """Call ``callback(payload)`` after each ``event`` (``payload["event"]`` names it); returns the callback."""
        if not isinstance(event, str) or not event:
            raise ValueError("event must be a name such as 'memory.managed', or '*' for every event")
        if not callable(callback):
            raise TypeError("callback must be callable as callback(payload)")
        with self._lock:
            self._subscribers.setdefault(event, []).append(callback)
        return callback

    def off(self, event: str, callback: Callback) -> bool:
        """Stop calling ``callback`` for ``event``; False if it was not subscribed."""
        with self._lock:
            found = self._subscribers.get(event, [])
            if callback in found:
                found.remove(callback)
                return True
        return False

    def wants(self, event: str) -> bool:
        """Has ``event`` a subscriber? (Building a payload nobody reads is skipped.)"""
        return bool(self._subscribers.get(event) or self._subscribers.get("*"))

    def emit(self, event: str, payload: dict[str, Any]) -> None:
        with self._lock:
            callbacks = list(self._subscribers.get(event, ())) + list(self._subscribers.get("*", ()))
        payload = {"event": event, **payload}
        for callback in callbacks:
            try:
                callback(payload)
            except Exception:  # a listener never breaks a write
                log.exception("a %s listener failed; the write stands", event)

    def __bool__(self) -> bool:
        return any(self._subscribers.values())
