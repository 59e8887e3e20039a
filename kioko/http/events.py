"""Webhooks and the server-sent event stream: what the service tells the world about writes.

Every write route emits on the layer's event bus (``memory.on``), where ``manage`` emits
``memory.managed`` and ``memory.linked`` too. Two subscribers:

* **Webhooks**, registered per user (``POST /v1/webhooks``). A delivery is a POST of
  ``{"id", "event", "created_at", "data"}`` signed with the webhook's secret:
  ``X-Kioko-Signature: sha256=<hex HMAC-SHA256 of "<X-Kioko-Timestamp>.<body>">``. Deliveries wait in
  a bounded queue served by one background thread: a write only puts an item in the queue (when it
  is full the delivery is dropped and counted, the write never waits). A failed delivery (an error,
  a timeout, a status other than 2xx) is tried again after 0.5 s, 1 s, 2 s, 4 s, then given up.
  Registrations are stored as records in the user's ``@webhooks`` scope, so they survive a restart.
* **GET /v1/events**: the same events as server-sent events, for a console.
"""

from __future__ import annotations

import asyncio
import hashlib
import heapq
import hmac
import json
import secrets
import threading
import time
import uuid
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

import kioko.http.schemas as schemas
from kioko.api.auth import Principal
from kioko.api.errors import TooManyWebhooks
from kioko.api.webhook_guard import WebhookGuard, WebhookRefused
from kioko.api.webhook_records import EVENTS, MIN_SECRET, WEBHOOK_AGENT, WEBHOOK_KIND, check_events, check_url
from kioko.http.deps import ERROR_RESPONSES, Service, authorized, principal, service
from kioko_core.privacy.secrets import get_logger
from kioko_core.store import Delete, Filter, Record, Scope, Upsert
from kioko_core.store.url import masked_url
from kioko_core.telemetry import count

log = get_logger("kioko.http.webhooks")

QUEUE_SIZE = 10_000
"""Deliveries held at once over every user (queued, being sent or waiting to be retried); more are dropped."""
USER_QUEUE = 1_000
"""Deliveries of one user waiting to be sent; more of that user's are dropped."""
WORKERS = 4
"""Threads posting deliveries."""
PER_USER = 1
"""Deliveries of one user posted at once: a user's slow receivers hold one thread, never the others'."""
RETRY_DELAYS = (0.5, 1.0, 2.0, 4.0)
TIMEOUT = 5.0
"""Seconds one delivery attempt may take (connecting, sending and the answer) before it counts as failed."""
SSE_QUEUE = 1000
SSE_HEARTBEAT = 15.0
ALL = "*"

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES, tags=["events"])


