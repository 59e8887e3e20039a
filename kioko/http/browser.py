"""What a browser may ask of the server: the names it answers to, where a change may come from, the body
types it reads, CORS, and the console's token.

A browser is the one client that sends requests its user did not choose: any page the developer visits can
make it POST to ``127.0.0.1:8765`` (a form, or a ``fetch`` with a ``text/plain`` body, which needs no CORS
preflight), and a DNS rebinding makes a page of another site same-origin with the server. A server without
API keys would act for that page as for its owner. One ASGI middleware, in front of the API key gate
(nothing is read from a refused request's body), checks in this order:

* **Host**: the request's ``Host`` must be the address the connection came in on, a loopback name
  (``localhost``, ``127.0.0.1``, ``[::1]``, ``*.localhost``) when that address is loopback, or a name given
  in ``allowed_hosts`` (``kioko serve --allowed-host``; ``"*"`` allows any). A server with API keys and no
  ``allowed_hosts`` takes any ``Host``: the key, which a browser never adds by itself, is the guard there.
* **Where a change comes from**: a request other than GET/HEAD/OPTIONS whose ``Origin`` is another origin
  (``null`` included), or whose ``Sec-Fetch-Site`` is ``cross-site`` or ``same-site`` (another port of the
  same host is same-site), is refused unless the origin is in ``cors_origins``.
* **Body type**: a POST/PUT/PATCH/DELETE with a body must say ``Content-Type: application/json``
  (``POST /v1/import`` also takes NDJSON): a form or a ``text/plain`` body is a 415.
* **The console's token**: on a server without keys, a request to ``/v1`` that a browser sent (it has an
  ``Origin``, or a ``Sec-Fetch-Site`` other than ``none``) must carry ``X-Kioko-Console: <token>``, the
  random token of this server that only its own console page (``/ui/``) and API page (``/docs``) hold.
  Other clients (``RemoteMemory``, curl, the MCP server) send neither header and are not asked for it.
* **CORS**: answers carry CORS headers only for the origins in ``cors_origins`` (``--cors-origin``).
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from fastapi.responses import JSONResponse

from kioko.api.errors import CrossSiteRefused, HostNotAllowed, UnsupportedMediaType, status_of
from kioko.api.wire import error_out
from kioko_core.store import KiokoError

CONSOLE_HEADER = "X-Kioko-Console"
"""The header the console's page sends its server's token in."""
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
JSON_TYPES = frozenset({"application/json"})
IMPORT_TYPES = JSON_TYPES | {"application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonl"}
"""What ``POST /v1/import`` reads (one JSON record per line)."""
PUBLIC_PATHS = frozenset({"/v1/openapi.json"})
"""Paths under /v1 that hold nothing of anyone's: no token asked."""
CORS_HEADERS = ["Authorization", "Content-Type", "X-API-Key", CONSOLE_HEADER, "X-Request-ID"]


def new_token() -> str:
    """A new random console token."""
    return secrets.token_urlsafe(32)


def hostname(value: str) -> str | None:
    """The name in a ``Host`` header or an origin's authority, lower case, without port or brackets; None if
    it is not one."""
    value = value.strip().lower()
    if not value or any(c in value for c in "/\\@ \t?#"):
        return None
    if value.startswith("["):
        end = value.find("]")
        if end < 0 or (value[end + 1 :] and not _is_port(value[end + 1 :])):
            return None
        return value[1:end]
    name, colon, port = value.rpartition(":")
    if not colon:
        name = value
    elif not _is_port(":" + port):
        return None
    return name.rstrip(".") or None


def _is_port(text: str) -> bool:
    return text.startswith(":") and text[1:].isdigit() and len(text) <= 6


