"""The one-time move of format 1's layout: bookkeeping at the top of a memory's metadata goes under its key.

Before the bookkeeping key (``metadata["_kioko"]``, :data:`~kioko_core.linking.links.BOOKKEEPING`), the layer
kept a memory's links, entities, ``linked_at`` and ``unlinked`` beside the caller's keys. Rather than checking
every record read for that layout, a store is walked once when a layer opens it below format 4
(:func:`~kioko_core.store.format_mark.check_store`): every memory of a linked kind without the key is rewritten
with it (:func:`~kioko_core.linking.links.legacy_split` says what is the layer's and what the caller's), at the
version read; its links stay where they were (inside the record, as format 2 kept them), and nothing else of it
changes. The walk needs a driver that lists its scopes (``scopes()``); one that cannot is left unwalked and read
in every layout, as before.
"""

from __future__ import annotations

from typing import Any

from kioko_core.errors import ConflictError
from kioko_core.layer.reembed import listed_scopes
from kioko_core.linking import links
from kioko_core.store import Filter, Op, Record, Scope, Upsert

BATCH = 200
"""Records rewritten per write."""


def move_legacy_layouts(store: Any) -> bool:
    """Move every memory of ``store`` (a driver, or a layer's store over one) stored in format 1's layout under the
    bookkeeping key; False, with nothing changed, when the driver cannot list its scopes."""
    driver = getattr(store, "driver", store)
    scopes = listed_scopes(driver)
    if scopes is None:
        return False
    for scope in scopes:
        for attempt in range(3):  # another writer may change a record between the scan and the write
            try:
                _move_scope(driver, scope)
                break
            except ConflictError:
                if attempt == 2:
                    raise
    return True


def _move_scope(driver: Any, scope: Scope) -> None:
    linked = Filter(kinds=frozenset(links.LINKABLE_KINDS))
    ops: list[Op] = []
    for record in driver.scan(scope, linked):
        if record.system is not None or links.BOOKKEEPING in record.metadata:
            continue
        ops.append(Upsert(record=_moved(record), expected_version=record.version))
        if len(ops) >= BATCH:
            driver.update_many(ops)
            ops = []
    if ops:
        driver.update_many(ops)


def _moved(record: Record) -> Record:
    split = links.legacy_split(record)
    own, kept = split if split is not None else (record.metadata, {})
    return record.model_copy(update={"metadata": {**own, links.BOOKKEEPING: kept}})


__all__ = ["move_legacy_layouts"]
