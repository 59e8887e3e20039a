"""``create_app(layer)``: the FastAPI application that serves one MemoryLayer under /v1.

Embed it in your own ASGI app (``app.mount("/kioko", create_app(layer))``) or run it with
``kioko serve``. Every route checks the request's API key against the ``user_id`` (and ``agent_id``)
it names before the library sees the call; the library then enforces scopes exactly as in-process.
"""

from __future__ import annotations

import itertools
import os
import secrets
import time
from collections.abc import Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio.to_thread
from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from kioko.api.auth import KeyFile, KeyRing, Principal
from kioko.api.errors import Forbidden, PayloadTooLarge, status_of
from kioko.api.json_depth import message as depth_message
from kioko.api.json_depth import too_deep
from kioko.api.webhook_guard import Resolver, WebhookGuard
from kioko.api.wire import error_out
from kioko.http import browser, docs_pages
from kioko.http.deps import ERROR_RESPONSES, Service, principal, service
from kioko.http.gate import Flights, Gate
from kioko.http.schemas import Health, WhoAmI
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.privacy.secrets import get_logger
from kioko_core.store import KiokoError, Scope
from kioko_core.telemetry import count, observe

log = get_logger("kioko.http")
# the HTTP library Kioko's client, webhooks and providers use logs every request's URL at INFO, and a memory
# or session id in a path may hold a secret: its lines are redacted like Kioko's own
get_logger("httpx")
# uvicorn logs a route's uncaught exception with its traceback, which may quote a URL with its password
get_logger("uvicorn.error")

DEFAULT_BODY_LIMIT = 1_000_000
"""Bytes a request body may have unless ``create_app(body_limit=...)`` says otherwise (413 beyond)."""
DEFAULT_IMPORT_LIMIT = 256_000_000
"""Bytes of one ``POST /v1/import`` (an export is large by nature; ``import_limit=`` changes it)."""
DEFAULT_KEY_CONCURRENCY = 2
"""Requests of one API key that run at once (``key_concurrency=``; a key file entry's ``concurrency`` overrides it).
Two: one key cannot hold every worker thread of a server over memory:// or SQLite (two threads), so another
key's read runs beside its writes (``benchmarks/tenant_flood.py``)."""
DEFAULT_KEY_WAITING = 64
"""Requests of one API key that wait their turn (``key_waiting=``); one more is a 429 at once."""
DEFAULT_WEBHOOKS_PER_USER = 20
"""Webhooks one user may register (``webhooks_per_user=``; 409 ``TooManyWebhooks`` beyond, imports included)."""

TAGS = [
    {"name": "memories", "description": "Write, read, list, update and delete memories, plain and typed."},
    {"name": "recall", "description": "Context for a question, search, and feedback on what worked."},
    {"name": "graph", "description": "Links between memories and the entity graph (spec: graph memory, section 11)."},
    {
        "name": "intelligence",
        "description": "Managed writes (manage with dry_run, record_turn, learn), the recall plan, pins and the "
        "stable prefix, session ends and maintenance.",
    },
    {"name": "users", "description": "Whole scopes: forget a user, export and import."},
    {"name": "events", "description": "Webhooks and the server-sent event stream."},
    {"name": "admin", "description": "Health and readiness."},
]


