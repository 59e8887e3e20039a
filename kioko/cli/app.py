"""The ``kioko`` command's root: the typer app every command module adds its commands to, and its panels."""

from __future__ import annotations

from typing import Annotated

import typer

from kioko.cli.support import KiokoGroup

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

# the groups `kioko --help` shows the commands in
MEMORY = "Memories"
GRAPH = "Links and the memory graph"
SMART = "Intelligence"
SERVE = "Serving"
STORES = "Stores and diagnostics"


def print_version() -> None:
    from kioko import __version__

    print(f"kioko {__version__}")


def _version(value: bool) -> None:
    if value:
        print_version()
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", "-V", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show the traceback of an error.")] = False,
) -> None:
    """Kioko: linked memory for AI agents."""
