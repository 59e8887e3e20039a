"""What the service's routes share with the app, one level below both: the served layer's state
(:class:`Service`), the request's API key (:func:`principal`), the scope a request may act in
(:func:`authorized`) and the error answers every route documents.

The app (:mod:`kioko.http.app`) builds the routers and the routers import this module, never the app,
so the service's modules import downward only. (They import their siblings by name, ``import
kioko.http.schemas as S``, not ``from . import schemas``: that names the package, whose ``create_app``
imports the app.)
"""

from __future__ import annotations

import threading
from typing import Any

from fastapi import Request

from kioko.api.auth import OPEN, KeyFile, KeyRing, Principal
from kioko.api.webhook_guard import WebhookGuard
from kioko.http.schemas import ErrorOut
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.layer.scoped import user_scope
from kioko_core.store import Scope
from kioko_intelligence.events import EventBus
from kioko_intelligence.surface import IntelligentMemory, with_calls

ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorOut, "description": text}
    for status, text in (
        (401, "no valid API key"),
        (403, "the API key may not act for this user or agent, or is read-only"),
        (404, "no such memory in this scope"),
        (409, "a conflicting link or a concurrent change"),
        (413, "request body over the server's limit"),
        (422, "invalid input, or a secret in a write"),
        (429, "the API key is over its rate limit (Retry-After says when to try again)"),
        (503, "the store is unreachable"),
    )
}


class Service:
    """What the routes share: the layer, the key ring, and one lock that serialises writes.

    Linking reads a memory's neighbours and writes them back with version checks; two writes at once
    on the same neighbourhood would make one of them fail with a conflict, so writes take turns while
    reads run side by side.
    """

    def __init__(self, layer: MemoryLayer, keys: KeyRing | KeyFile | None, body_limit: int) -> None:
        # a core layer is served with the intelligence's calls (a view of it: manage routes offline on demand)
        self.layer: IntelligentMemory = with_calls(layer)
        self.keys = keys
        self.body_limit = body_limit
        self.write_lock = threading.Lock()
        # the layer's own bus (``memory.on``), so manage()'s events and the routes' reach the same subscribers
        existing = getattr(self.layer, "events", None)
        self.bus = existing if isinstance(existing, EventBus) else EventBus()
        self.webhook_guard = WebhookGuard()
        self.webhook_limit: int | None = None
        self.flights: Any = None
        """Whose requests run and whose wait (:class:`kioko.http.gate.Flights`, set by ``create_app``)."""
        """The most webhooks one user may register (None: no cap); ``create_app(webhooks_per_user=...)``."""

    def emit(self, event: str, payload: dict[str, Any]) -> None:
        """Tell the bus's subscribers (webhooks, event streams) about a write; a failing one is only logged."""
        self.bus.emit(event, payload)


async def service(request: Request) -> Service:
    """The served layer and its state. (This and :func:`principal` are ``async``: FastAPI runs a plain
    function dependency on a worker thread, two thread hops per request for a dict lookup and a hash.)"""
    return request.app.state.kioko


async def principal(request: Request) -> Principal:
    """The request's API key (401 without a valid one). The gate has usually checked it already."""
    checked = request.scope.get("kioko.principal")
    if checked is not None:
        return checked
    svc: Service = request.app.state.kioko
    if svc.keys is None:
        return OPEN
    header = request.headers.get("authorization", "")
    key = header[7:].strip() if header[:7].lower() == "bearer " else request.headers.get("x-api-key")
    return svc.keys.authenticate(key)


def authorized(who: Principal, user_id: Any, agent_id: Any = None) -> Scope:
    """The scope a request may act in: raises Forbidden (403) before any read or write of another tenant,
    and InvalidRecordError (422) for Kioko's own scope names (``agent_id="@graph"``, ``"@webhooks"`` ...)."""
    who.check(user_id, agent_id)
    return user_scope(user_id, agent_id)
