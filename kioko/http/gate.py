"""What an API key may do, checked before a route runs: its rate, read-only, its users, its body size.

One ASGI middleware in front of the routes. For a request to a route that takes an API key (it depends
on :func:`~kioko.http.deps.principal`), it authenticates the key once and then, in this order:

* **rate**: a key with a ``rate_limit`` spends a token of its own bucket per request; an empty bucket
  is a 429 with ``Retry-After`` (whole seconds until the next token). Buckets are per process and kept
  across key-file reloads (they are counted under the key's hash), so a rotated key starts full.
* **read-only**: a key whose scopes are ``["read"]`` gets 403 on every route that changes something:
  every method but GET, except the POST routes that only read (:data:`READS_BY_POST`).
* **users**: a ``user_id`` in the path, the query string or the JSON body that the key may not act for is
  a 403 before the body is validated, so a request cannot learn anything about another user from how
  it fails. A key bound to one user may leave ``user_id`` out of any route that takes one: the gate
  fills it in.
* **body**: a key's ``body_limit`` bounds its request bodies (413), under the server's own limit.
* **concurrency**: a key runs at most ``concurrency`` requests at once (its key file entry, else the server's
  ``key_concurrency``; admin keys only by their own entry). Its further requests wait their turn in order,
  before their bodies are read, and past ``key_waiting`` waiting ones a request is a 429 at once, so one key
  flooding the server holds a bounded share of its worker threads and the other keys' requests go on.
  ``GET /v1/events`` streams are not counted. Writes then take turns here, on the event loop (the store's
  writes take turns anyway): a write waiting for the one before it holds no worker thread, so a server with
  two threads always has one for reads.

What each route takes is read from the app's own routes (their parameters and body models) on the first
request, so a route added later is covered without a list to keep. The routes still check the key
themselves (agents, nested user ids): the gate only answers earlier, it does not replace them.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote

from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.routing import compile_path

from kioko.api.auth import Principal, Rate
from kioko.api.errors import PayloadTooLarge, TooManyRequests, status_of
from kioko.api.json_depth import message as depth_message
from kioko.api.json_depth import too_deep
from kioko.api.wire import error_out
from kioko_core.store import InvalidRecordError, KiokoError

READS_BY_POST = frozenset({"/v1/recall", "/v1/context", "/v1/search", "/v1/plan"})
"""POST routes that change nothing (their questions travel as a body); a read-only key may call them."""
STREAMS = frozenset({"/v1/events"})
"""Routes whose answer streams for as long as the client listens: not counted among a key's running requests."""
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


@dataclass(frozen=True)
class RouteRule:
    """What the gate needs to know about one route."""

    path: str
    regex: re.Pattern[str]
    convertors: dict[str, Any]
    methods: frozenset[str]
    keyed: bool
    """It takes an API key (depends on ``principal``)."""
    write: bool
    query_user: bool
    body_user: bool


def is_write(methods: Iterable[str], path: str) -> bool:
    """A route that changes something (what a read-only key may not call)."""
    return bool(set(methods) - READ_METHODS) and path not in READS_BY_POST


def _api_routes(app: Any) -> Iterator[tuple[str, frozenset[str], Any]]:
    """(path with its prefix, methods, dependant) of every FastAPI route, included routers' as well."""
    try:  # FastAPI versions that keep included routers whole list their routes through contexts
        from fastapi.routing import iter_route_contexts
    except ImportError:  # older ones copy every route into the app's list
        contexts: Iterable[Any] = app.routes
    else:
        contexts = iter_route_contexts(app.routes)
    for context in contexts:
        original = getattr(context, "original_route", context)
        if not isinstance(original, APIRoute):
            continue
        dependant = getattr(context, "dependant", None) or original.dependant
        yield str(context.path), frozenset(context.methods or ()), dependant


