"""What every ``kioko`` command shares: the options, opening the store, printing, and turning errors into
one red line and an exit status (2: the command was used wrongly; 1: it was right but failed)."""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, Iterator, Sequence

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

from kioko_core.errors import (
    ConflictError,
    InvalidRecordError,
    KiokoError,
    MemoryNotFound,
    MissingExtraError,
    UnknownStoreError,
)

if TYPE_CHECKING:  # the layer (numpy, pydantic, the drivers) loads when a command opens a store
    from rich.console import Console
    from rich.table import Table

    from kioko_core.layer.memory_layer import MemoryLayer

from kioko.protocol import Memory

USAGE, FAILURE = 2, 1

Store = Annotated[
    str | None,
    typer.Option(
        "--store",
        "-s",
        envvar="KIOKO_URL",
        show_envvar=True,
        metavar="URL",
        help="Store URL, e.g. sqlite:///kioko.db, memory://, postgresql://... (default: $KIOKO_URL, then a SQLite "
        "file in your data directory).",
    ),
]
User = Annotated[
    str,
    typer.Option(
        "--user", "-u", envvar="KIOKO_USER", show_envvar=True, help="Whose memories (every command acts for one user)."
    ),
]
Agent = Annotated[
    str | None, typer.Option("--agent", "-a", envvar="KIOKO_AGENT", help="One of the user's agents (its own scope).")
]
Json = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of text.")]


class UsageProblem(KiokoError):
    """The command was given something it cannot use (exit status 2)."""


# rich loads when a command prints through it (a table, a styled line, an error), not with the command tree:
# `kioko recall` prints plain text, and rich's console is about 0.02 s of CPU to import


def out() -> Console:
    """A console on today's stdout (tests swap it); rich drops colour for NO_COLOR and for a pipe or file."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def err() -> Console:
    """A console on stderr for messages, so stdout holds only the command's answer."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def new_table(*headers: str, **options: Any) -> Table:
    """A rich table with these column headers (``rich.table.Table``'s options)."""
    from rich.table import Table

    return Table(*headers, **options)


def print_json(data: Any) -> None:
    """Print ``data`` as one indented JSON document on stdout."""
    # plain print: rich would wrap long lines and a reader must get exactly one JSON document
    print(json.dumps(data, indent=2, ensure_ascii=False, default=str))


@contextmanager
def opened(store: str | None, **options: Any) -> Iterator[Memory]:
    """The memory on ``store`` (or the default store; a service's URL gives its client), closed afterwards."""
    from kioko import connect, default_url

    memory = connect(store or default_url(), **options)
    try:
        yield memory
    finally:
        memory.close()


@contextmanager
def opened_layer(store: str | None, **options: Any) -> Iterator[MemoryLayer]:
    """The local layer on ``store`` (a command that reads the store underneath; a service's URL is refused)."""
    from kioko import _connect_layer, default_url
    from kioko.remote.url import is_remote_url

    url = store or default_url()
    if is_remote_url(url):
        raise UnknownStoreError(f"this command reads a store directly; {url.split('://', 1)[0]}:// names a service")
    memory = _connect_layer(url, **options)
    try:
        yield memory
    finally:
        memory.close()


def error_text(error: BaseException) -> str:
    """The message a person reads for ``error`` (a KeyError's own text, unquoted)."""
    if isinstance(error, KeyError) and len(error.args) == 1 and isinstance(error.args[0], str):
        return error.args[0]  # str() of a KeyError would quote the message
    return str(error) or type(error).__name__


def classify(error: BaseException) -> tuple[int, str]:
    """The exit status and the line to print (with what to do) for an error a command raised."""
    text = error_text(error)
    if isinstance(error, TyperException):  # typer's (vendored click's) usage and parameter errors
        context = getattr(error, "ctx", None)
        where = context.command_path if context is not None else "kioko"
        code = getattr(error, "exit_code", USAGE)
        return code, f"{error.format_message()} (see: {where} --help)"
    from kioko_core.privacy.limits import TooLargeError

    if isinstance(error, TooLargeError) and error.what == "content":
        # the library's message names kioko.connect's option; on the command line it is --max-bytes
        return USAGE, (
            f"the content is {error.size:,} bytes, over the limit of {error.limit:,}: split it into smaller "
            f"memories, or raise the limit with --max-bytes {error.size}"
        )
    if isinstance(error, (UsageProblem, UnknownStoreError, InvalidRecordError)):
        return USAGE, text
    if isinstance(error, MissingExtraError):
        return FAILURE, text
    if isinstance(error, MemoryNotFound):
        return FAILURE, f"{text}; `kioko list --user ...` shows the ids"
    if isinstance(error, ConflictError):
        return FAILURE, f"{text}; run the command again"
    if isinstance(error, KiokoError):
        return FAILURE, text
    if isinstance(error, OSError):
        return FAILURE, f"{type(error).__name__}: {text}"
    return FAILURE, f"unexpected {type(error).__name__}: {text} (run with --debug for the traceback)"


def report(error: BaseException, debug: bool) -> int:
    """Print ``error`` as one line on stderr (with its traceback when ``debug``); the exit code it stands for."""
    code, line = classify(error)
    if isinstance(error, TyperException) and not error.format_message().strip():
        return code  # `kioko` alone: the help was printed, there is nothing to add
    line = " ".join(line.split())  # one line, whatever the driver's message looked like
    console = err()
    if debug and not isinstance(error, TyperException):
        traceback.print_exception(error, file=sys.stderr)
    console.print(f"kioko: {line}", style="bold red", markup=False, highlight=False)
    return code


def debugging(args: Sequence[str] | None) -> bool:
    """Whether tracebacks are wanted: ``--debug`` among the arguments, or KIOKO_DEBUG set."""
    given = list(sys.argv[1:] if args is None else args)
    return "--debug" in given or os.environ.get("KIOKO_DEBUG", "") not in ("", "0")


class KiokoGroup(TyperGroup):
    """The command tree, run so that every error, a usage error included, ends as one line on stderr."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the CLI; an error becomes one line on stderr and its exit code instead of a traceback."""
        try:
            result = super().main(
                args=args, prog_name=prog_name or "kioko", complete_var=complete_var, standalone_mode=False, **extra
            )
            code = result if isinstance(result, int) and not isinstance(result, bool) else 0
        except typer.Abort:
            err().print("kioko: aborted", style="red", markup=False)
            code = FAILURE
        except KeyboardInterrupt:
            code = 130
        except BaseException as error:  # noqa: BLE001 - every error becomes a line and a status
            if isinstance(error, SystemExit):
                raise
            code = report(error, debugging(args))
        if standalone_mode:
            sys.exit(code)
        return code


def parse_pairs(pairs: Sequence[str] | None, what: str = "--meta") -> dict[str, Any] | None:
    """``key=value`` options as a dict; values that read as JSON (numbers, true, lists) are parsed."""
    if not pairs:
        return None
    parsed: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageProblem(f"{what} takes key=value, got {pair!r}")
        try:
            parsed[key.strip()] = json.loads(value)
        except ValueError:
            parsed[key.strip()] = value
    return parsed


def when(stamp: float) -> str:
    """A time as a person reads it in a table (local time, minutes; a no-break space keeps it on one line)."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp)).replace(" ", "\u00a0")


def short(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
