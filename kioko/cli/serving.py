"""The serving commands: mcp, serve, ui and the API keys (keys-new, keys-rotate, keys-revoke)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kioko.cli.app import SERVE, Command
from kioko.cli.demo import DEMO_USER, demo_url
from kioko.cli.support import Agent, Store, UsageProblem, err


def mcp(
    *,
    transport: Annotated[str, typer.Option("--transport", help="stdio (for a desktop client) or http.")] = "stdio",
    intelligence: Annotated[
        bool,
        typer.Option(
            "--intelligence",
            help="Route learn_from_conversation through the intelligence (and link and graph every write).",
        ),
    ] = False,
    host: Annotated[str, typer.Option("--host", help="Address to listen on (http).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on (http).")] = 8766,
    api_keys: Annotated[
        str | None,
        typer.Option(
            "--api-keys",
            envvar="KIOKO_API_KEYS",
            metavar="FILE",
            help="http: the service's key file; every request needs a key, and the key names the user "
            "(--user then only chooses among a key's users).",
        ),
    ] = None,
    user: Annotated[
        str | None,
        typer.Option(
            "--user",
            "-u",
            envvar="KIOKO_USER",
            show_envvar=True,
            help="The user the server acts for (with --api-keys: the key's user).",
        ),
    ] = None,
    store: Store = None,
    agent: Agent = None,
) -> None:
    """Serve the user's memories to an MCP client (Claude Desktop, Cursor ...). The user is fixed here."""
    from kioko.mcp_server import require_mcp, run

    if transport not in ("stdio", "http"):
        raise UsageProblem(f"--transport must be stdio or http, not {transport!r}")
    if api_keys and transport != "http":
        raise UsageProblem("--api-keys is for --transport http (a stdio server belongs to the one client that ran it)")
    if user is None and not api_keys:
        raise UsageProblem("Missing option '--user': the user the server acts for")
    if transport == "http" and not api_keys and host not in ("127.0.0.1", "localhost", "::1"):
        raise UsageProblem(
            f"without --api-keys anyone who reaches {host} could use {user!r}'s memories: "
            "listen on 127.0.0.1, or pass --api-keys FILE"
        )
    require_mcp()
    if transport == "http":
        who = f"the user of each request's API key ({api_keys})" if api_keys else f"user {user!r}"
        err().print(f"kioko mcp: serving {who} at http://{host}:{port}/mcp", markup=False)
    run(store, user, agent, transport=transport, intelligence=intelligence, host=host, port=port, api_keys=api_keys)


AllowedHosts = Annotated[
    list[str] | None,
    typer.Option(
        "--allowed-host",
        metavar="NAME",
        help="A host name the server answers to besides its address and loopback names (repeatable; "
        "a proxy's name, say). Other Host headers are refused (DNS rebinding).",
    ),
]
CorsOrigins = Annotated[
    list[str] | None,
    typer.Option(
        "--cors-origin",
        metavar="ORIGIN",
        help="An origin (https://app.example.com) whose pages may call the API: CORS headers for it, and its "
        "writes accepted (repeatable; by default no other site's page may).",
    ),
]


def serve(
    *,
    store: Store = None,
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on; without keys only loopback.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8765,
    api_keys: Annotated[
        str | None, typer.Option("--api-keys", envvar="KIOKO_API_KEYS", help="The JSON key file (kioko keys-new).")
    ] = None,
    body_limit: Annotated[int | None, typer.Option("--body-limit", min=1, help="Bytes per request body.")] = None,
    no_linking: Annotated[bool, typer.Option("--no-linking", help="Store memories without linking them.")] = False,
    intelligence: Annotated[
        bool,
        typer.Option(
            "--intelligence", help="Route /v1/manage, /v1/turns and /v1/learn through the offline intelligence."
        ),
    ] = False,
    intelligence_llm: Annotated[
        str | None,
        typer.Option(
            "--intelligence-llm",
            metavar="PROVIDER:MODEL|PKG.MOD:ASK",
            help="The same with a model: openai:gpt-4o-mini, azure:<deployment>, ollama:llama3.1, "
            "openai-compatible:<url>#<model> (keys from the environment), or a callable to import.",
        ),
    ] = None,
    log_level: Annotated[str, typer.Option("--log-level")] = "info",
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=1,
            help="Server processes on the one port (each uses a core; the store must not be memory://).",
        ),
    ] = 1,
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads",
            min=1,
            help="Requests each process runs at once (default: 2 for memory:// and SQLite, 40 for database servers).",
        ),
    ] = None,
    webhook_allow: Annotated[
        list[str] | None,
        typer.Option(
            "--webhook-allow",
            metavar="HOST",
            help="A host, address or network (10.1.0.0/16) webhooks may reach although not public, over http "
            "too (repeatable; by default only public https targets).",
        ),
    ] = None,
    webhook_only: Annotated[
        list[str] | None,
        typer.Option("--webhook-only", metavar="HOST", help="The only hosts webhooks may name (repeatable)."),
    ] = None,
    allowed_host: AllowedHosts = None,
    cors_origin: CorsOrigins = None,
    key_concurrency: Annotated[
        int | None,
        typer.Option(
            "--key-concurrency",
            min=1,
            help="Requests of one API key run at once; more wait their turn (default 2; a key's own "
            "'concurrency' wins).",
        ),
    ] = None,
    webhooks_per_user: Annotated[
        int | None, typer.Option("--webhooks-per-user", min=1, help="Webhooks one user may have (default 20).")
    ] = None,
) -> int:
    """The REST API under /v1 (docs at /docs) on uvicorn: every user's memories, bounded by API keys."""
    from kioko.http.serve import serve as run

    return run(
        store=store,
        host=host,
        port=port,
        api_keys=api_keys,
        body_limit=body_limit,
        auto_link=not no_linking,
        intelligence=intelligence,
        intelligence_llm=intelligence_llm,
        log_level=log_level,
        workers=workers,
        threads=threads,
        webhook_allow=webhook_allow,
        webhook_only=webhook_only,
        allowed_hosts=allowed_host,
        cors_origins=cors_origin,
        key_concurrency=key_concurrency,
        webhooks_per_user=webhooks_per_user,
    )


