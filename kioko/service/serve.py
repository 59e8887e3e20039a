"""``kioko serve``: the REST API on uvicorn, with API keys or on loopback only."""

from __future__ import annotations

import ipaddress
import logging
import os
import sys
from typing import Any

from .auth import ENV_KEYS_FILE

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(
    *,
    store: str | None = None,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    api_keys: str | None = None,
    body_limit: int | None = None,
    auto_link: bool = True,
    intelligence: bool = False,
    intelligence_llm: str | None = None,
    log_level: str = "info",
    out: Any = None,
) -> int:
    """Run the service until interrupted (SIGINT / SIGTERM end it gracefully: requests in flight finish)."""
    import uvicorn

    from kioko import connect, default_url, intelligent

    out = out if out is not None else sys.stderr
    from .app import DEFAULT_BODY_LIMIT, create_app

    keys_file = api_keys or os.environ.get(ENV_KEYS_FILE) or None
    if keys_file is None and not is_loopback(host):
        print(
            f"kioko serve: refusing to listen on {host} without API keys; pass --api-keys FILE "
            f"(or set {ENV_KEYS_FILE}), or serve on 127.0.0.1",
            file=out,
        )
        return 2
    url = store or default_url()
    if intelligence or intelligence_llm:
        layer = intelligent(url, llm=_import(intelligence_llm) if intelligence_llm else None)
    else:
        layer = connect(url, auto_link=auto_link)
    app = create_app(layer, api_keys=keys_file, body_limit=body_limit or DEFAULT_BODY_LIMIT, close_layer=True)
    if keys_file is None:
        print(
            f"kioko serve: no API keys, so every request acts for any user: listening on {host} (loopback) only",
            file=out,
        )
    else:
        print(f"kioko serve: {len(app.state.kioko.keys)} API key(s) from {keys_file}", file=out)
    print(f"kioko serve: store {layer.store!r}; docs at http://{_hostport(host, port)}/docs", file=out)
    logging.basicConfig(
        level=getattr(logging, log_level.upper(), logging.INFO), format="%(asctime)s %(name)s %(message)s"
    )
    # uvicorn's own access log prints the query string (user ids); the service logs one line per request itself
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=False, timeout_graceful_shutdown=10)
    return 0


def _import(target: str) -> Any:
    """``package.module:name`` -> the object (the model callable for ``--intelligence-llm``)."""
    import importlib

    from kioko_core.store import InvalidRecordError

    module, _, name = target.partition(":")
    if not module or not name:
        raise InvalidRecordError(f"--intelligence-llm takes package.module:callable, got {target!r}")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as error:
        raise InvalidRecordError(f"cannot import {target!r}: {error}") from None


def _hostport(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
