"""The source of kioko/remote/async_managers.py, rendered from the managers' table (test_operations_table checks
that the module is this; run ``python tests/managers_source.py > kioko/remote/async_managers.py`` after a
manager gains or loses a call)."""

from __future__ import annotations

from kioko.api import operations as surface
from kioko.remote.calls import manager_methods

HEAD = '''"""AsyncRemoteMemory's typed managers: ``await memory.goals.add(...)`` has the library's ``Goals.add``
signature and returns its type (mypy and ``inspect`` see both), and sends the operation of the managers'
table (kioko/api/operations.py) it names.

Rendered from that table by tests/managers_source.py (a test fails when a manager's calls change): do not
edit by hand.
"""

from __future__ import annotations

from typing import Any, ClassVar

from kioko_core import kinds as K

from .remote_calls import awaited


class AsyncManager:
    """A typed manager of an AsyncRemoteMemory: each call of the library's manager, awaited."""

    _manager: ClassVar[str] = ""

    def __init__(self, remote: Any) -> None:
        self._remote = remote
        self.kind = getattr(K.MANAGERS[self._manager], "kind", "")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
'''


def render() -> str:
    parts = [HEAD]
    for manager in surface.MANAGERS:
        library = surface.manager_class(manager).__name__
        lines = [f"\n\nclass Async{library}(AsyncManager):", f'    _manager = "{manager}"']
        lines += [f"    {name} = awaited(K.{library}.{name})" for name in sorted(manager_methods(manager))]
        parts.append("\n".join(lines) + "\n")
    classes = [f"Async{surface.manager_class(m).__name__}" for m in surface.MANAGERS]
    entries = "".join(f'    "{m}": {cls},\n' for m, cls in zip(surface.MANAGERS, classes, strict=True))
    parts.append(f"\n\nMANAGERS: dict[str, type[AsyncManager]] = {{\n{entries}}}\n")
    names = "".join(f'    "{name}",\n' for name in ["AsyncManager", "MANAGERS", *classes])
    parts.append(f"__all__ = [\n{names}]\n")
    return "".join(parts)


if __name__ == "__main__":
    print(render(), end="")