# --------------------------------------------------------------------------- signing


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The ``X-Kioko-Signature`` value of a delivery: ``sha256=`` and the hex HMAC of ``timestamp.body``."""
    digest = hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + body, hashlib.sha256)
    return "sha256=" + digest.hexdigest()


def verify(secret: str, timestamp: str, body: bytes, signature: str, *, tolerance: float = 300.0) -> bool:
    """What a receiver runs: the signature matches and the timestamp is recent (replays are refused)."""
    try:
        fresh = abs(time.time() - float(timestamp)) <= tolerance
    except ValueError:
        return False
    return fresh and hmac.compare_digest(sign(secret, timestamp, body), signature)


# --------------------------------------------------------------------------- delivery


@dataclass(order=True)
class _Delivery:
    due: float
    attempt: int = field(compare=False)
    url: str = field(compare=False)
    secret: str = field(compare=False)
    event: str = field(compare=False)
    body: bytes = field(compare=False)
    delivery_id: str = field(compare=False)
    user_id: str = field(compare=False, default="")


class Dispatcher:
    """Per-user queues of deliveries and a few threads that post them, each user in turn, retrying with backoff.

    Every user's deliveries wait in a queue of their own (at most ``user_queue``; ``queue_size`` over all
    users), and ``workers`` threads take the users in turn, at most ``per_user`` deliveries of one user at
    once. A user whose receivers are slow or hang (each attempt ends at ``timeout``) holds at most
    ``per_user`` threads: the other users' deliveries go on with the rest. A full queue drops the delivery
    (counted in ``dropped``); a write never waits for a delivery.
    """

    def __init__(
        self,
        *,
        guard: WebhookGuard | None = None,
        queue_size: int = QUEUE_SIZE,
        user_queue: int = USER_QUEUE,
        retry_delays: tuple[float, ...] = RETRY_DELAYS,
        timeout: float = TIMEOUT,
        workers: int = WORKERS,
        per_user: int = PER_USER,
    ) -> None:
        self.retry_delays = retry_delays
        self.queue_size, self.user_queue, self.per_user = queue_size, user_queue, per_user
        self.dropped = self.delivered = self.failed = self.refused = 0
        self._guard, self._timeout = guard or WebhookGuard(), timeout
        self._client: Any = None
        """The HTTP client, made for the first delivery: importing httpx and building its TLS context cost a
        server's start-up a few hundred milliseconds, paid before any webhook exists. Shared by the threads
        (its connection pool is thread-safe)."""
        self._cond = threading.Condition()
        self._ready: OrderedDict[str, deque[_Delivery]] = OrderedDict()
        """Deliveries due now, per user, the users in the order they are served (the one just served goes last)."""
        self._busy: dict[str, int] = {}
        self._retries: list[_Delivery] = []
        self._held = 0
        """Deliveries queued, being sent or waiting for a retry (what ``queue_size`` bounds)."""
        self._closing = False
        self._threads = [
            threading.Thread(target=self._run, name=f"kioko-webhooks-{n}", daemon=True) for n in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, url: str, secret: str, event: str, payload: dict[str, Any], user_id: str = "") -> bool:
        """Queue one delivery of ``event``; False when the queue (or the user's share of it) is full."""
        delivery_id = uuid.uuid4().hex
        body = json.dumps(
            {"id": delivery_id, "event": event, "created_at": time.time(), "data": payload}, separators=(",", ":")
        ).encode("utf-8")
        with self._cond:
            waiting = self._ready.get(user_id)
            if self._held >= self.queue_size or (waiting is not None and len(waiting) >= self.user_queue):
                self.dropped += 1
                full = True
            else:
                self._ready.setdefault(user_id, deque()).append(
                    _Delivery(0.0, 0, url, secret, event, body, delivery_id, user_id)
                )
                self._held += 1
                self._cond.notify()
                full = False
        if full:
            log.warning("webhook queue full: dropped %s for %s", event, _host(url))
        return not full

    def pending(self, user_id: str) -> int:
        """The user's deliveries waiting to be sent now (retries apart)."""
        with self._cond:
            return len(self._ready.get(user_id, ()))

    def _next(self) -> _Delivery | None:
        """The next delivery to send (the caller holds the condition): the first user in turn with one due and
        fewer than ``per_user`` being sent."""
        now = time.monotonic()
        while self._retries and self._retries[0].due <= now:
            item = heapq.heappop(self._retries)
            self._ready.setdefault(item.user_id, deque()).append(item)
        for user_id, waiting in self._ready.items():
            if self._busy.get(user_id, 0) < self.per_user:
                item = waiting.popleft()
                if waiting:
                    self._ready.move_to_end(user_id)
                else:
                    del self._ready[user_id]
                self._busy[user_id] = self._busy.get(user_id, 0) + 1
                return item
        return None

    def _run(self) -> None:
        while True:
            with self._cond:
                item = self._next()
                while item is None:
                    if self._closing:
                        return
                    wait = max(0.0, self._retries[0].due - time.monotonic()) if self._retries else None
                    self._cond.wait(timeout=wait)
                    item = self._next()
            again = False
            try:
                again = self._send(item)
            finally:
                with self._cond:
                    self._busy[item.user_id] -= 1
                    if not self._busy[item.user_id]:
                        del self._busy[item.user_id]
                    if again:
                        heapq.heappush(self._retries, item)
                    else:
                        self._held -= 1
                    self._cond.notify_all()

    def _send(self, item: _Delivery) -> bool:
        """Post one delivery; True when it is to be tried again (its ``due`` set)."""
        timestamp = f"{time.time():.3f}"
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "kioko-webhooks/1",
            "X-Kioko-Event": item.event,
            "X-Kioko-Delivery": item.delivery_id,
            "X-Kioko-Timestamp": timestamp,
            "X-Kioko-Signature": sign(item.secret, timestamp, item.body),
        }
        try:
            ok = 200 <= self._http().post(item.url, content=item.body, headers=headers).status_code < 300
        except WebhookRefused as error:  # the target is (now) internal: trying again would not change that
            self.refused += 1
            count("webhook_deliveries_total", outcome="refused")
            log.warning("webhook delivery %s refused: %s", item.delivery_id, error)
            return False
        except Exception as error:  # any failure to deliver is retried the same way
            log.info("webhook delivery to %s failed: %s", _host(item.url), type(error).__name__)
            ok = False
        if ok:
            self.delivered += 1
            count("webhook_deliveries_total", outcome="delivered")
        elif item.attempt < len(self.retry_delays):
            count("webhook_deliveries_total", outcome="retried")
            item.due = time.monotonic() + self.retry_delays[item.attempt]
            item.attempt += 1
            return True
        else:
            self.failed += 1
            count("webhook_deliveries_total", outcome="failed")
            log.warning(
                "webhook delivery %s to %s given up after %d tries", item.delivery_id, _host(item.url), item.attempt + 1
            )
        return False

    def _http(self) -> Any:
        """The client, made once (under the condition: two threads may ask for it first at once)."""
        with self._cond:
            if self._client is None:
                import httpx

                # every connection goes to the address the guard checked just before (no proxy from the
                # environment, which would connect elsewhere), and a redirect is an answer, not a new target
                self._client = httpx.Client(
                    transport=self._guard.transport(), timeout=self._timeout, follow_redirects=False, trust_env=False
                )
            return self._client

    def close(self) -> None:
        """Stop delivering: the queue is dropped and the delivery threads end."""
        with self._cond:
            self._closing = True
            self._ready.clear()
            self._cond.notify_all()
        for thread in self._threads:
            thread.join(timeout=5)
        if self._client is not None:
            self._client.close()


