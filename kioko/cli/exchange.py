"""Moving a user's memories between stores and services: export and import (JSON lines)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Annotated, Any

import typer

from kioko.cli.app import STORES, Command
from kioko.cli.support import Store, UsageProblem, User, err


def export_(
    *,
    user: User,
    store: Store = None,
    agent: Annotated[list[str] | None, typer.Option("--agent", "-a", help="Also this agent's scope.")] = None,
    api_key: Annotated[str | None, typer.Option("--api-key", help="For a service URL.")] = None,
) -> int:
    """Every memory of a user as JSON lines on stdout: links, entity triples, history, exact vectors."""
    from kioko import connect

    memory: Any = connect(store, **({"api_key": api_key} if api_key else {}))
    try:
        for line in memory.export_lines(user, agent or []):  # a layer or a service: one call of kioko.Memory
            sys.stdout.write(line)
    finally:
        memory.close()
    return 0


def import_(
    *,
    file: Annotated[str, typer.Argument(help="The export's JSON lines ('-' for stdin).")],
    store: Store = None,
    api_key: Annotated[str | None, typer.Option("--api-key", help="For a service URL.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> int:
    """Restore an export into a store or a service; importing twice changes nothing (with a progress bar)."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    from kioko import connect

    # the file is opened before the store, so a mistyped name neither reaches nor creates a store
    source = sys.stdin if file == "-" else _export_file(file)
    console = err()
    # a bar only where a person watches (never into a pipe or a log file): the export's bytes read and checked,
    # of the file's size (stdin's is not known); the import writes once the whole stream is checked
    show = not quiet and console.is_terminal
    size = None if file == "-" else os.path.getsize(file)
    with (
        source,
        Progress(
            TextColumn("importing"),
            BarColumn(),
            DownloadColumn(),
            TimeRemainingColumn(),
            console=console,
            disable=not show,
        ) as bar,
    ):
        task = bar.add_task("importing", total=size)
        memory: Any = connect(store, **({"api_key": api_key} if api_key else {}))
        try:
            result = memory.import_lines(_counted(source, lambda n: bar.advance(task, n)))
        finally:
            memory.close()
    err().print(
        f"{result['records']} records: {result['written']} written, {result['unchanged']} already there", markup=False
    )
    return 0


def _counted(lines: Iterable[str], advance: Callable[[int], None]) -> Iterator[str]:
    """``lines``, each one's size in bytes passed to ``advance`` as it is read."""
    for line in lines:
        advance(len(line.encode("utf-8", "surrogatepass")))
        yield line


def _export_file(path: str) -> Any:
    try:
        return open(path, encoding="utf-8")
    except FileNotFoundError:
        raise UsageProblem(f"no file {path!r} to import (give an export's path, or '-' to read stdin)") from None
    except IsADirectoryError:
        raise UsageProblem(f"{path!r} is a directory, not an export file") from None
    except OSError as error:
        raise UsageProblem(f"cannot read {path!r}: {error.strerror or error}") from None


COMMANDS = (
    Command(export_, "export", rich_help_panel=STORES),
    Command(import_, "import", rich_help_panel=STORES),
)
"""This module's commands, in the order ``kioko --help`` lists them (:func:`kioko.cli.make_app` adds them)."""
