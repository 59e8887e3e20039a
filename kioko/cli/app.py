"""The ``kioko`` command's root: its options, its panels and the :class:`Command` rows of the modules' tables.

Each command module lists its commands in a ``COMMANDS`` table of :class:`Command` rows; importing a module
registers nothing: :func:`kioko.cli.make_app` adds the rows to a new app (``kioko.cli.app`` is the one it builds)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from kioko.cli.support import KiokoGroup

# the groups `kioko --help` shows the commands in
MEMORY = "Memories"
GRAPH = "Links and the memory graph"
SMART = "Intelligence"
SERVE = "Serving"
STORES = "Stores and diagnostics"


def print_version() -> None:
    """Print ``kioko <version>`` (``kioko --version``)."""
    from kioko import __version__

    print(f"kioko {__version__}")


def _version(value: bool) -> None:
    if value:
        print_version()
        raise typer.Exit()


def _root(
    version: Annotated[
        bool, typer.Option("--version", "-V", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show the traceback of an error.")] = False,
) -> None:
    """Kioko: linked memory for AI agents."""


class Command:
    """One command of the ``kioko`` tree: its function, its name when not the function's, and the options
    ``typer.Typer.command`` takes (``rich_help_panel``, ``hidden`` ...)."""

    def __init__(self, callback: Callable[..., Any], name: str | None = None, **options: Any) -> None:
        self.callback = callback
        self.name = name
        self.options = options


def root() -> typer.Typer:
    """The ``kioko`` app with its options and no command yet."""
    app = typer.Typer(
        name="kioko",
        cls=KiokoGroup,
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
        rich_markup_mode="rich",
        context_settings={"help_option_names": ["-h", "--help"]},
        help="Kioko: linked memory for AI agents. Every command acts on one store (--store) for one user (--user).",
    )
    app.callback()(_root)
    return app
