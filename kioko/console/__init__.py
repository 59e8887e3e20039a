"""The console: a browser UI over the public ``/v1`` API, served by the same app at ``/ui``.

Plain ES modules and a vendored graph library (``static/vendor/``), no build step. The page talks to the
server only through ``/v1`` and ``/v1/events`` with the API key a person types once (kept in the tab's
session storage, sent as a header: never in a URL, so never in a log line).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

STATIC = Path(__file__).resolve().parent / "static"
"""The console's files: index.html, console.css, js/, vendor/."""

MOUNT = "/ui"

# the page loads only its own files and talks only to its own server; styles allow inline because the graph
# library sizes its canvas with style attributes
POLICY = (
    "default-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data: blob:; "
    "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)
HEADERS = [
    (b"content-security-policy", POLICY.encode("ascii")),
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
    (b"cache-control", b"no-cache"),
]


TOKEN_SLOT = b'<meta name="kioko-console" content="">'
"""Where the page gets its server's console token (kioko.http.browser), filled in as the page is served."""


def mount(app: Any) -> None:
    """Serve the console at ``/ui/`` of a FastAPI/Starlette ``app`` (``/ui`` redirects there)."""
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, RedirectResponse
    from starlette.staticfiles import StaticFiles

    @app.get(MOUNT, include_in_schema=False)
    async def console_root() -> RedirectResponse:
        return RedirectResponse(MOUNT + "/", status_code=307)

    # the page itself, with the server's token in it: only a page of this origin can read it (no CORS header),
    # so only this console's requests carry it; never cached, as the token changes with each server start
    async def console_page(request: Request) -> HTMLResponse:
        token = str(getattr(request.app.state, "console_token", "") or "")
        page = (STATIC / "index.html").read_bytes()
        filled = TOKEN_SLOT.replace(b'content=""', b'content="' + token.encode("ascii") + b'"')
        headers = {k.decode(): v.decode() for k, v in HEADERS} | {"cache-control": "no-store"}
        return HTMLResponse(page.replace(TOKEN_SLOT, filled, 1), headers=headers)

    for path in (MOUNT + "/", MOUNT + "/index.html"):
        app.add_route(path, console_page, methods=["GET", "HEAD"], include_in_schema=False)

    app.mount(MOUNT, _Headers(StaticFiles(directory=STATIC, html=True)), name="console")


class _Headers:
    """Adds the console's security headers to every answer of the wrapped ASGI app."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        async def tagged(message: dict) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + HEADERS
            await send(message)

        await self.app(scope, receive, tagged)