def rules_of(app: Any, principal: Any) -> list[RouteRule]:
    """A rule per route of ``app``, in the router's order (the first full match wins, as there)."""
    rules = []
    for path, methods, root in _api_routes(app):
        keyed = query_user = body_user = False
        pending = [root]
        while pending:
            dependant = pending.pop()
            keyed = keyed or dependant.call is principal
            query_user = query_user or any(p.name == "user_id" for p in dependant.query_params)
            for param in dependant.body_params:
                fields = getattr(param.field_info.annotation, "model_fields", None)
                body_user = body_user or param.name == "user_id" or bool(fields and "user_id" in fields)
            pending.extend(dependant.dependencies)
        regex, path_format, convertors = compile_path(path)
        methods = methods | {"HEAD"} if "GET" in methods else methods
        rules.append(
            RouteRule(
                path_format, regex, convertors, methods, keyed, is_write(methods, path_format), query_user, body_user
            )
        )
    return rules


class Buckets:
    """A token bucket per key: ``rate.requests`` tokens, refilled at ``rate.requests / rate.seconds`` a second."""

    def __init__(self) -> None:
        self._state: dict[str, tuple[float, float]] = {}  # key id -> (tokens, when)

    def take(self, key_id: str, rate: Rate, now: float | None = None) -> float:
        """0.0 when a token was taken, else the seconds until one is there (nothing taken)."""
        now = time.monotonic() if now is None else now
        tokens, then = self._state.get(key_id, (float(rate.requests), now))
        pace = rate.requests / rate.seconds
        tokens = min(float(rate.requests), tokens + (now - then) * pace)
        if tokens >= 1.0:
            self._state[key_id] = (tokens - 1.0, now)
            return 0.0
        self._state[key_id] = (tokens, now)
        return (1.0 - tokens) / pace


