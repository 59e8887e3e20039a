"""The typed managers' declarations, rendered from the tables: test_operations_table checks that the files are these.

- ``kioko_core/layer/declared_managers.py``: the properties ``memory.goals`` ... ``memory.working`` (and the aliases,
  ``memory.lessons``) that MemoryLayer, RemoteMemory and the ``kioko.Memory`` protocol declare, one per row of
  the kinds registry (kioko_core/kinds/registry.py);
- ``kioko/remote/async_managers.py``: AsyncRemoteMemory's managers, each call of the library's manager awaited
  (from the managers' table, kioko/api/operations.py), and their properties.

Run ``python tests/managers_source.py --write`` after a kind is added or a manager gains or loses a call; without
``--write`` it prints what the files would hold.
"""

from __future__ import annotations

import sys
from pathlib import Path

from kioko.api import operations
from kioko.remote.calls import manager_methods
from kioko_core.kinds import MANAGERS
from kioko_core.kinds.registry import KINDS

ROOT = Path(__file__).resolve().parent.parent
DECLARED = ROOT / "kioko_core" / "layer" / "declared_managers.py"
ASYNC_MANAGERS = ROOT / "kioko" / "remote" / "async_managers.py"

DECLARED_HEAD = '''"""The typed managers a memory holds (``memory.goals`` ... ``memory.working``, ``memory.lessons``), declared once.

:class:`~kioko_core.layer.memory_layer.MemoryLayer`, :class:`kioko.remote.client.RemoteMemory` and the
:class:`kioko.Memory` protocol take them from :class:`KindManagers`, so mypy and an IDE see each manager's class
(``memory.goals.add`` is :meth:`kioko_core.kinds.Goals.add`). Each property returns the manager its memory built
for itself (``_managers``, see :func:`kioko_core.kinds.managers_for`); nothing is attached at run time.

Rendered from the kinds registry (kioko_core/kinds/registry.py, one property per manager attribute) by
tests/managers_source.py; a test fails when this module and the registry differ: do not edit by hand
(``python tests/managers_source.py --write``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
{imports}


def manager_of(memory: object, name: str) -> object:
    """The manager ``memory`` holds under ``name`` (an AttributeError when it holds none: a memory being copied)."""
    held = vars(memory).get("_managers")
    if held is None or name not in held:
        raise AttributeError(name)
    return held[name]


class KindManagers(Protocol):
    """``memory.goals`` ...: one typed manager per kind of memory, read-only."""
'''

ASYNC_HEAD = '''"""AsyncRemoteMemory's typed managers: ``await memory.goals.add(...)`` has the library's ``Goals.add``
signature and returns its type (mypy and ``inspect`` see both), and sends the operation of the managers'
table (kioko/api/operations.py) it names. :class:`AsyncKindManagers` declares them on AsyncRemoteMemory, one
property per manager attribute of the kinds registry.

Rendered from those tables by tests/managers_source.py (a test fails when a manager's calls change): do not
edit by hand (``python tests/managers_source.py --write``).
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

from kioko.remote.calls import forward_manager_async
from kioko_core import kinds
from kioko_core.layer.declared_managers import manager_of


class AsyncManager:
    """A typed manager of an AsyncRemoteMemory: each call of the library's manager, awaited."""

    _manager: ClassVar[str] = ""

    def __init__(self, remote: Any) -> None:
        self._remote = remote
        self.kind = getattr(kinds.MANAGERS[self._manager], "kind", "")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
'''


def _class_name(manager: str) -> str:
    """The library's class of a manager attribute (``TextManager`` for a kind whose memory is just its text)."""
    name = MANAGERS[manager].__name__
    return "TextManager" if name == "_TextManager" else name


def _properties(type_of: dict[str, str], heading: str) -> list[str]:
    lines: list[str] = []
    for info in KINDS:
        for name in (info.manager, *info.manager_aliases):
            kind = type_of[info.manager]
            what = (
                f"the same manager as ``memory.{info.manager}``"
                if name != info.manager
                else f"the {info.name} memories ({heading.format(kind)})"
            )
            lines += [
                "",
                "    @property",
                f"    def {name}(self) -> {kind}:",
                f'        """``memory.{name}``: {what}."""',
                f'        return cast("{kind}", manager_of(self, "{info.manager}"))',
            ]
    return lines


def render_declared() -> str:
    type_of = {info.manager: _class_name(info.manager) for info in KINDS}
    names = sorted(set(type_of.values()))
    imports = "    from kioko_core.kinds import (\n" + "".join(f"        {n},\n" for n in names) + "    )"
    body = _properties(type_of, ":class:`~kioko_core.kinds.{}`")
    return DECLARED_HEAD.replace("{imports}", imports) + "\n".join(body) + "\n"


def render_async() -> str:
    parts = [ASYNC_HEAD]
    for manager in operations.MANAGERS:
        library = operations.manager_class(manager).__name__
        lines = [f"\n\nclass Async{library}(AsyncManager):", f'    _manager = "{manager}"']
        lines += [
            f"    {name} = forward_manager_async(kinds.{library}.{name})" for name in sorted(manager_methods(manager))
        ]
        parts.append("\n".join(lines) + "\n")
    classes = [f"Async{operations.manager_class(m).__name__}" for m in operations.MANAGERS]
    entries = "".join(f'    "{m}": {cls},\n' for m, cls in zip(operations.MANAGERS, classes, strict=True))
    parts.append(f"\n\nMANAGERS: dict[str, type[AsyncManager]] = {{\n{entries}}}\n")
    type_of = {info.manager: f"Async{operations.manager_class(info.manager).__name__}" for info in KINDS}
    properties = _properties(type_of, "``{}``")
    parts.append(
        "\n\nclass AsyncKindManagers:\n"
        '    """``memory.goals`` ... of an AsyncRemoteMemory: one awaited manager per kind of memory, read-only."""\n'
        + "\n".join(properties)
        + "\n\n\n"
    )
    names = "".join(f'    "{name}",\n' for name in ["AsyncManager", "AsyncKindManagers", "MANAGERS", *classes])
    parts.append(f"__all__ = [\n{names}]\n")
    return "".join(parts)


RENDERED = {DECLARED: render_declared, ASYNC_MANAGERS: render_async}
"""Each rendered file and what renders it."""


if __name__ == "__main__":
    for path, render in RENDERED.items():
        if "--write" in sys.argv[1:]:
            path.write_text(render(), encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
        else:
            print(f"# {path.relative_to(ROOT)}\n{render()}", end="")
