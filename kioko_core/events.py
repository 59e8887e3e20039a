"""A small in-process event bus: ``on(event, callback)`` and ``emit(event, payload)``.

Events name what happened to memories: ``memory.added``, ``memory.updated``, ``memory.deleted``,
``memory.linked`` (and ``"*"`` subscribes to all). A callback runs in the emitting thread, after the
write it reports has been stored; one that raises is logged and skipped, never undoing or failing the
write. Callbacks must be quick: hand slow work (HTTP calls) to a queue, as the service's webhooks do.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger("kioko.events")

EVENTS = ("memory.added", "memory.updated", "memory.deleted", "memory.linked", "memory.unlinked",
          "memory.imported", "memory.managed")
ALL = "*"

Callback = Callable[[str, dict[str, Any]], None]


class EventBus:
    """Subscribers per event name; thread-safe to subscribe, unsubscribe and emit from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[str, list[Callback]] = {}

    def on(self, event: str, callback: Callback) -> Callback:
        """Call ``callback(event, payload)`` for every ``event`` (``"*"``: every event); returns the callback."""
        if not callable(callback):
            raise TypeError("callback must be callable as callback(event, payload)")
        with self._lock:
            self._subscribers.setdefault(event, []).append(callback)
        return callback

    def off(self, event: str, callback: Callback) -> bool:
        """Stop calling ``callback`` for ``event``; False if it was not subscribed."""
        with self._lock:
            subscribed = self._subscribers.get(event, [])
            if callback in subscribed:
                subscribed.remove(callback)
                return True
        return False

    def emit(self, event: str, payload: dict[str, Any]) -> int:
        """Call the event's subscribers (then the ``"*"`` ones); returns how many ran without raising."""
        with self._lock:
            callbacks = list(self._subscribers.get(event, ())) + list(self._subscribers.get(ALL, ()))
        delivered = 0
        for callback in callbacks:
            try:
                callback(event, payload)
                delivered += 1
            except Exception:  # a subscriber's bug must never surface in the write that emitted the event
                log.exception("event subscriber %r failed on %s", callback, event)
        return delivered