class Gate:
    """The middleware (see the module's text). It runs on the event loop: its state needs no lock."""

    def __init__(
        self,
        app: Any,
        service: Any,
        principal: Any,
        body_limit: int,
        import_limit: int,
        concurrency: int | None = None,
        waiting: int = 64,
    ) -> None:
        self.app, self.svc, self.principal = app, service, principal
        self.body_limit, self.import_limit = body_limit, import_limit
        self.concurrency, self.waiting = concurrency, waiting
        self.buckets = Buckets()
        # the app's (what a test or an operator reads: whose requests run, whose wait), or one of its own
        self.flights: Flights = getattr(service, "flights", None) or Flights()
        self._write_turn: asyncio.Lock | None = None
        self._rules: list[RouteRule] | None = None
        self._by_head: dict[str, list[RouteRule]] = {}
        self._anywhere: list[RouteRule] = []
        self._routes_seen = -1

    def _route(self, scope: dict) -> tuple[RouteRule, dict[str, Any]] | None:
        app = scope["app"]
        if self._rules is None or len(app.routes) != self._routes_seen:  # again when routes were added
            self._index(rules_of(app, self.principal))
            self._routes_seen = len(app.routes)
        path, method = _route_path(scope), scope.get("method", "GET")
        for rule in self._by_head.get(_head(path), self._anywhere):
            found = rule.regex.match(path)
            if found is not None and method in rule.methods:
                params = {k: rule.convertors[k].convert(v) for k, v in found.groupdict().items()}
                return rule, params
        return None

    def _index(self, rules: list[RouteRule]) -> None:
        """Rules by their path's first two segments (``/v1/working``), so a request tries a handful of
        patterns, not all 130; a rule whose head is a parameter is tried for every path, in its place."""
        self._rules = rules
        self._anywhere = [r for r in rules if "{" in _head(r.path)]
        heads = {_head(r.path) for r in rules} - {_head(r.path) for r in self._anywhere}
        self._by_head = {h: [r for r in rules if _head(r.path) == h or r in self._anywhere] for h in heads}

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or self.svc.keys is None:
            return await self.app(scope, receive, send)
        found = self._route(scope)
        if found is None or not found[0].keyed:
            return await self.app(scope, receive, send)
        rule, path_params = found
        try:
            who: Principal = self.svc.keys.authenticate(_presented(scope))
            scope["kioko.principal"] = who
            if who.rate_limit is not None:
                wait = self.buckets.take(who.key_id, who.rate_limit)
                if wait > 0:
                    retry = max(1, math.ceil(wait))
                    error = TooManyRequests(
                        f"this API key ({who.name}) is over its rate of {who.rate_limit}; retry in {retry} s"
                    )
                    return await _answer(error, send, {"retry-after": str(retry)})
            if rule.write:
                who.check_write()
        except KiokoError as error:
            return await _answer(error, send)
        limit = self.concurrency_of(who)
        if limit is None or rule.path in STREAMS:
            return await self._written(scope, receive, send, who, rule, path_params)
        # the turn is taken before the body is read: a key's waiting requests cost the server nothing
        if not await self.flights.enter(who.key_id, limit, self.waiting):
            busy = TooManyRequests(
                f"this API key ({who.name}) has {limit} requests running and {self.waiting} waiting, its most; "
                "retry when one has finished"
            )
            return await _answer(busy, send, {"retry-after": "1"})
        try:
            await self._written(scope, receive, send, who, rule, path_params)
        finally:
            self.flights.leave(who.key_id)

    async def _written(
        self, scope: dict, receive: Any, send: Any, who: Principal, rule: RouteRule, path_params: dict[str, Any]
    ) -> None:
        """A write waits for the one before it here, on the event loop: the store's writes take turns anyway (the
        service's write lock), and one waiting on that lock in a worker thread would hold a thread that a read
        of another key needs (a server over memory:// or SQLite runs two)."""
        if not rule.write or rule.path in STREAMS:
            return await self._checked(scope, receive, send, who, rule, path_params)
        if self._write_turn is None:
            self._write_turn = asyncio.Lock()
        async with self._write_turn:
            await self._checked(scope, receive, send, who, rule, path_params)

    def concurrency_of(self, who: Principal) -> int | None:
        """How many of ``who``'s requests run at once: its key's own number, else the server's (admin keys
        are held only by their own number)."""
        if who.concurrency is not None:
            return who.concurrency
        return None if who.admin else self.concurrency

    async def _checked(
        self, scope: dict, receive: Any, send: Any, who: Principal, rule: RouteRule, path_params: dict[str, Any]
    ) -> None:
        try:
            if who.admin:
                return await self.app(scope, receive, send)
            if "user_id" in path_params:
                who.check_user(path_params["user_id"])
            if rule.query_user:
                _query_user(scope, who)
            limit = self.import_limit if rule.path.endswith("/v1/import") else self.body_limit
            if who.body_limit is not None:
                limit = min(limit, who.body_limit)
                scope["kioko.body_limit"] = limit
            if rule.body_user and scope.get("method") in BODY_METHODS:
                receive = await _body_user(scope, receive, who, limit)
        except KiokoError as error:
            return await _answer(error, send)
        await self.app(scope, receive, send)