def is_loopback_name(name: str) -> bool:
    """``localhost``, ``*.localhost`` (browsers resolve these to loopback themselves) or a loopback address."""
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _authority(origin: str) -> tuple[str, str] | None:
    """(scheme, host[:port] without a default port) of an ``Origin`` value; None for ``null`` and junk."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    default = 443 if parts.scheme == "https" else 80
    return parts.scheme, host if port in (None, default) else f"{host}:{port}"


def _same_authority(origin: str, host_header: str) -> bool:
    found = _authority(origin)
    if found is None:
        return False
    host = host_header.strip().lower()
    for default in (":80", ":443"):
        host = host.removesuffix(default)
    # the scheme is not compared: behind a proxy that ends TLS the server sees http for an https page
    return found[1] == host


class BrowserGuard:
    """The middleware (see the module's text)."""

    def __init__(
        self,
        app: Any,
        *,
        service: Any,
        token: str,
        allowed_hosts: Iterable[str] | None = None,
        cors_origins: Iterable[str] = (),
    ) -> None:
        self.app, self.svc, self.token = app, service, token.encode("ascii")
        self.allowed_hosts = None if allowed_hosts is None else frozenset(h.strip().lower() for h in allowed_hosts)
        self.cors_origins = frozenset(o.strip().rstrip("/") for o in cors_origins)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers: dict[bytes, bytes] = {}
        for name, value in scope.get("headers") or []:
            headers.setdefault(name, value)  # the first of a repeated header, as Starlette reads it
        try:
            self.check(scope, headers)
        except KiokoError as error:
            response = JSONResponse(error_out(error), status_code=status_of(error))
            return await response(scope, receive, send)
        await self.app(scope, receive, send)

    def check(self, scope: dict, headers: dict[bytes, bytes]) -> None:
        """Refuse a request a browser page of another site sent, or one for a host this server does not answer to."""
        host = headers.get(b"host", b"").decode("latin-1")
        self.check_host(scope, host)
        method = scope.get("method", "GET")
        origin = headers.get(b"origin", b"").decode("latin-1") if b"origin" in headers else None
        site = headers.get(b"sec-fetch-site", b"").decode("latin-1").strip().lower()
        allowed = origin is not None and origin.strip().rstrip("/") in self.cors_origins
        path = _route_path(scope)
        if method not in SAFE_METHODS and not allowed:
            if origin is not None and not _same_authority(origin, host):
                raise CrossSiteRefused(f"a change from another site ({origin[:100]!r}) is refused")
            if site in ("cross-site", "same-site"):
                raise CrossSiteRefused(f"a change from another site (Sec-Fetch-Site: {site}) is refused")
        if method in BODY_METHODS and _has_body(headers):
            kind = headers.get(b"content-type", b"").decode("latin-1").split(";", 1)[0].strip().lower()
            wanted = IMPORT_TYPES if path.endswith("/v1/import") else JSON_TYPES
            if kind not in wanted:
                raise UnsupportedMediaType(f"the body must be {' or '.join(sorted(wanted))}, not {kind or 'untyped'!r}")
        from_browser = origin is not None or site not in ("", "none")
        if self.svc.keys is None and from_browser and not allowed and _guarded(path):
            presented = headers.get(CONSOLE_HEADER.lower().encode("ascii"), b"")
            if not hmac.compare_digest(presented, self.token):
                raise CrossSiteRefused(
                    "this server has no API keys: a browser reaches its API only from the server's own console "
                    f"(/ui/), which sends its {CONSOLE_HEADER} token"
                )

    def check_host(self, scope: dict, host_header: str) -> None:
        """Refuse a request whose Host header names a host this server does not answer to (DNS rebinding)."""
        if self.allowed_hosts is None and self.svc.keys is not None:
            return
        if self.allowed_hosts is not None and "*" in self.allowed_hosts:
            return
        name = hostname(host_header)
        if name is not None:
            if self.allowed_hosts is not None and name in self.allowed_hosts:
                return
            server = scope.get("server")
            bound = str(server[0]).lower().strip("[]") if server else None
            if name == bound:
                return
            if (bound is None or is_loopback_name(bound)) and is_loopback_name(name):
                return
        raise HostNotAllowed(
            f"this server does not answer to the host {host_header[:100]!r}: "
            "name it with --allowed-host (or allowed_hosts=) if it is yours"
        )


def _has_body(headers: dict[bytes, bytes]) -> bool:
    length = headers.get(b"content-length")
    if length is not None:
        return length.strip() not in (b"", b"0")
    return b"transfer-encoding" in headers


def _guarded(path: str) -> bool:
    return (path == "/v1" or path.startswith("/v1/")) and path not in PUBLIC_PATHS


def _route_path(scope: dict) -> str:
    path = scope.get("path", "")
    root = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


def add_cors(app: Any, origins: Iterable[str]) -> None:
    """CORS answers for ``origins`` only (none: no CORS header is ever sent)."""
    allowed = sorted({o.strip().rstrip("/") for o in origins})
    if not allowed:
        return
    from starlette.middleware.cors import CORSMiddleware

    app.add_middleware(
        CORSMiddleware,
        allow_origins=allowed,
        allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
        allow_headers=CORS_HEADERS,
        expose_headers=["X-Request-ID", "Retry-After"],
        allow_credentials=False,
    )
