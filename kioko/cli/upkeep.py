"""Keeping a store over months: reembed (another embedder), backup and restore."""

from __future__ import annotations

from typing import Annotated

import typer

from kioko.cli.app import STORES, Command
from kioko.cli.support import Json, Store, err, out, print_json


def reembed(
    *,
    embedder: Annotated[str, typer.Option("--embedder", "-e", help="The new embedder: offline or semantic.")],
    store: Store = None,
    to: Annotated[
        str | None, typer.Option("--to", help="A new store for another vector length (a server's store needs one).")
    ] = None,
    user: Annotated[
        list[str] | None,
        typer.Option("--user", "-u", help="Only this user (repeatable); needed where the driver lists no scopes."),
    ] = None,
    batch: Annotated[int, typer.Option("--batch", min=1, help="Memories embedded and written at a time.")] = 200,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    json: Json = False,
) -> None:
    """Make every memory's vector again with another embedder; links, history and metadata are kept.
    Resumable: killed, the same command finishes the job."""
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from kioko import default_url
    from kioko.cli.stores import _check_exists, _redact
    from kioko.reembedding import reembed as run

    url = store or default_url()
    _check_exists(url, given=store is not None)
    console = err()
    show = not (quiet or json) and console.is_terminal
    started = time.perf_counter()
    with Progress(
        TextColumn("re-embedding"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=not show,
    ) as bar:
        task = bar.add_task("reembed", total=None)
        sizes: list[int] = []

        def progress(done: int) -> None:
            if sizes and bar.tasks[0].total is None:
                bar.update(task, total=sizes[0])
            bar.advance(task, done)

        report = run(url, embedder, to=to, users=user, batch=batch, progress=progress, total=sizes)
    result = {
        "store": _redact(to or url),
        "embedder": report.embedder,
        "dim": report.dim,
        "scopes": report.scopes,
        "reembedded": report.reembedded,
        "copied": report.copied,
        "resumed_after": len(report.skipped_scopes),
        "seconds": round(time.perf_counter() - started, 3),
    }
    if json:
        return print_json(result)
    out().print(
        f"re-embedded {report.reembedded} memories of {report.scopes} scopes with {report.embedder} "
        f"({report.dim} numbers) in {result['seconds']} s; the store is marked with it",
        markup=False,
    )


def backup(
    *,
    dest: Annotated[str, typer.Argument(help="A new file (SQLite) or directory (exports) to write.")],
    store: Store = None,
    user: Annotated[
        list[str] | None, typer.Option("--user", "-u", help="Export this user (repeatable; stores other than SQLite).")
    ] = None,
    json: Json = False,
) -> None:
    """Copy a store while it is in use: SQLite by its online backup API, any other store by exports per user."""
    from kioko import default_url
    from kioko.backups import backup as run

    result = run(store or default_url(), dest, users=user or [])
    if json:
        return print_json(result)
    out().print(f"backed up to {result['dest']} ({result['how']})", markup=False)


def restore(
    *,
    source: Annotated[str, typer.Argument(help="What kioko backup wrote.")],
    store: Store = None,
    json: Json = False,
) -> None:
    """Put a backup back: into a new SQLite file, or (exports) into any store."""
    from kioko import default_url
    from kioko.backups import restore as run

    result = run(source, store or default_url())
    if json:
        return print_json(result)
    out().print(f"restored {source} ({result['how']})", markup=False)


COMMANDS = (
    Command(reembed, rich_help_panel=STORES),
    Command(backup, rich_help_panel=STORES),
    Command(restore, rich_help_panel=STORES),
)
"""This module's commands, in the order ``kioko --help`` lists them (:func:`kioko.cli.make_app` adds them)."""
