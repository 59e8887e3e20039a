"""``kioko serve``: the REST API on uvicorn, with API keys or on loopback only."""

from __future__ import annotations

import gc
import ipaddress
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kioko.api.auth import ENV_KEYS_FILE
from kioko.http.browser import new_token

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


IN_PROCESS_THREADS = 2
"""Worker threads for a store that works in the server's own process: one request's Python at a time holds
the GIL anyway, and two let a read run beside a write. With 16 clients recalling from SQLite, one or two
threads cost about a fifth less CPU per recall than the default 40 (`benchmarks/service_bench.py`)."""


def default_threads(url: str) -> int | None:
    """:data:`IN_PROCESS_THREADS` for memory:// and SQLite URLs (and .db paths), None otherwise."""
    scheme = url.split(":", 1)[0].lower() if "://" in url else "sqlite"
    return IN_PROCESS_THREADS if scheme in ("memory", "sqlite") else None


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only (``localhost`` or a loopback address)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@contextmanager
def _built_without_collections() -> Iterator[None]:
    """Build the app with the cyclic garbage collector paused, then freeze what was built.

    Importing FastAPI and building ~100 routes makes hundreds of thousands of objects that live as long as the
    server; the collector's full passes over them while they are made cost 0.2-0.3 s of CPU per start here
    (each pass walks the whole heap). ``gc.freeze()`` moves them to the permanent generation, so later
    collections (which resume at once) only look at objects made afterwards: the pattern the ``gc``
    module's documentation gives for long-lived start-up state. Cycles made and dropped while building are
    kept rather than collected: a one-off of start-up garbage, not a growth."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if paused:
            gc.enable()


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
    workers: int = 1,
    threads: int | None = None,
    webhook_allow: list[str] | None = None,
    webhook_only: list[str] | None = None,
    allowed_hosts: list[str] | None = None,
    cors_origins: list[str] | None = None,
    key_concurrency: int | None = None,
    webhooks_per_user: int | None = None,
    out: Any = None,
) -> int:
    """Run the service until interrupted (SIGINT / SIGTERM end it gracefully: requests in flight finish).

    ``workers`` > 1 runs that many server processes on one port (uvicorn's workers), each with its own
    layer on the same store: Python runs one thread at a time per process, so this is how a server uses
    more than one core. The store must be one several processes can open (not memory://).
    ``threads``: worker threads per process running requests at once (see ``create_app``); None picks
    :data:`IN_PROCESS_THREADS` for a store in the process (memory://, SQLite) and leaves the default (40)
    for a database server, whose requests mostly wait on the network.
    ``webhook_allow``: hosts, addresses or networks webhooks may reach although not public (and over
    http); ``webhook_only``: the only hosts webhooks may name (see ``create_app``). ``allowed_hosts``: names
    the server answers to besides its address (``--allowed-host``); ``cors_origins``: other origins whose pages
    may call it (``--cors-origin``); see :mod:`kioko.http.browser`. ``key_concurrency``: requests of one API
    key run at once, ``webhooks_per_user``: webhooks one user may have (None: ``create_app``'s defaults).
    """
    with _built_without_collections():
        import uvicorn

        from kioko import default_url
        from kioko.http.app import DEFAULT_BODY_LIMIT, create_app

    out = out if out is not None else sys.stderr

    named = api_keys if api_keys is not None else os.environ.get(ENV_KEYS_FILE)
    if named is not None and not named.strip():
        # an empty setting is a mistake, not a choice: serving without keys is asked for by naming no key file
        print(
            f"kioko serve: the key file is named as empty (--api-keys or {ENV_KEYS_FILE}); name a key file, "
            "or give none (and unset the variable) to serve without keys on loopback",
            file=out,
        )
        return 2
    keys_file = named or None
    if keys_file is None and not is_loopback(host):
        print(
            f"kioko serve: refusing to listen on {host} without API keys; pass --api-keys FILE "
            f"(or set {ENV_KEYS_FILE}), or serve on 127.0.0.1",
            file=out,
        )
        return 2
    url = store or default_url()
    config: dict[str, Any] = {
        "store": url,
        "auto_link": auto_link,
        "intelligence": intelligence,
        "intelligence_llm": intelligence_llm,
        "api_keys": keys_file,
        "body_limit": body_limit or DEFAULT_BODY_LIMIT,
        "log_level": log_level,
        "threads": threads if threads is not None else default_threads(url),
        "webhook_allow": list(webhook_allow or []),
        "webhook_only": list(webhook_only) if webhook_only else None,
        "allowed_hosts": list(allowed_hosts) if allowed_hosts else None,
        "cors_origins": list(cors_origins or []),
        "key_concurrency": key_concurrency,
        "webhooks_per_user": webhooks_per_user,
        # one console token for every worker process: the page one of them served calls them all
        "console_token": new_token(),
    }
    if workers > 1 and url.split(":", 1)[0].lower() == "memory":
        print("kioko serve: memory:// lives in one process; --workers needs a store several can open", file=out)
        return 2
    with _built_without_collections():
        layer = _layer(config)
        app = create_app(layer, close_layer=True, **_app_options(config))
    if keys_file is None:
        print(
            f"kioko serve: no API keys, so every request acts for any user: listening on {host} (loopback) only",
            file=out,
        )
    else:
        count = len(app.state.kioko.keys)
        print(f"kioko serve: {count} API key(s) from {keys_file}", file=out)
        if count == 0:
            print("kioko serve: every request is refused until a key is added (kioko keys-new)", file=out)
    guard = app.state.kioko.webhook_guard
    if allowed_hosts:
        print(f"kioko serve: also answers to the host(s) {', '.join(allowed_hosts)}", file=out)
    if cors_origins:
        print(f"kioko serve: pages of {', '.join(cors_origins)} may call the API (CORS)", file=out)
    if guard.allowed:
        print(f"kioko serve: webhooks may also reach {', '.join(guard.allowed)} (over http too)", file=out)
    where = f"http://{_hostport(host, port)}"
    print(f"kioko serve: store {layer.store!r}; docs at {where}/docs, the console at {where}/ui/", file=out)
    logging.basicConfig(
        level=getattr(logging, log_level.upper(), logging.INFO), format="%(asctime)s %(name)s %(message)s"
    )
    _scrub_every_line()
    # uvicorn's own access log prints the query string (user ids); the service logs one line per request itself
    if workers > 1:
        layer.close()  # opened above to check the store and print what is served; each worker opens its own
        print(f"kioko serve: {workers} worker processes", file=out)
        os.environ[WORKER_CONFIG] = json.dumps(config)
        uvicorn.run(
            f"{__name__}:worker_app",
            factory=True,
            workers=workers,
            host=host,
            port=port,
            log_level=log_level,
            access_log=False,
            timeout_graceful_shutdown=10,
        )
        return 0
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=False, timeout_graceful_shutdown=10)
    return 0


WORKER_CONFIG = "KIOKO_SERVE_WORKER_CONFIG"
"""How ``kioko serve --workers N`` tells its worker processes (its children) what to serve, as JSON: the
store URL as given (a password in it included), the key file's path (never a key) and the console token all
the processes share."""


def _layer(config: dict[str, Any]) -> Any:
    from kioko import connect, intelligent

    if config["intelligence"] or config["intelligence_llm"]:
        llm = _model(config["intelligence_llm"]) if config["intelligence_llm"] else None
        return intelligent(config["store"], llm=llm)
    return connect(config["store"], auto_link=config["auto_link"])


def worker_app() -> Any:
    """The app one worker process of ``kioko serve --workers N`` serves (uvicorn calls this factory)."""
    from kioko.http.app import create_app

    config = json.loads(os.environ[WORKER_CONFIG])
    logging.basicConfig(  # the request log lines of this process, as the single-process server has them
        level=getattr(logging, str(config["log_level"]).upper(), logging.INFO),
        format=f"%(asctime)s %(name)s pid={os.getpid()} %(message)s",
    )
    _scrub_every_line()
    with _built_without_collections():
        return create_app(_layer(config), close_layer=True, **_app_options(config))


def _app_options(config: dict[str, Any]) -> dict[str, Any]:
    """``create_app``'s options from the serve config (the same in one process and in each worker)."""
    return {
        "api_keys": config["api_keys"],
        "body_limit": config["body_limit"],
        "threads": config.get("threads"),
        "webhook_allow": config.get("webhook_allow") or (),
        "webhook_hosts": set(config["webhook_only"]) if config.get("webhook_only") else None,
        "allowed_hosts": config.get("allowed_hosts"),
        "cors_origins": config.get("cors_origins") or (),
        # left out when not given, so create_app's documented defaults apply
        **{name: config[name] for name in ("key_concurrency", "webhooks_per_user") if config.get(name) is not None},
        "console_token": config.get("console_token"),
    }


def _scrub_every_line() -> None:
    """The redacting filter on the root logger's handlers too: a line of any library (the store's driver,
    uvicorn, a provider's client) is redacted as Kioko's own are, URL passwords shown as ``***``."""
    from kioko_core.privacy.secrets import RedactingFilter

    for handler in logging.root.handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())


def _model(target: str) -> Any:
    """``--intelligence-llm``: a provider string (``openai:gpt-4o-mini``, its key from the environment) as it
    is, for the intelligence to open; ``package.module:name`` -> the model callable it names."""
    import importlib

    from kioko_core.store import InvalidRecordError
    from kioko_intelligence.providers import is_provider_string

    if is_provider_string(target):
        return target
    module, _, name = target.partition(":")
    if not module or not name:
        raise InvalidRecordError(
            f"--intelligence-llm takes a provider (openai:<model>, azure:<deployment>, ollama:<model>, "
            f"openai-compatible:<url>#<model>) or package.module:callable, got {target!r}"
        )
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as error:
        raise InvalidRecordError(f"cannot import {target!r}: {error}") from None


def open_when_ready(health: str, address: str, timeout: float = 60.0) -> threading.Thread:
    """Open ``address`` in the default browser once ``health`` answers (a daemon thread; ``kioko ui``).

    Python's webbrowser module picks the browser ($BROWSER first); where there is none the address printed
    before is the way in.
    """

    def wait_then_open() -> None:
        import urllib.request
        import webbrowser

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(health, timeout=1):  # noqa: S310 (our own loopback address)
                    break
            except OSError:
                time.sleep(0.1)
        else:
            return
        if not webbrowser.open(address):
            print(f"kioko ui: no browser to open here; visit {address}", file=sys.stderr)

    thread = threading.Thread(target=wait_then_open, name="kioko-ui-open", daemon=True)
    thread.start()
    return thread


def _hostport(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
