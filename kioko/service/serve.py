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


def serve(*, store: str | None = None, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
          api_keys: str | None = None, body_limit: int | None = None, auto_link: bool = True,
          log_level: str = "info", out: Any = sys.stderr) -> int:
    """Run the service until interrupted (SIGINT / SIGTERM end it gracefully: requests in flight finish)."""
    import uvicorn

    out = out if out is not None else sys.stderr
    from kioko import connect, default_url

    from .app import DEFAULT_BODY_LIMIT, create_app

    keys_file = api_keys or os.environ.get(ENV_KEYS_FILE) or None
    if keys_file is None and not is_loopback(host):
        print(f"kioko serve: refusing to listen on {host} without API keys; pass --api-keys FILE "
              f"(or set {ENV_KEYS_FILE}), or serve on 127.0.0.1", file=out)
        return 2
    url = store or default_url()
    layer = connect(url, auto_link=auto_link)
    app = create_app(layer, api_keys=keys_file, body_limit=body_limit or DEFAULT_BODY_LIMIT, close_layer=True)
    if keys_file is None:
        print(f"kioko serve: no API keys, so every request acts for any user: listening on {host} (loopback) "
              "only", file=out)
    else:
        print(f"kioko serve: {len(app.state.kioko.keys)} API key(s) from {keys_file}", file=out)
    print(f"kioko serve: store {layer.store!r}; docs at http://{_hostport(host, port)}/docs", file=out)
    logging.basicConfig(level=getattr(logging, log_level.upper(), logging.INFO), format="%(asctime)s %(name)s %(message)s")
    # uvicorn's own access log prints the query string (user ids); the service logs one line per request itself
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=False, timeout_graceful_shutdown=10)
    return 0


def _hostport(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