def _host(url: str) -> str:
    # logs name the receiver, never the path (it may hold a token) nor the user and password before the host
    return urlsplit(url).netloc.rpartition("@")[2]


# --------------------------------------------------------------------------- registrations


class Webhooks:
    """Per-user registrations, stored in the ``@webhooks`` scope and cached per process."""

    def __init__(self, svc: Service, dispatcher: Dispatcher) -> None:
        self.svc, self.dispatcher = svc, dispatcher
        self._cache: dict[str, list[Record]] = {}
        self._lock = threading.Lock()

    def of(self, user_id: str) -> list[Record]:
        """The user's webhook records (read once, then kept until a webhook of the user changes)."""
        with self._lock:
            if user_id not in self._cache:
                self._cache[user_id] = list(
                    self.svc.layer.store.scan(Scope(user_id, WEBHOOK_AGENT), Filter(kinds=frozenset({WEBHOOK_KIND})))
                )
            return list(self._cache[user_id])

    def forget(self, user_id: str | None = None) -> None:
        """Read the user's registrations again on the next event (every user's, when ``user_id`` is None)."""
        with self._lock:
            if user_id is None:
                self._cache.clear()
            else:
                self._cache.pop(user_id, None)

    def __call__(self, payload: dict[str, Any]) -> None:
        event, user_id = payload.get("event", ""), payload.get("user_id")
        if not isinstance(user_id, str):
            return
        for hook in self.of(user_id):
            wanted = hook.metadata.get("events")
            if not wanted or event in wanted:
                data = {k: v for k, v in payload.items() if k != "event"}
                self.dispatcher.submit(hook.metadata["url"], hook.metadata["secret"], event, data, user_id)


class WebhookIn(schemas.Strict):
    url: str = Field(min_length=8, max_length=2000, description="http(s) URL that receives the POSTs")
    user_id: str = schemas.UserId
    events: list[str] | None = Field(None, description=f"any of {list(EVENTS)}; all when omitted")
    secret: str | None = Field(None, min_length=MIN_SECRET, max_length=200, description="generated when omitted")


class WebhookOut(BaseModel):
    id: str
    url: str
    user_id: str
    events: list[str] | None = None
    secret: str | None = Field(None, description="only in the answer to the registration")
    created_at: float


def _hook_out(record: Record, *, with_secret: bool = False) -> dict[str, Any]:
    return {
        "id": record.id,
        "url": masked_url(record.metadata["url"]),  # the password it carries is sent, never shown again
        "user_id": record.user_id,
        "events": record.metadata.get("events"),
        "created_at": record.created_at,
        "secret": record.metadata["secret"] if with_secret else None,
    }


def _hooks(request: Request) -> Webhooks:
    return request.app.state.webhooks


@router.post("/webhooks", response_model=WebhookOut, status_code=201)
def register(
    body: WebhookIn,
    svc: Service = Depends(service),
    who: Principal = Depends(principal),
    hooks: Webhooks = Depends(_hooks),
):
    """Deliver the user's events to ``url``, signed with ``secret`` (returned once, here)."""
    authorized(who, body.user_id)
    check_url(body.url, svc.webhook_guard)
    check_events(body.events)
    with svc.write_lock:  # two registrations at once must not both pass the count
        if svc.webhook_limit is not None and len(hooks.of(body.user_id)) >= svc.webhook_limit:
            raise TooManyWebhooks(
                f"user {body.user_id!r} has {svc.webhook_limit} webhooks, the most this server allows; "
                "delete one to register another"
            )
        return _registered(body, svc, hooks)