def create_app(
    layer: MemoryLayer,
    *,
    api_keys: KeyRing | str | os.PathLike[str] | None = None,
    body_limit: int = DEFAULT_BODY_LIMIT,
    import_limit: int = DEFAULT_IMPORT_LIMIT,
    webhooks: bool = True,
    webhook_hosts: set[str] | None = None,
    webhook_allow: Iterable[str] = (),
    webhook_resolver: Resolver | None = None,
    close_layer: bool = False,
    threads: int | None = None,
    console: bool = True,
    allowed_hosts: Iterable[str] | None = None,
    cors_origins: Iterable[str] = (),
    console_token: str | None = None,
    webhooks_per_user: int | None = DEFAULT_WEBHOOKS_PER_USER,
    key_concurrency: int | None = DEFAULT_KEY_CONCURRENCY,
    key_waiting: int = DEFAULT_KEY_WAITING,
) -> FastAPI:
    """The REST API over ``layer``.

    ``api_keys``: a :class:`KeyRing` or the path of a key file (read again whenever it changes); None serves
    every user without keys
    (bind such a server to loopback only). ``body_limit``: bytes per request body. ``close_layer``:
    close the layer when the app shuts down (``kioko serve`` does; an embedding app may not want it).
    ``webhooks``: the webhook routes, their delivery thread and ``GET /v1/events``. Every write is also
    emitted on the layer's event bus (``layer.on(event, callback)``; ``callback(payload)``, where
    ``payload["event"]`` names it).
    Webhooks go only to public addresses over https (loopback, private, link-local, multicast and cloud
    metadata addresses are refused, at registration and again at each connection, on the address used):
    ``webhook_allow`` lifts that for the hosts, addresses or networks (``10.1.0.0/16``) named, which may
    also use plain http; ``webhook_hosts``: the only hosts a webhook may point at (None: any public host),
    each of them allowed as if in ``webhook_allow``. ``webhook_resolver(host, port)`` -> addresses
    replaces the system's resolver for webhook hosts (tests).
    ``threads``: at startup, set how many worker threads this process runs the routes on at once (anyio's
    default limiter, process-wide: pass it only when the app owns the process, as ``kioko serve`` does).
    With a store in this process (memory://, SQLite) the work is Python holding one lock, the GIL: two
    threads keep a read beside a write, while the default 40 make every request share the core in slices and
    cost more CPU each. None leaves the limiter as it is.
    ``console``: serve the browser console at ``/ui`` (static files that use only the ``/v1`` API).
    ``allowed_hosts``: the names the server answers to besides the address a request came in on (and loopback
    names on a loopback address); None: those only without keys, any with keys. ``cors_origins``: the other
    origins whose pages may call the API (CORS headers, changes from them accepted). ``console_token``: the
    token this server's console page sends (a random one when None; ``kioko serve --workers`` gives all its
    processes one). See :mod:`kioko.http.browser`.
    ``webhooks_per_user``: the most webhooks one user may have (registered or imported; None: no cap).
    ``key_concurrency``: requests of one API key run at once (None: no limit; a key's own ``concurrency`` wins,
    and admin keys have only their own); ``key_waiting``: how many more wait their turn before a 429. A server
    without keys has no per-key limits.
    """
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be an integer >= 1 or None, got {threads!r}")
    cors = [str(origin) for origin in cors_origins]
    keys = KeyFile(api_keys) if isinstance(api_keys, (str, Path, os.PathLike)) else api_keys
    svc = Service(layer, keys, int(body_limit))
    svc.webhook_guard = WebhookGuard(webhook_allow, only=webhook_hosts, resolve=webhook_resolver)
    svc.webhook_limit = _positive_or_none("webhooks_per_user", webhooks_per_user)
    svc.flights = Flights()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if threads is not None:
            anyio.to_thread.current_default_thread_limiter().total_tokens = threads
        yield
        for stop in list(app.state.on_stop):
            stop()
        if close_layer:
            layer.close()

    app = FastAPI(
        title="Kioko",
        version="1",
        description="Linked memory for AI agents, as a service.",
        openapi_url="/v1/openapi.json",
        docs_url=None,  # served by docs_pages, with assets from this server instead of a CDN
        redoc_url=None,
        openapi_tags=TAGS,
        lifespan=lifespan,
    )
    app.state.kioko = svc
    app.state.on_stop = []
    app.state.console_token = console_token or browser.new_token()
    _errors(app)
    docs_pages.mount(app, "/v1/openapi.json")
    # added innermost first: the request log sees every answer (the browser guard's 400/403/415 and the gate's
    # 401/403/413/429 included); the browser guard answers before the gate reads a body
    app.add_middleware(_BodyLimit, limit=svc.body_limit, import_limit=int(import_limit))
    app.add_middleware(
        Gate,
        service=svc,
        principal=principal,
        body_limit=svc.body_limit,
        import_limit=int(import_limit),
        concurrency=_positive_or_none("key_concurrency", key_concurrency),
        waiting=int(key_waiting),
    )
    app.add_middleware(
        browser.BrowserGuard,
        service=svc,
        token=app.state.console_token,
        allowed_hosts=None if allowed_hosts is None else list(allowed_hosts),
        cors_origins=cors,
    )
    browser.add_cors(app, cors)
    app.add_middleware(_RequestLog)

    @app.get("/healthz", tags=["admin"], response_model=Health)
    def healthz() -> dict[str, Any]:
        """The process is up."""
        return {"status": "ok"}

    @app.get("/readyz", tags=["admin"], response_model=Health, responses={503: ERROR_RESPONSES[503]})
    def readyz(svc: Service = Depends(service)) -> dict[str, Any]:
        """The store answers a read."""
        svc.layer.store.get(Scope("@readyz"), ["ping"])
        return {"status": "ready", "store": type(getattr(svc.layer.store, "driver", svc.layer.store)).__name__}

    @app.get(
        "/metrics",
        tags=["admin"],
        response_class=PlainTextResponse,
        responses={
            200: {"description": "the Prometheus text format (version 1.0.0)"},
            401: ERROR_RESPONSES[401],
            403: ERROR_RESPONSES[403],
        },
    )
    def metrics(who: Principal = Depends(principal)) -> Response:
        """Kioko's counters and timings in the Prometheus text format (docs/operations.md lists the series).
        Per-key figures carry the key's name, never the key; on a server with keys only an admin key may read."""
        if not who.admin:
            raise Forbidden("the metrics cover every user: only an admin key may read them")
        from kioko.metrics import exposition

        body, content_type = exposition()
        return Response(body, media_type=content_type)

    @app.get("/v1/whoami", tags=["users"], response_model=WhoAmI, responses={401: ERROR_RESPONSES[401]})
    async def whoami(who: Principal = Depends(principal)) -> dict[str, Any]:
        """The request's key: its name and the users (and agents) it may act for, so a client (the console) can
        offer them; a server without keys answers as an admin."""
        return {
            "name": who.name,
            "admin": who.admin,
            "users": None if who.admin else sorted(who.users),
            "agents": None if who.agents is None else sorted(who.agents),
        }

    from kioko.http import routes, routes_intelligence, routes_kinds, routes_upkeep

    app.include_router(routes.router)
    app.include_router(routes_kinds.build_router())
    app.include_router(routes_intelligence.router)
    app.include_router(routes_upkeep.router)
    if webhooks:
        from kioko.http import events

        app.include_router(events.router)
        events.install(app, svc)
    if console:
        from kioko.console import mount

        mount(app)
    return app


