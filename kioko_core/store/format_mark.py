"""The store's mark: which format of Kioko's layout a store holds, and which embedder wrote its vectors.

The mark is one record the layer keeps in a reserved scope (:data:`MARK_SCOPE`, user ``"@kioko"``), so it
needs nothing of a driver but what every driver does already: store a record and give it back. It is read
once when a layer is built (:func:`check_store`) and written there when missing:

- a store with no mark (new, or written before marks existed), or marked with an older format, is upgraded
  once: the layer's ``upgrade`` moves what format 1 left at the top of memories' metadata under the
  bookkeeping key (:mod:`kioko_core.layer.migrate`), and the store is marked with :data:`FORMAT_VERSION` and
  the embedder opening it. A driver that cannot list its scopes cannot be walked: its store is marked
  :data:`UNMIGRATED` (its records are then read in every earlier layout, as before format 4);
- a mark with a format newer than :data:`FORMAT_VERSION` (a newer Kioko wrote it) is refused with
  :class:`FormatTooNewError` before anything is read the wrong way;
- a mark naming another embedder, or another vector length, than the layer's is refused with
  :class:`EmbedderMismatchError`, which names both and the ``kioko reembed`` command that moves the store.

A driver that changes its own physical layout may say so with a ``layout_version`` class attribute; the mark
keeps the driver's layout beside the format, and a driver older than the layout a store was written with is
refused the same way (docs/drivers-optional.md).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Callable

from kioko_core.errors import ConflictError, KiokoError
from kioko_core.store import Record, Scope, Upsert

MARK_SCOPE = Scope("@kioko", None)
"""Where the mark (and a re-embedding's cursor) is kept: a reserved user no caller may name."""
MARK_ID = "kioko-format"
MARK_KIND = "store_mark"

FORMAT_VERSION = 4
"""The format of the layout this code writes."""
FORMATS = {
    1: "bookkeeping (links, entities, linked_at) at the top of a memory's metadata",
    2: "bookkeeping under metadata['_kioko'], links inside each record",
    3: "links kept entry by entry where the driver is a LinkStore; the store marked with its format and embedder",
    4: "format 3 with no memory left in format 1's layout (moved once, when the store was marked 4)",
}
"""Every format a store may hold, oldest first. Formats 1 and 2 were never marked. A store below format 4 may
hold format 1's layout, and its records are read in every layout (:func:`kioko_core.linking.links.split_stored`);
a store of format 4 holds only the bookkeeping key, and its records are read by it alone."""
UNMIGRATED = 3
"""The format a store is marked with when its upgrade to :data:`FORMAT_VERSION` could not walk it."""


class FormatTooNewError(KiokoError):
    """The store was written by a newer Kioko (a format or driver layout this code does not know): nothing was
    read from it. Upgrade Kioko to open it."""


class EmbedderMismatchError(KiokoError):
    """The store's vectors were made by another embedder (name or vector length) than the one opening it.

    ``stored`` and ``given`` are ``(name, dim)``. Open the store with the embedder that wrote it, or move the
    store to the new one with ``kioko reembed``.
    """

    def __init__(self, stored: tuple[str, int], given: tuple[str, int], url: str | None = None) -> None:
        self.stored, self.given = stored, given
        where = url or "URL"
        super().__init__(
            f"this store's vectors were made by the {stored[0]!r} embedder ({stored[1]} numbers) but it is being "
            f"opened with {given[0]!r} ({given[1]} numbers): mixing them would make recall miss. Open it with "
            f"embedder={stored[0]!r}, or move the store to the new embedder with "
            f"`kioko reembed --store {where} --embedder {given[0]}`"
        )


@dataclass(frozen=True)
class StoreMark:
    """What the mark says."""

    format: int
    embedder: str
    dim: int
    kioko: str = ""
    """Who wrote the mark, when a caller says (information only)."""
    driver_layout: int | None = None
    reembed: dict[str, Any] | None = None
    """A re-embedding under way: ``{"embedder": name, "dim": n, "done": [scopes], "started_at": t}``."""

    def as_metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {"format": self.format, "embedder": self.embedder, "dim": self.dim}
        meta["kioko"] = self.kioko
        if self.driver_layout is not None:
            meta["driver_layout"] = self.driver_layout
        if self.reembed is not None:
            meta["reembed"] = self.reembed
        return meta

    @classmethod
    def from_record(cls, record: Record) -> StoreMark:
        meta = record.metadata
        layout = meta.get("driver_layout")
        return cls(
            format=int(meta.get("format", 0)),
            embedder=str(meta.get("embedder", "")),
            dim=int(meta.get("dim", 0)),
            kioko=str(meta.get("kioko", "")),
            driver_layout=int(layout) if isinstance(layout, int) else None,
            reembed=meta.get("reembed") if isinstance(meta.get("reembed"), dict) else None,
        )


def embedder_name(embedder: Any) -> str:
    """The name a mark records for an embedder: ``"offline"``, ``"semantic"``, its ``name`` attribute, or its
    class's dotted path."""
    named = getattr(embedder, "name", None)
    if isinstance(named, str) and named:
        return named
    kind = type(embedder)
    if kind.__name__ == "OfflineEmbedder" and kind.__module__ == "kioko_core.embedding.embedders":
        return "offline"
    if kind.__name__ == "MiniLMEmbedder" and kind.__module__ == "kioko_core.embedding.semantic":
        return "semantic"
    return f"{kind.__module__}.{kind.__qualname__}"


def _same_name(a: str, b: str) -> bool:
    aliases = {"minilm": "semantic"}
    return aliases.get(a.lower(), a.lower()) == aliases.get(b.lower(), b.lower())


def _driver_layout(store: Any) -> int | None:
    driver = getattr(store, "driver", store)
    layout = getattr(type(driver), "layout_version", None)
    return layout if isinstance(layout, int) and not isinstance(layout, bool) else None


def read_mark(store: Any) -> tuple[StoreMark | None, int]:
    """The store's mark (None when unmarked) and its record's version (0 when there is none)."""
    found = store.get(MARK_SCOPE, [MARK_ID])[0]
    if found is None:
        return None, 0
    return StoreMark.from_record(found), found.version


def check_format(mark: StoreMark, store: Any) -> None:
    """Refuse a mark this code cannot read: a newer format, or a newer layout of this driver."""
    if mark.format > FORMAT_VERSION:
        raise FormatTooNewError(
            f"this store holds Kioko's format {mark.format} (a newer Kioko wrote it); this Kioko "
            f"reads formats up to {FORMAT_VERSION}: upgrade Kioko (pip install -U kioko) to open it. Nothing was read."
        )
    mine = _driver_layout(store)
    if mark.driver_layout is not None and mark.driver_layout > (mine or 0):
        driver = type(getattr(store, "driver", store)).__name__
        raise FormatTooNewError(
            f"this store was written with layout {mark.driver_layout} of its driver; this {driver} knows layouts "
            f"up to {mine or 0}: upgrade Kioko or the driver's package to open it. Nothing was read."
        )


def write_mark(store: Any, mark: StoreMark, expected_version: int) -> None:
    """Write ``mark`` if the stored one is still at ``expected_version`` (0: none yet)."""
    record = Record(
        id=MARK_ID,
        user_id=MARK_SCOPE.user_id,
        agent_id=MARK_SCOPE.agent_id,
        kind=MARK_KIND,
        content="",
        metadata=mark.as_metadata(),
        created_at=time.time(),
    )
    store.update_many([Upsert(record=record, expected_version=expected_version)])


def check_store(
    store: Any, embedder: Any, *, write: bool = True, upgrade: Callable[[], bool] | None = None
) -> StoreMark:
    """Read the store's mark and check it against this code and ``embedder``; mark an unmarked store.

    ``upgrade`` moves a store below :data:`FORMAT_VERSION` to it (True when done, False when it cannot walk
    the store); it runs before the mark is written, so an upgrade cut short runs again at the next open.
    ``write=False`` (``kioko doctor``) checks without writing: an unmarked store is answered with the mark it
    would be given. Raises :class:`FormatTooNewError` or :class:`EmbedderMismatchError`.
    """
    name, dim = embedder_name(embedder), int(embedder.dim)
    for _attempt in range(3):  # another process may mark the store between our read and write
        mark, version = read_mark(store)
        if mark is not None:
            check_format(mark, store)
            if not _same_name(mark.embedder, name) or mark.dim != dim:
                raise EmbedderMismatchError((mark.embedder, mark.dim), (name, dim))
            if mark.format == FORMAT_VERSION and mark.driver_layout == _driver_layout(store):
                return mark
            # an older marked format (or a driver's older layout) reads as it is: the mark moves up
        kept = mark.reembed if mark is not None else None
        fresh = StoreMark(FORMAT_VERSION, name, dim, "", _driver_layout(store), kept)
        if not write:
            return fresh
        if mark is None or mark.format < FORMAT_VERSION:
            moved = upgrade is not None and upgrade()
            if not moved:
                fresh = replace(fresh, format=max(mark.format if mark is not None else 0, UNMIGRATED))
                if mark is not None and mark.format == fresh.format and mark.driver_layout == fresh.driver_layout:
                    return mark  # nothing moved and nothing to note: no write at every open
        try:
            write_mark(store, fresh, version)
        except ConflictError:
            continue
        return fresh
    raise ConflictError("the store's mark kept changing while it was being written; open the store again")


__all__ = [
    "FORMATS",
    "FORMAT_VERSION",
    "MARK_ID",
    "MARK_KIND",
    "MARK_SCOPE",
    "EmbedderMismatchError",
    "FormatTooNewError",
    "StoreMark",
    "UNMIGRATED",
    "check_format",
    "check_store",
    "embedder_name",
    "read_mark",
    "write_mark",
]