def _registered(body: WebhookIn, svc: Service, hooks: Webhooks) -> dict[str, Any]:
    record = Record(
        id="wh" + uuid.uuid4().hex,
        user_id=body.user_id,
        agent_id=WEBHOOK_AGENT,
        kind=WEBHOOK_KIND,
        content=body.url,
        metadata={"url": body.url, "events": body.events, "secret": body.secret or secrets.token_urlsafe(32)},
    )
    svc.layer.store.update_many([Upsert(record=record, expected_version=0)])
    hooks.forget(body.user_id)
    return _hook_out(record, with_secret=True)


@router.get("/webhooks", response_model=list[WebhookOut])
def list_webhooks(
    user_id: str = Query(min_length=1, max_length=200, description=schemas.USER_ID_HELP),
    who: Principal = Depends(principal),
    hooks: Webhooks = Depends(_hooks),
):
    """The user's webhooks (without their secrets)."""
    authorized(who, user_id)
    return [_hook_out(r) for r in hooks.of(user_id)]


@router.delete("/webhooks/{webhook_id}", response_model=schemas.Deleted)
def delete_webhook(
    webhook_id: str,
    user_id: str = Query(min_length=1, max_length=200, description=schemas.USER_ID_HELP),
    svc: Service = Depends(service),
    who: Principal = Depends(principal),
    hooks: Webhooks = Depends(_hooks),
):
    """Stop delivering to a webhook; ``deleted`` is false when the user has no such webhook."""
    authorized(who, user_id)
    scope = Scope(user_id, WEBHOOK_AGENT)
    found = svc.layer.store.get(scope, [webhook_id])[0]
    if found is not None:
        svc.layer.store.update_many([Delete(id=webhook_id, scope=scope)])
        hooks.forget(user_id)
    return {"deleted": found is not None}


# --------------------------------------------------------------------------- server-sent events


class _Stream:
    """One SSE client: events of its user (all users for an admin without ``user_id``) on a bounded queue."""

    def __init__(self, loop: asyncio.AbstractEventLoop, user_id: str | None) -> None:
        self.loop, self.user_id = loop, user_id
        self.queue: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue(maxsize=SSE_QUEUE)

    def __call__(self, payload: dict[str, Any]) -> None:
        if self.user_id is None or payload.get("user_id") == self.user_id:
            data = {k: v for k, v in payload.items() if k != "event"}
            self.loop.call_soon_threadsafe(self._put, (payload.get("event", ""), data))

    def _put(self, item: tuple[str, dict[str, Any]]) -> None:
        if not self.queue.full():  # a client that does not read loses events, the writer never waits
            self.queue.put_nowait(item)


@router.get(
    "/events",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
            "description": "server-sent events: `event: memory.added` / `data: {...}`",
        }
    },
)
async def events(
    request: Request,
    user_id: str | None = Query(
        None,
        min_length=1,
        max_length=200,
        description="whose events; an admin key may leave it out to see every user's, and a key bound to one "
        "user may leave it out (the server fills in that user)",
    ),
    timeout: float | None = Query(None, gt=0, le=3600, description="close after this many seconds"),
    who: Principal = Depends(principal),
):
    """The user's events as they happen (an admin key may omit ``user_id`` to see every user's)."""
    if user_id is None:
        who.require_admin()
    else:
        authorized(who, user_id)
    svc: Service = request.app.state.kioko
    stream = _Stream(asyncio.get_running_loop(), user_id)
    svc.bus.on(ALL, stream)
    ends = time.monotonic() + timeout if timeout else None

    async def lines():
        try:
            yield ": connected\n\n"
            while ends is None or time.monotonic() < ends:
                wait = SSE_HEARTBEAT if ends is None else min(SSE_HEARTBEAT, max(0.0, ends - time.monotonic()))
                try:
                    event, payload = await asyncio.wait_for(stream.queue.get(), timeout=wait)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                yield f"event: {event}\ndata: {json.dumps(payload, separators=(',', ':'))}\n\n"
        finally:
            svc.bus.off(ALL, stream)

    return StreamingResponse(lines(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})


def install(app: Any, svc: Service) -> Webhooks:
    """Serve webhooks on ``app``: deliveries of every event of the bus, closed when the app stops."""
    dispatcher = Dispatcher(guard=svc.webhook_guard)
    hooks = Webhooks(svc, dispatcher)
    svc.bus.on(ALL, hooks)
    app.state.webhooks = hooks
    app.state.on_stop.append(dispatcher.close)
    return hooks
