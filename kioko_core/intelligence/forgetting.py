"""What deleting one memory takes with it besides the record: the traces Kioko made of it elsewhere.

Called by :meth:`MemoryLayer.delete` once the record and its neighbours' links to it are gone, so every
surface that deletes (the library, a router's ``memory.delete``, a manager's ``delete``, the CLI, the
service, MCP) erases the same things: the entity triples the memory asserted (``source`` its id), its
words in its session's rolling summary and log (:func:`.summaries.forget_memory`), its uses in the
scope's heat record, and what this process holds about it in memory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store import Filter, Record, Scope
from . import summaries
from .heat import forget_uses
from .maintenance import MAINTENANCE_USER

WORKING_KIND = "working"
"""A session's scratchpad slots (:class:`~kioko_core.kinds.WorkingMemory`)."""

if TYPE_CHECKING:
    from ..layer import MemoryLayer


def erase_traces(memory: MemoryLayer, scope: Scope, deleted: Record, *, derived: bool = True) -> set[str]:
    """Erase the traces of ``deleted`` (already removed from ``scope``); the ids of every memory that went.

    ``derived`` False (housekeeping deletes, see ``MemoryLayer._purging_once``) keeps what was derived from
    the memory's content (summary points, triples): the id's traces still go. A scratchpad slot is never
    a source of a summary point, so deleting one rewrites no summary.
    """
    gone = {deleted.id}
    if derived:
        memory.entities.forget_source(deleted.id, user_id=scope.user_id)
        emptied, managed = (
            (None, False) if deleted.kind == WORKING_KIND else summaries.forget_memory(memory, scope, deleted)
        )
        if emptied is not None and memory._delete(scope, emptied.id) is not None:
            gone.add(emptied.id)  # a summary left with nothing to say goes as well
        # only a managed session's scratchpad holds what the router noted (read by a scan of its slots)
        for slot in _slots_quoting(memory, scope, deleted) if managed else []:
            if memory._delete(scope, slot.id) is not None:
                gone.add(slot.id)
    forget_uses(memory.store, Scope(MAINTENANCE_USER, None), scope, gone)
    memory._forget_held(scope, gone)
    return gone


def _slots_quoting(memory: MemoryLayer, scope: Scope, deleted: Record) -> list[Record]:
    """The scratchpad slots of the deleted memory's session whose value its text holds: what the router
    noted from the same words (a ticket number, a name), which would otherwise outlive the memory. One scan
    of the session's slots (a handful), asked only for a session with managed turns."""
    if not deleted.session_id or deleted.kind == WORKING_KIND:
        return []
    text = " ".join(deleted.content.split()).lower()
    slots = memory.store.scan(scope, Filter(kinds=frozenset({WORKING_KIND}), session_id=deleted.session_id))
    return [
        slot
        for slot in slots
        if len(value := " ".join(str(slot.metadata.get("value", "")).split()).lower()) >= 3 and value in text
    ]


__all__ = ["erase_traces"]
