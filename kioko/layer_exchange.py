"""The export format as the core's :class:`~kioko_core.layer.hooks.Exchange`, so a local layer exports and imports
as a service does: ``layer.export_lines(user_id)`` / ``layer.import_lines(lines)`` are the calls RemoteMemory
and AsyncRemoteMemory make over ``GET /v1/export`` and ``POST /v1/import``.

The format and its checks are :mod:`kioko.api.exchange` (the service's routes and ``kioko export`` /
``kioko import`` use it too), loaded on the first call. Importing this module registers it; ``kioko``
does when it builds a layer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from kioko_core.layer.hooks import register_exchange


class LayerExchange:
    """Kioko's JSON-lines export over a layer's store (it holds nothing)."""

    def export_lines(self, layer: Any, user_id: str, agent_ids: Iterable[str]) -> Iterator[str]:
        """The user's memories as JSON lines (``kioko export``'s format), one per memory."""
        from kioko.api.exchange import export_lines

        return export_lines(layer, user_id, agent_ids)

    def import_lines(self, layer: Any, lines: Iterable[str | bytes], *, allowed: Any = None) -> dict[str, int]:
        """Restore JSON lines written by :meth:`export_lines`; ``{"records", "written", "unchanged"}`` counts."""
        from kioko.api.exchange import import_lines

        return import_lines(layer, lines, allowed=allowed)


register_exchange(LayerExchange())
