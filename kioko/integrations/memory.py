"""The memory an integration works on: :class:`kioko.Memory`, which a local :class:`kioko.MemoryLayer` and a
:class:`kioko.remote.client.RemoteMemory` both are, so every integration works on a local store and on a Kioko service
alike. The integrations call only add, get, update, delete, recall, memories and record_turn of it.
"""

from __future__ import annotations

import importlib
from typing import Any

from kioko.protocol import Memory
from kioko_core.errors import MissingExtraError

__all__ = ["Memory", "require"]


def require(module: str, extra: str) -> Any:
    """Import a framework's module, or say which extra brings it (a :class:`MissingExtraError`)."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingExtraError(f"{module} is not installed: pip install 'kioko[{extra}]' ({error})") from None