def _positive_or_none(name: str, value: int | None) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ValueError(f"{name} must be an integer >= 1 or None, got {value!r}")
    return value


# --------------------------------------------------------------------------- errors


def _errors(app: FastAPI) -> None:
    @app.exception_handler(KiokoError)
    async def kioko_error(request: Request, error: KiokoError) -> JSONResponse:
        return JSONResponse(error_out(error), status_code=status_of(error))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse(_invalid("RequestInvalid", error.errors()), status_code=422)

    @app.exception_handler(ValidationError)
    async def invalid_value(request: Request, error: ValidationError) -> JSONResponse:
        # a value the library's own models refused (an id over 200 characters ...): bad input, not a crash
        return JSONResponse(_invalid("InvalidRecordError", error.errors()), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        kind = {404: "NotFound", 405: "MethodNotAllowed", 413: "PayloadTooLarge", 422: "RequestInvalid"}.get(
            error.status_code, "HTTPError"
        )
        return JSONResponse(
            {"error": {"type": kind, "message": str(error.detail)}},
            status_code=error.status_code,
            headers=getattr(error, "headers", None),
        )

    @app.exception_handler(Exception)
    async def crashed(request: Request, error: Exception) -> JSONResponse:
        request_id = request.scope.get("kioko.request_id", "-")
        log.exception("request %s failed", request_id)
        return JSONResponse(
            {
                "error": {
                    "type": "InternalError",
                    "message": f"the server failed on this request (request id {request_id})",
                }
            },
            status_code=500,
        )


def _invalid(kind: str, problems: Any) -> dict[str, Any]:
    parts = []
    for problem in problems[:10]:
        where = ".".join(str(p) for p in problem.get("loc", ()) if p != "body")
        parts.append(f"{where or 'body'}: {problem.get('msg', 'invalid')}")
    return {"error": {"type": kind, "message": "; ".join(parts) or "invalid request"}}


# --------------------------------------------------------------------------- middleware (plain ASGI)


class _BodyLimit:
    """413 for a body over ``limit`` bytes: by Content-Length up front, else counted while it streams."""

    def __init__(self, app: Any, limit: int, import_limit: int) -> None:
        self.app, self.body_limit, self.import_limit = app, limit, import_limit

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = self.import_limit if scope.get("path", "").endswith("/v1/import") else self.body_limit
        limit = min(limit, scope.get("kioko.body_limit", limit))  # the API key's own limit (the gate's)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            return await _too_large(limit, send)
        seen = 0
        # a JSON body is kept while it arrives (it is under the limit, and the route reads it whole anyway) to
        # measure its depth before the route parses it; an import checks its own lines as it reads them
        importing = scope.get("path", "").endswith("/v1/import")
        kept: list[bytes] | None = [] if not importing and _is_json(scope) else None

        async def counted() -> dict:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                chunk = message.get("body", b"")
                seen += len(chunk)
                if seen > limit:
                    # FastAPI turns other exceptions from body reading into a 400; an HTTPException passes
                    raise HTTPException(413, f"the request body is over {limit} bytes")
                if kept is not None:
                    kept.append(chunk)
                    if not message.get("more_body", False) and too_deep(b"".join(kept)):
                        raise HTTPException(422, depth_message())
            return message

        await self.app(scope, counted, send)


def _is_json(scope: dict) -> bool:
    for name, value in scope.get("headers") or []:
        if name == b"content-type":
            return value.split(b";", 1)[0].strip().lower() == b"application/json"
    return False


async def _too_large(limit: int, send: Any) -> None:
    response = JSONResponse(error_out(PayloadTooLarge(f"the request body is over {limit} bytes")), status_code=413)
    await response({"type": "http"}, None, send)  # type: ignore[arg-type]


_REQUEST_IDS = itertools.count(1)
_PROCESS_TAG = secrets.token_hex(6)


def _next_request_id() -> str:
    """Unique per process run (a random tag and a counter): a request id needs no fresh randomness, and
    reading the OS's randomness per request (uuid4) cost about a millisecond of the event loop here."""
    return f"{_PROCESS_TAG}-{next(_REQUEST_IDS):x}"


class _RequestLog:
    """A request id per request (``X-Request-ID``, kept when the client sends one) and one log line per request.

    The line has the method, path, status and time: never headers, so never an API key.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        given = dict(scope.get("headers") or []).get(b"x-request-id", b"").decode("latin-1")
        request_id = given if given and len(given) <= 100 and given.isprintable() else _next_request_id()
        scope["kioko.request_id"] = request_id
        started = time.perf_counter()
        status = 0

        async def tagged(message: dict) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + [(b"x-request-id", request_id.encode("latin-1"))]
            await send(message)

        try:
            await self.app(scope, receive, tagged)
        finally:
            _measure(scope, status, time.perf_counter() - started)
            log.info(
                "%s %s %s %.1fms request_id=%s",
                scope.get("method"),
                scope.get("path"),
                status,
                (time.perf_counter() - started) * 1000,
                request_id,
            )


def _measure(scope: dict, status: int, seconds: float) -> None:
    """The request in ``http_requests_total`` and ``http_request_seconds``: by the route's template (never the
    path itself, whose ids would make a series per memory) and the API key's name (never the key)."""
    route = scope.get("route")
    template = getattr(route, "path", None) or "unmatched"
    who = scope.get("kioko.principal")
    key = getattr(who, "name", None) or "-"
    method = str(scope.get("method", ""))
    count("http_requests_total", route=template, method=method, status=status, key=key)
    observe("http_request_seconds", seconds, route=template, method=method)
