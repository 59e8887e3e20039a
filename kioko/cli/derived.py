"""Commands that are one call of :class:`kioko.Memory`: their arguments and options are the call's parameters,
from the operations table (kioko/service/surface.py), as the REST routes, the HTTP clients and the MCP tools
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
    from ..service import surface

    table = {p.name: p for p in surface.params(call)}
    arguments, options, helps, rename = arguments or {}, options or {}, helps or {}, rename or {}

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        hints = typing.get_type_hints(command, include_extras=True)
        made: list[inspect.Parameter] = []
        for name, help_text in arguments.items():
            found = table[name]
            made.append(
                inspect.Parameter(
                    rename.get(name, name),
                    inspect.Parameter.KEYWORD_ONLY,
                    annotation=Annotated[found.type, typer.Argument(help=help_text)],
                )
            )
        for name, flags in options.items():
            found = table[name]
            bounds = {"min": found.field.get("ge"), "max": found.field.get("le")}
            option = typer.Option(
                *flags,
                help=helps.get(name, found.field.get("description")),
                **{k: v for k, v in bounds.items() if v is not None},
            )
            made.append(
                inspect.Parameter(
                    rename.get(name, name),
                    inspect.Parameter.KEYWORD_ONLY,
                    default=found.default,
                    annotation=Annotated[found.type, option],
                )
            )
        own = [
            p.replace(annotation=hints[p.name])
            for p in inspect.signature(command).parameters.values()
            if p.name != "args"
        ]
        back = {rename.get(name, name): name for name in [*arguments, *options]}

        def run(**given: Any) -> Any:
            args = {back[name]: given.pop(name) for name in list(given) if name in back}
            return command(args=args, **given)

        signature = inspect.Signature([*made, *own], return_annotation=None)
        run.__signature__ = signature  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
        run.__name__, run.__doc__, run.__module__ = command.__name__, command.__doc__, command.__module__
        DERIVED_COMMANDS[command.__name__] = (call, dict(rename))
        return run

    return decorate
