"""What ``postings`` needs of a term's holders on a Qdrant edge shard, kept in the process: id and time per point.

A posting list is read by an ordered query over the ``terms`` payload index. With payloads, the engine reads each
holder's payload from its storage: recall asks for every holder of a term (thousands at 100,000 memories), and
those reads were nearly all of a first question's time (0.26 s at the median, ``benchmarks/user_scale.py``). The
query without payloads costs a tenth of that, but answers point ids, which are uuid5 hashes of the record ids.

:class:`Holders` maps a point id back to its record's id and exact ``created_at`` (what postings orders by). It
is exact because one process alone writes an edge directory (the shard's log is locked) and every write passes
through the driver: a record written is entered as written, a record deleted leaves the map (a forgotten
memory's id does not stay in the process). A point the map does not know (written before this process opened the
directory, or dropped by the bound) is read once, with only those two fields.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterable
from typing import Any

from kioko_backends.qdrant.payload import point_id
from kioko_core.store import Record

MAX_HOLDERS = 250_000
"""Points the map keeps (about 300 bytes each); past it, it starts again empty and refills from the reads."""

_CHUNK = 4096
"""Points per payload read of unknown holders."""

Holder = tuple[float, str]
"""(created_at, record id) of one point."""


class Holders:
    """Point id -> (created_at, record id) of the records of one shard, as this process wrote or read them."""

    def __init__(self, bound: int = MAX_HOLDERS) -> None:
        self.bound = bound
        self._known: dict[uuid.UUID, Holder] = {}
        self._lock = threading.Lock()
        self.read = 0
        """Holders read from the shard's payloads (not known from a write or an earlier read)."""

    def __len__(self) -> int:
        return len(self._known)

    def wrote(self, records: Iterable[tuple[str, Record | None]]) -> None:
        """A committed write: ``(record id, record)`` per record it stored, or ``(record id, None)`` per one it
        deleted."""
        with self._lock:
            for key, stored in records:
                point = uuid.UUID(point_id(key))
                if stored is None:
                    self._known.pop(point, None)
                else:
                    self._known[point] = (stored.created_at, stored.id)
            self._trim()

    def clear(self) -> None:
        """Forget every point (after a write that failed part way: what it applied is not known)."""
        with self._lock:
            self._known.clear()

    def resolve(self, shard: Any, points: Iterable[uuid.UUID]) -> dict[uuid.UUID, Holder]:
        """``points`` (ids a query answered) as (created_at, record id); a point no longer stored is left out."""
        found: dict[uuid.UUID, Holder] = {}
        missing: list[uuid.UUID] = []
        with self._lock:
            known = self._known
            for point in points:
                holder = known.get(point)
                if holder is not None:
                    found[point] = holder
                elif point not in found:
                    missing.append(point)
        missing = list(dict.fromkeys(missing))
        read: dict[uuid.UUID, Holder] = {}
        for start in range(0, len(missing), _CHUNK):
            for stored in shard.retrieve(missing[start : start + _CHUNK], ["id", "timestamps"], False):
                payload = stored.payload
                read[stored.id] = (json.loads(payload["timestamps"])[0], payload["id"])
        if read:
            with self._lock:
                self.read += len(read)
                for point, holder in read.items():
                    self._known.setdefault(point, holder)  # a write meanwhile entered the newer one
                self._trim()
            found.update(read)
        return found

    def _trim(self) -> None:
        if len(self._known) > self.bound:
            self._known.clear()