class Flights:
    """The requests of each key running now, and those waiting their turn (first come, first served).

    Used on the event loop only (the gate's), so it needs no lock. A waiting request is a future; a request
    that finishes hands its turn to the first waiter, so the count of running requests never goes over the
    limit and no waiter is passed over.
    """

    def __init__(self) -> None:
        self.running: dict[str, int] = {}
        self.queued: dict[str, deque[asyncio.Future[None]]] = {}
        self.peak: dict[str, int] = {}
        """The most requests of each key seen running at once (what the tests read)."""

    def waiting(self, key_id: str) -> int:
        """How many requests of the key wait their turn."""
        return len(self.queued.get(key_id, ()))

    async def enter(self, key_id: str, limit: int, waiting: int) -> bool:
        """Take a turn for ``key_id`` (wait for one while ``limit`` run); False when ``waiting`` already wait."""
        queue = self.queued.setdefault(key_id, deque())
        if self.running.get(key_id, 0) < limit and not queue:
            self._start(key_id)
            return True
        if len(queue) >= waiting:
            return False
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue.append(turn)
        try:
            await turn
        except BaseException:  # the client went away while waiting
            if turn in queue:
                queue.remove(turn)
            elif turn.done() and not turn.cancelled():
                self.leave(key_id)  # the turn was handed over just now: pass it on
            raise
        return True

    def _start(self, key_id: str) -> None:
        running = self.running[key_id] = self.running.get(key_id, 0) + 1
        self.peak[key_id] = max(self.peak.get(key_id, 0), running)

    def leave(self, key_id: str) -> None:
        """One request of ``key_id`` finished: its turn goes to the first waiter, else the count drops."""
        queue = self.queued.get(key_id)
        while queue:
            turn = queue.popleft()
            if not turn.done():
                turn.set_result(None)  # the turn passes on: the running count stays as it is
                return
        self.running[key_id] -= 1
        if not self.running[key_id]:
            del self.running[key_id]
            self.queued.pop(key_id, None)


def _head(path: str) -> str:
    return "/".join(path.split("/", 3)[:3])


def _route_path(scope: dict) -> str:
    """The path inside this app (without the prefix it is mounted under)."""
    path = scope.get("path", "")
    root = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


def _presented(scope: dict) -> str | None:
    headers = dict(scope.get("headers") or [])
    header = headers.get(b"authorization", b"").decode("latin-1")
    if header[:7].lower() == "bearer ":
        return header[7:].strip()
    key = headers.get(b"x-api-key")
    return key.decode("latin-1") if key is not None else None


def _query_user(scope: dict, who: Principal) -> None:
    query = scope.get("query_string", b"").decode("latin-1")
    given = [value for name, value in parse_qsl(query, keep_blank_values=True) if name == "user_id"]
    for user_id in given:
        who.check_user(user_id)
    bound = who.bound_user
    if not given and bound is not None:
        extra = f"user_id={quote(bound, safe='')}"
        scope["query_string"] = (f"{query}&{extra}" if query else extra).encode("latin-1")


async def _body_user(scope: dict, receive: Any, who: Principal, limit: int) -> Any:
    """Read the body (at most ``limit`` bytes), check its ``user_id`` or fill in the key's one user, and
    return a ``receive`` that hands the (possibly rewritten) body to the route."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return _replay(b"".join(chunks), receive, first=message)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"the request body is over {limit} bytes")
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    if too_deep(body):  # checked before parsing: the parser recurses per level
        raise InvalidRecordError(depth_message())
    try:
        data = json.loads(body) if body else None
    except ValueError:
        data = None  # not JSON: the route says so (422)
    if isinstance(data, dict):
        if isinstance(data.get("user_id"), str):
            who.check_user(data["user_id"])
        elif "user_id" not in data and who.bound_user is not None:
            data["user_id"] = who.bound_user
            try:
                body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate (JSON's "\\ud800"): no text to store or pass on
                raise InvalidRecordError("the body holds a lone surrogate (not a Unicode character)") from None
            headers = [(k, v) for k, v in scope.get("headers") or [] if k != b"content-length"]
            scope["headers"] = headers + [(b"content-length", str(len(body)).encode("ascii"))]
    return _replay(body, receive)


def _replay(body: bytes, receive: Any, first: dict | None = None) -> Any:
    sent = False

    async def replayed() -> dict:
        nonlocal sent
        if not sent:
            sent = True
            return first if first is not None else {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # a disconnect, for a route that waits on one

    return replayed


async def _answer(error: KiokoError, send: Any, headers: dict[str, str] | None = None) -> None:
    response = JSONResponse(error_out(error), status_code=status_of(error), headers=headers)
    await response({"type": "http"}, None, send)  # type: ignore[arg-type]