def ui(
    ctx: typer.Context,
    *,
    store: Store = None,
    port: Annotated[int, typer.Option("--port", help="Port to listen on (loopback only).")] = 8765,
    user: Annotated[
        str | None, typer.Option("--user", "-u", envvar="KIOKO_USER", help="The user the console opens with.")
    ] = None,
    api_keys: Annotated[
        str | None,
        typer.Option("--api-keys", envvar="KIOKO_API_KEYS", help="A key file: the console then asks for a key."),
    ] = None,
    intelligence: Annotated[
        bool, typer.Option("--intelligence", help="Link and route turns through the offline intelligence.")
    ] = False,
    no_browser: Annotated[bool, typer.Option("--no-browser", help="Print the address; open no browser.")] = False,
    demo: Annotated[
        bool, typer.Option("--demo", help="Open the store `kioko demo` wrote (its own file), on the demo's user.")
    ] = False,
    allowed_host: AllowedHosts = None,
    cors_origin: CorsOrigins = None,
) -> int:
    """The console in your browser: serves the API and the console on 127.0.0.1 and opens /ui/."""
    from urllib.parse import quote

    if demo:
        # typer may carry its own copy of click, so the source is compared by name, not by click's enum
        source = ctx.get_parameter_source("store")
        if source is not None and source.name == "COMMANDLINE":
            raise UsageProblem("--demo opens the demo's own store: give --demo or --store, not both")
        store, user = demo_url(), user or DEMO_USER

    from kioko.http.serve import open_when_ready
    from kioko.http.serve import serve as run

    address = f"http://127.0.0.1:{port}/ui/?user={quote(user or DEMO_USER)}"
    print(f"kioko ui: the console is at {address}", flush=True)
    if not no_browser:
        open_when_ready(f"http://127.0.0.1:{port}/healthz", address)
    return run(
        store=store,
        host="127.0.0.1",
        port=port,
        api_keys=api_keys,
        intelligence=intelligence,
        allowed_hosts=allowed_host,
        cors_origins=cors_origin,
    )


def keys_new(
    *,
    file: Annotated[Path, typer.Option("--file", help="The JSON key file (created if missing).")],
    name: Annotated[str, typer.Option("--name", help="A label for the key (never the key).")],
    user: Annotated[list[str] | None, typer.Option("--user", "-u", help="A user the key may act for.")] = None,
    agent: Annotated[list[str] | None, typer.Option("--agent", "-a", help="Restrict to these agents.")] = None,
    admin: Annotated[bool, typer.Option("--admin", help="A key that may act for every user.")] = False,
    read_only: Annotated[bool, typer.Option("--read-only", help="Reads only: every write answers 403.")] = False,
    rate_limit: Annotated[
        str | None, typer.Option("--rate-limit", metavar="N/minute", help="Requests per second, minute or hour (429).")
    ] = None,
    body_limit: Annotated[
        int | None, typer.Option("--body-limit", min=1, help="Bytes per request body for this key (413).")
    ] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency", min=1, help="This key's requests run at once (others wait; the server's default)."
        ),
    ] = None,
) -> int:
    """Make an API key for kioko serve: only its SHA-256 goes to the file; the key is printed once."""
    from kioko.api.auth import add_key

    if not admin and not user:
        raise UsageProblem("give --user (repeatable) or --admin")
    key = add_key(
        file,
        name=name,
        users=user,
        agents=agent,
        admin=admin,
        read_only=read_only,
        rate_limit=rate_limit,
        body_limit=body_limit,
        concurrency=concurrency,
    )
    print(key)
    err().print(f"(only its SHA-256 was written to {file}; this is the one time the key is shown)", markup=False)
    return 0


def keys_rotate(
    *,
    file: Annotated[Path, typer.Option("--file", help="The JSON key file.")],
    name: Annotated[str, typer.Option("--name", help="The key to give a new secret.")],
) -> int:
    """A new secret for a key, same rights: printed once; a running server refuses the old one at once."""
    from kioko.api.auth import rotate_key

    print(rotate_key(file, name))
    err().print(f"(the key {name!r} in {file} has a new secret; the old one no longer works)", markup=False)
    return 0


def keys_revoke(
    *,
    file: Annotated[Path, typer.Option("--file", help="The JSON key file.")],
    name: Annotated[str, typer.Option("--name", help="The key to take out.")],
) -> int:
    """Take a key out of the file: a running server refuses it from its next request."""
    from kioko.api.auth import revoke_key

    revoke_key(file, name)
    err().print(f"revoked {name!r} in {file}", markup=False)
    return 0


COMMANDS = (
    Command(mcp, rich_help_panel=SERVE),
    Command(serve, rich_help_panel=SERVE),
    Command(ui, rich_help_panel=SERVE),
    Command(keys_new, "keys-new", rich_help_panel=SERVE),
    Command(keys_rotate, "keys-rotate", rich_help_panel=SERVE),
    Command(keys_revoke, "keys-revoke", rich_help_panel=SERVE),
)
"""This module's commands, in the order ``kioko --help`` lists them (:func:`kioko.cli.make_app` adds them)."""
