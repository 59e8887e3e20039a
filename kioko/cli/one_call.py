"""Commands that are one call of :class:`kioko.Memory`: their arguments and options are the call's parameters,
from the operations table (kioko/api/operations.py), as the REST routes, the HTTP clients and the MCP tools
take theirs.

``@from_operation("graph.related", arguments={"memory_id": "The memory to start from."}, options={"depth":
("--depth",)})`` gives the command a positional argument per ``arguments`` entry and an option per ``options``
entry, with the call's type, default and bounds (``ge``/``le`` become ``min``/``max``); the command itself
declares only what the shell adds (``--user``, ``--store``, ``--json`` ...) and receives the call's arguments
as ``args``, under their Python names.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Annotated, Any

import typer

DERIVED_COMMANDS: dict[str, tuple[str, dict[str, str]]] = {}
"""command function -> the call whose parameters it takes, and the names the shell gives them."""


def from_operation(
    call: str,
    *,
    arguments: dict[str, str] | None = None,
    options: dict[str, tuple[str, ...]] | None = None,
    helps: dict[str, str] | None = None,
    rename: dict[str, str] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A CLI command whose parameters are the library call's: ``call``'s signature and its row of the operations
    table give the arguments and options (``arguments``, ``options``, ``helps`` and ``rename`` adjust them)."""
    arguments, options, helps, rename = arguments or {}, options or {}, helps or {}, rename or {}

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        DERIVED_COMMANDS[command.__name__] = (call, dict(rename))
        return DerivedCommand(command, call, arguments, options, helps, rename)

    return decorate


class DerivedCommand:
    """A command whose signature (what typer reads to build it) is made from the operations table the first
    time it is asked for: the table (kioko.api.operations, with the store's models, numpy and pydantic) then
    loads only for a command that is built, not for every ``kioko`` call (``kioko --version`` or ``kioko
    recall`` import every command module)."""

    def __init__(
        self,
        command: Callable[..., Any],
        call: str,
        arguments: dict[str, str],
        options: dict[str, tuple[str, ...]],
        helps: dict[str, str],
        rename: dict[str, str],
    ) -> None:
        self.command, self.call = command, call
        self.arguments, self.options, self.helps, self.rename = arguments, options, helps, rename
        self.__name__, self.__doc__, self.__module__ = command.__name__, command.__doc__, command.__module__
        self.__qualname__ = command.__qualname__
        self._signature: inspect.Signature | None = None
        self.back = {rename.get(name, name): name for name in [*arguments, *options]}

    def __call__(self, **given: Any) -> Any:
        args = {self.back[name]: given.pop(name) for name in list(given) if name in self.back}
        return self.command(args=args, **given)

    @property
    def __signature__(self) -> inspect.Signature:
        if self._signature is None:
            self._signature = self._made()
        return self._signature

    @property
    def __annotations__(self) -> dict[str, Any]:  # type: ignore[override]
        return {p.name: p.annotation for p in self.__signature__.parameters.values()}

    def _made(self) -> inspect.Signature:
        from kioko.api import operations

        table = {p.name: p for p in operations.params(self.call)}
        hints = typing.get_type_hints(self.command, include_extras=True)
        made: list[inspect.Parameter] = []
        for name, help_text in self.arguments.items():
            found = table[name]
            made.append(
                inspect.Parameter(
                    self.rename.get(name, name),
                    inspect.Parameter.KEYWORD_ONLY,
                    annotation=Annotated[found.type, typer.Argument(help=help_text)],
                )
            )
        for name, flags in self.options.items():
            found = table[name]
            bounds = {"min": found.field.get("ge"), "max": found.field.get("le")}
            option = typer.Option(
                *flags,
                help=self.helps.get(name, found.field.get("description")),
                **{k: v for k, v in bounds.items() if v is not None},
            )
            made.append(
                inspect.Parameter(
                    self.rename.get(name, name),
                    inspect.Parameter.KEYWORD_ONLY,
                    default=found.default,
                    annotation=Annotated[found.type, option],
                )
            )
        own = [
            p.replace(annotation=hints[p.name])
            for p in inspect.signature(self.command).parameters.values()
            if p.name != "args"
        ]
        return inspect.Signature([*made, *own], return_annotation=None)
