"""``/docs`` (Swagger UI) and ``/redoc`` (ReDoc), served with their scripts from this server, so they work offline.

FastAPI's own pages load Swagger UI and ReDoc from a CDN: behind a firewall, or on a laptop on a train,
``/docs`` was a blank page. The assets come from the ``fastapi-offline`` package (Swagger UI is under the
Apache 2.0 licence, ReDoc under MIT; that package redistributes both) and are served at
``/docs-assets/``; the pages name nothing of another origin (no fonts, no favicon, no validator badge).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.requests import Request
from starlette.staticfiles import StaticFiles

ASSETS = "/docs-assets"


def assets_dir() -> Path | None:
    """The folder with swagger-ui-bundle.js, swagger-ui.css, redoc.standalone.js and favicon.png, or None."""
    try:
        import fastapi_offline
    except ImportError:
        return None
    folder = Path(fastapi_offline.__file__).resolve().parent / "static"
    return folder if (folder / "swagger-ui-bundle.js").is_file() else None


def mount(app: Any, openapi_url: str) -> None:
    """Add ``/docs``, ``/redoc`` and their assets to ``app``; without the assets package, both pages are a 503
    that says what to install (never a page that silently reaches for a CDN)."""
    folder = assets_dir()
    if folder is not None:
        app.mount(ASSETS, StaticFiles(directory=folder), name="docs-assets")

    def missing() -> JSONResponse:
        message = "the API pages need their assets: pip install 'kioko[service]' (fastapi-offline)"
        return JSONResponse({"error": {"type": "MissingExtraError", "message": message}}, status_code=503)

    @app.get("/docs", include_in_schema=False)
    async def swagger(request: Request) -> Any:
        if folder is None:
            return missing()
        root = request.scope.get("root_path", "")
        page = get_swagger_ui_html(
            openapi_url=root + openapi_url,
            title="Kioko API",
            swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS}/favicon.png",
            # Swagger UI would otherwise show a badge fetched from its public validator
            swagger_ui_parameters={"validatorUrl": None},
        )
        return _with_token(page, getattr(request.app.state, "console_token", None))

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> Any:
        if folder is None:
            return missing()
        root = request.scope.get("root_path", "")
        return get_redoc_html(
            openapi_url=root + openapi_url,
            title="Kioko API",
            redoc_js_url=f"{root}{ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{ASSETS}/favicon.png",
            with_google_fonts=False,
        )


def _with_token(page: HTMLResponse, token: str | None) -> HTMLResponse:
    """The page with "Try it out" sending the server's console token (kioko.http.browser: a server without
    keys serves a browser's API calls only with it). The token is URL-safe base64: nothing to escape."""
    marker = b"SwaggerUIBundle({"
    html = bytes(page.body)
    if token is None or marker not in html:
        return page
    intercept = f'requestInterceptor: (r) => {{ r.headers["X-Kioko-Console"] = "{token}"; return r; }},'
    body = html.replace(marker, marker + b"\n" + intercept.encode("ascii"), 1)
    return HTMLResponse(body, headers={"cache-control": "no-store"})
