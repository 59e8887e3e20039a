"""The ``kioko`` command tree is built by ``make_app`` from the command modules' tables: importing a module
registers nothing, and every row of every table is one command of the app, in the tables' order."""

from __future__ import annotations

from kioko.cli import app, exchange, graph, make_app, memories, serving, smart, stores, upkeep

MODULES = (memories, graph, smart, serving, exchange, stores, upkeep)


def test_every_row_of_the_tables_is_a_command_in_order() -> None:
    rows = [command.callback for module in MODULES for command in module.COMMANDS]
    assert [info.callback for info in app.registered_commands] == rows
    assert len(rows) == 35


def test_building_the_app_again_adds_nothing_to_the_first() -> None:
    """No module-level app collects commands as a side effect: each app built holds its own rows."""
    before = len(app.registered_commands)
    again = make_app()
    assert again is not app
    assert len(again.registered_commands) == before
    assert len(app.registered_commands) == before
    assert [info.name for info in again.registered_commands] == [info.name for info in app.registered_commands]
