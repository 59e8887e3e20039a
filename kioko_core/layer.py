"""MemoryLayer: what a developer holds. Bound to one Store; later issues grow it (add, recall, graph)."""

from __future__ import annotations

from typing import Any

from .store import Store


class MemoryLayer:
    """A memory layer over one store. Use :func:`kioko.connect` to build one from a URL."""

    def __init__(self, store: Store, *, auto_link: bool = False, **options: Any) -> None:
        self.store = store
        self.auto_link = auto_link
        self.options = options

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> MemoryLayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"MemoryLayer(store={self.store!r}, auto_link={self.auto_link})"
