"""The store and diagnostic commands: stores, doctor, demo (and the pointer left where bench was)."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Any

import typer

from kioko.cli.app import STORES, Command
from kioko.cli.demo import DEMO_USER, demo_url, run_quick_start
from kioko.cli.support import Agent, Json, Store, UsageProblem, new_table, opened_layer, out, print_json


def stores(json: Json = False) -> None:
    """The registered URL schemes: their drivers, what each promises, and which extras are missing."""
    rows = _store_rows()
    if json:
        return print_json(rows)
    table = new_table("scheme", "driver", "installed", "capabilities", box=None, header_style="bold")
    for row in rows:
        installed = "yes" if row["installed"] else f"no: {row['missing']}"
        table.add_row(row["scheme"], row["driver"].rsplit(":", 1)[-1], installed, ", ".join(row["capabilities"]))
    out().print(table)


def _store_rows() -> list[dict[str, Any]]:
    from dataclasses import fields

    from kioko_core.errors import MissingExtraError
    from kioko_core.store import registry

    rows = []
    for scheme in registry.known_schemes():
        builtin = registry.BUILTIN_STORES.get(scheme)
        row: dict[str, Any] = {
            "scheme": scheme,
            "driver": builtin[0] if builtin else "plugin",
            "extra": builtin[1] if builtin else None,
            "installed": True,
            "missing": None,
            "capabilities": [],
        }
        try:
            driver = registry._resolve(scheme)
        except MissingExtraError as error:
            row.update(installed=False, missing=f"pip install 'kioko[{row['extra']}]'" if row["extra"] else str(error))
            rows.append(row)
            continue
        except Exception as error:  # noqa: BLE001 - a broken plugin is reported, not fatal
            row.update(installed=False, missing=f"{type(error).__name__}: {error}")
            rows.append(row)
            continue
        if not builtin:
            row["driver"] = f"{getattr(driver, '__module__', '?')}:{getattr(driver, '__qualname__', driver)}"
        # a class may open several schemes with different promises (qdrant+local has no native knn)
        caps = getattr(driver, "scheme_capabilities", {}).get(scheme) or getattr(driver, "capabilities", None)
        if caps is not None:
            row["capabilities"] = [f.name for f in fields(caps) if getattr(caps, f.name) is True]
        rows.append(row)
    return rows


def doctor(
    user: Annotated[
        str | None, typer.Option("--user", "-u", envvar="KIOKO_USER", help="Also count this user's memories by type.")
    ] = None,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Check a store, writing nothing: versions, format and embedder, size, knn index, pending maintenance,
    (with --user) the counts, and what to do about each warning."""
    import platform
    from collections import Counter
    from dataclasses import asdict

    from kioko import __version__, default_url

    url = store or default_url()
    checks: dict = {"kioko": __version__, "python": platform.python_version(), "store_url": _redact(url)}
    _check_exists(url, given=store is not None)
    from kioko.cli.health import store_health

    warnings: list[dict] = []
    # mark_store=False: an unmarked store is checked, not marked; doctor writes nothing
    with opened_layer(url, mark_store=False) as memory:
        driver = getattr(memory.store, "driver", memory.store)  # the layer's store wraps the driver
        checks["driver"] = type(driver).__module__ + ":" + type(driver).__name__
        checks["dim"] = getattr(memory.store, "dim", None)
        caps = getattr(memory.store, "capabilities", None)
        checks["capabilities"] = {k: v for k, v in asdict(caps).items() if k != "notes"} if caps else {}
        if user:
            counts = Counter(r.kind for r in memory.memories(user_id=user, agent_id=agent))
            checks["user"] = user
            checks["memories"] = dict(sorted(counts.items()))
            checks["total"] = sum(counts.values())
        facts, warnings = store_health(memory, _redact(url), user=user, total=checks.get("total"))
        checks.update(facts)
    checks["warnings"] = warnings
    checks["ok"] = True
    if json:
        return print_json(checks)
    table = new_table(show_header=False, box=None)
    for key, value in checks.items():
        if key != "warnings":
            table.add_row(key, str(value))
    out().print(table)
    for warning in warnings:
        out().print(f"warning: {warning['warning']}\n  do: {warning['do']}", style="yellow", markup=False)
    out().print("store opened: OK", style="green", markup=False)


def _check_exists(url: str, *, given: bool) -> None:
    """Refuse a store file or directory that is not there: opening would create an empty one, and doctor
    would then call a mistyped path healthy. The default store may be new (it is made on first use)."""
    from kioko.remote.url import is_remote_url
    from kioko_core.errors import KiokoError
    from kioko_core.store import registry
    from kioko_core.store.url import StoreURL

    if not given or is_remote_url(url):
        return
    parsed = StoreURL.parse(url)
    locate = getattr(registry._resolve(parsed.scheme), "local_path", None)
    path = locate(parsed) if locate is not None else None
    if path is not None and not os.path.exists(path):
        raise KiokoError(
            f"no store at {path}: {url!r} names nothing on disk (a mistyped path?); doctor checks an existing "
            "store and creates none (kioko add or kioko.connect makes a new one)"
        )


def _redact(url: str) -> str:
    """A URL with its password replaced, for printing."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return urlunsplit(parts._replace(netloc=netloc))
    return url


def demo(
    *,
    user: Annotated[
        str, typer.Option("--user", "-u", help="The demo's user; their memories are replaced.")
    ] = DEMO_USER,
    store: Annotated[
        str | None,
        typer.Option(
            "--store",
            "-s",
            metavar="URL",
            help="Where the demo writes (default: a store of its own, demo.db in your data directory; never "
            "$KIOKO_URL, so your own memories are left alone).",
        ),
    ] = None,
    json: Json = False,
) -> None:
    """Run the quick start: nine memories, the links they make, and one recall that follows them."""
    import io

    captured = io.StringIO()
    with opened_layer(store or demo_url(), auto_link=True) as memory:
        memory.forget_user(user_id=user)  # the demo starts from the same memories every run
        ids = run_quick_start(memory, user, out=captured if json else sys.stdout)
        described = repr(memory.store)
    if json:
        return print_json({"user_id": user, "store": described, "ids": ids, "output": captured.getvalue()})
    print(f"\n(store: {described}; user {user!r})")
    if store is None:
        print("See them in the console: kioko ui --demo")


def bench(ctx: typer.Context) -> None:
    """Removed: the benchmarks are not installed with the package; this says where they are."""
    # kept as a hidden command so that the old spelling gets a pointer rather than "No such command"
    raise UsageProblem(
        "kioko bench is no longer a command: the benchmarks live in a clone of the repository; run "
        "python benchmarks/memory_graph_bench.py --quick there (docs/scaling.md shows its results)"
    )


COMMANDS = (
    Command(stores, rich_help_panel=STORES),
    Command(doctor, rich_help_panel=STORES),
    Command(demo, rich_help_panel=STORES),
    Command(
        bench,
        hidden=True,
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []},
    ),
)
"""This module's commands, in the order ``kioko --help`` lists them (:func:`kioko.cli.make_app` adds them)."""
