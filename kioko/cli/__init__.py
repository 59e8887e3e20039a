"""The ``kioko`` command (typer + rich): every capability of the layer from a terminal.

Each command takes ``--store URL`` (default ``$KIOKO_URL``, then a SQLite file in the data directory),
``--user`` (or ``$KIOKO_USER``), ``--agent`` and ``--json``. Errors print one red line with what to do;
the exit status is 2 for a command used wrongly and 1 for one that failed (``--debug`` adds the traceback).

One module per group of commands, in the order ``kioko --help`` lists them: :mod:`.memories`,
:mod:`.graph`, :mod:`.smart` (intelligence), :mod:`.serving`, :mod:`.exchange`, :mod:`.stores` and :mod:`.upkeep`; each
lists its commands in a ``COMMANDS`` table, which :func:`make_app` adds to the app (importing a module registers
nothing). What they share is in :mod:`.support`, the quick start's data in :mod:`.demo`.
"""

from __future__ import annotations

import copy
import gc
import sys
from typing import Sequence

import typer

from kioko.cli import exchange, graph, memories, serving, smart, stores, upkeep
from kioko.cli.app import print_version, root
from kioko.cli.demo import DEMO_USER, run_quick_start


def make_app() -> typer.Typer:
    """The ``kioko`` command's typer app, every command module's ``COMMANDS`` added in the order ``kioko --help``
    shows the groups: memories, graph, intelligence, serving, export and import, stores, upkeep."""
    app = root()
    for module in (memories, graph, smart, serving, exchange, stores, upkeep):
        for command in module.COMMANDS:
            app.command(command.name, **command.options)(command.callback)
    return app


app = make_app()
"""The ``kioko`` command (typer), built once from the command modules' tables."""

__all__ = ["DEMO_USER", "app", "main", "make_app", "run_quick_start"]


def main(argv: Sequence[str] | None = None) -> int:
    """The console entry point: runs one command and returns its exit status (0, 1 failure, 2 usage)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args in (["--version"], ["-V"]):  # before typer reads every command's signature (about 0.05 s of CPU)
        print_version()
        return 0
    command = typer.main.get_command(_tree_for(args))
    code = command.main(args=args, prog_name="kioko", standalone_mode=False)
    if argv is None:
        # the process ends now (the console script exits with this status): frozen objects are left out of
        # the collector's last full pass at interpreter exit, about 0.05-0.1 s of CPU over numpy's, pydantic's
        # and the layer's objects; everything is still torn down and every exit handler runs. Not when
        # called with arguments (tests, embedding programs), whose process goes on
        gc.freeze()
    return code


def _tree_for(args: Sequence[str]) -> typer.Typer:
    """``app`` with only the command ``args`` name, when they start with one: typer reads the signature of
    every command it builds (about 0.05 s of CPU for all 31), and a run uses one. Anything else (no command,
    an option first, a name that is not a command) gets the whole tree, so help, completion and errors are
    typer's own."""
    name = args[0] if args else ""
    chosen = [info for info in app.registered_commands if _command_name(info) == name]
    if len(chosen) != 1:
        return app
    light = copy.copy(app)
    light.registered_commands = chosen
    return light


def _command_name(info: typer.models.CommandInfo) -> str:
    if info.name:
        return info.name
    return typer.main.get_command_name(info.callback.__name__) if info.callback else ""
