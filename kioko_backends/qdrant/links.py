"""Links kept apart on Qdrant (:class:`~kioko_core.store.link_store.LinkStore`), shared by the server/local and edge drivers.

Qdrant has no multi-statement transaction, so a batch is all-or-nothing the way ``update_many`` already is:
read every touched point in one request, decide everything in Python (:func:`plan_linked`, which raises before
anything is written), then write the outcome in one update. Link entries ride in that same write:

- one payload-only point per memory with links, its *adjacency point*: id ``uuid5(LINKS_NAMESPACE, owner)``,
  payload ``links_of`` (the owner's id), ``link_scope`` (its scope key), ``links_version`` and ``entries`` (a
  JSON string of ``[[other, entry], ...]`` in the order last put: a string, because Qdrant parses JSON floats
  on a best-effort basis and the contract keeps entries exactly). It has no ``scope`` field, so no record
  query (every one filters on ``scope``) ever sees it.
- a link-only change writes that one small point and nothing of the record: the record's version moves through
  ``links_version`` (a record's version is the larger of its payload's ``version`` and its adjacency point's
  ``links_version``), so the record's point (vector, content, metadata) is never rewritten for a link. Read per
  point by id, which local mode answers without a pass over the collection (a filtered scroll would test every
  point there).
- a deleted record's adjacency point is deleted in the same update.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from kioko_backends.qdrant.payload import ID_NAMESPACE, metadata_json, payload, point_id, record, scope_key
from kioko_core.store import ConflictError, Delete, Op, Record, Scope, Upsert, plan_batch
from kioko_core.store.driver import keeps_text
from kioko_core.store.link_store import LinkChange, apply_change

LINKS_NAMESPACE = uuid.uuid5(ID_NAMESPACE, "kioko link adjacency")
"""Namespace of the adjacency points' ids (apart from the records', so an id can never be both)."""

LINKS_OF = "links_of"
LINK_SCOPE = "link_scope"
LINKS_VERSION = "links_version"
ENTRIES = "entries"

VERSION_FIELDS = ["id", "user_id", "agent_id", "version", LINKS_OF, LINK_SCOPE, LINKS_VERSION, ENTRIES]
"""What a write reads of the touched points (a record's scope and version, an adjacency point whole)."""


@keeps_text  # memory ids: a forgotten one must not stay in the process
@lru_cache(maxsize=65536)
def links_point_id(owner: str) -> str:
    """The point id of ``owner``'s adjacency point (cached, as :func:`~kioko_backends.qdrant.payload.point_id`)."""
    return str(uuid.uuid5(LINKS_NAMESPACE, owner))


def is_adjacency(stored: Mapping[str, Any]) -> bool:
    return LINKS_OF in stored


def entries_of(stored: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """An adjacency point's entries as an insertion-ordered dict (other id -> entry); empty for None."""
    if stored is None:
        return {}
    return {other: entry for other, entry in json.loads(stored[ENTRIES])}


def adjacency_payload(
    owner: str, scope: Scope, entries: Mapping[str, Mapping[str, Any]], version: int
) -> dict[str, Any]:
    return {
        LINKS_OF: owner,
        LINK_SCOPE: scope_key(scope),
        LINKS_VERSION: version,
        ENTRIES: json.dumps(
            [[other, entry] for other, entry in entries.items()], ensure_ascii=False, separators=(",", ":")
        ),
    }


def read_points(scope: Scope, payloads: Iterable[Mapping[str, Any]]) -> dict[str, Record]:
    """The records of ``scope`` among points read by record and adjacency ids, each at its version (the larger
    of the record's and its adjacency point's)."""
    found = list(payloads)
    bumped = {p[LINKS_OF]: p[LINKS_VERSION] for p in found if is_adjacency(p)}
    records: dict[str, Record] = {}
    for stored in found:
        if is_adjacency(stored):
            continue
        kept = record(dict(stored))
        if kept.scope != scope:
            continue
        if bumped.get(kept.id, 0) > kept.version:
            kept = kept.model_copy(update={"version": bumped[kept.id]})
        records[kept.id] = kept
    return records


def answer_links(scope: Scope, ids: Sequence[Any], payloads: Iterable[Mapping[str, Any]]) -> list[list[dict[str, Any]]]:
    """Per asked id, its entries in ``scope`` (``[]`` for none), from the adjacency points read."""
    key = scope_key(scope)
    held = {p[LINKS_OF]: p for p in payloads if is_adjacency(p) and p[LINK_SCOPE] == key}
    return [list(entries_of(held.get(i)).values()) if isinstance(i, str) else [] for i in ids]


@dataclass
class WriteCount:
    """Write starts and ends through this process, on a store no other process can write (RecentAdjacency)."""

    value: int = 0


class RecentAdjacency:
    """The adjacency points a thread's last record read fetched, so that the ``links`` call the layer makes right
    after it (for the same memories) needs no second request.

    Only for a store that one process alone writes (local mode, edge: the directory is locked): ``writes`` is
    that process's count of write starts and ends, taken before the read; an answer is given only while it has
    not moved, was even (no write half done) and for ids the read asked, so it is what a fresh read would return.
    """

    def __init__(self) -> None:
        self._held = threading.local()

    def keep(self, writes: int, scope: Scope, ids: Sequence[str], payloads: list[Mapping[str, Any]]) -> None:
        self._held.last = (writes, scope, frozenset(ids), [p for p in payloads if is_adjacency(p)])

    def answer(
        self, writes: int, scope: Scope, ids: Sequence[Any], wanted: Sequence[str]
    ) -> list[list[dict[str, Any]]] | None:
        last = getattr(self._held, "last", None)
        if last is None or last[0] != writes or writes % 2 or last[1] != scope or not last[2].issuperset(wanted):
            return None  # written since, read while a write was half done, or other memories
        return answer_links(scope, ids, last[3])


def ids_to_read(ops: Sequence[Op], changes: Sequence[LinkChange]) -> list[str]:
    """The point ids a write reads: every touched record and owner, and their adjacency points."""
    touched = list(
        dict.fromkeys([op.id if isinstance(op, Delete) else op.record.id for op in ops] + [c.owner for c in changes])
    )
    return [point_id(i) for i in touched] + [links_point_id(i) for i in touched]


@dataclass
class LinkedBatch:
    """What one write does, decided before anything is written."""

    planned: list[tuple[Op, Record | None, bool]]
    """``plan_batch``'s answer: per op, the record stored (None for a delete) and whether the id existed."""
    records: dict[str, tuple[Record | None, dict[str, Any] | None]] = field(default_factory=dict)
    """Per record id the batch writes: (record, its payload) to upsert, or (None, None) to delete."""
    scopes_before: dict[str, Scope] = field(default_factory=dict)
    """The scope each touched record had before the call (a server moves a point between shard keys)."""
    adjacency: dict[str, tuple[Scope, dict[str, Any] | None]] = field(default_factory=dict)
    """Per owner: (its scope, the adjacency payload to upsert, or None to delete the adjacency point)."""
    versions: list[int | None] = field(default_factory=list)
    """Per change, the owner's version after the call (None: skipped, the owner is missing)."""
    answers: list[Record | None] = field(default_factory=list)
    """What ``update_many`` answers: per op the record it stored, as a read gives it back (None for a delete)."""


def _key(op: Op) -> str:
    return op.id if isinstance(op, Delete) else op.record.id


def plan_linked(ops: Sequence[Op], changes: Sequence[LinkChange], found: Iterable[Mapping[str, Any]]) -> LinkedBatch:
    """Plan ``ops`` then ``changes`` against the points read (:func:`ids_to_read`); raise before any write.

    ``ops`` and ``changes`` are validated already. Refusals: an op's (``plan_batch``), then a change whose
    ``expected_version`` is not its owner's version once the ops are applied.
    """
    adjacency: dict[str, Mapping[str, Any]] = {}
    current: dict[str, tuple[Scope, int]] = {}
    points = list(found)
    for point in points:
        if is_adjacency(point):
            adjacency[point[LINKS_OF]] = point
    for point in points:
        if not is_adjacency(point):
            bumped = adjacency[point["id"]][LINKS_VERSION] if point["id"] in adjacency else 0
            current[point["id"]] = (Scope(point["user_id"], point["agent_id"]), max(point["version"], bumped))
    planned = plan_batch(ops, current)
    batch = LinkedBatch(planned, scopes_before={i: s for i, (s, _) in current.items()})
    after: dict[str, Record | None] = {}
    deleted: dict[str, Scope] = {}
    for op, stored, exists in planned:
        key = _key(op)
        if stored is not None or exists:  # a delete of another scope's id leaves it as it is
            after[key] = stored
        if isinstance(op, Delete) and exists:
            deleted[key] = op.scope

    def owner(change: LinkChange) -> int | None:
        """The owner's version once the ops are applied, None when it is missing from the change's scope."""
        if change.owner in after:
            written = after[change.owner]
            return written.version if written is not None and written.scope == change.scope else None
        held = current.get(change.owner)
        return held[1] if held is not None and held[0] == change.scope else None

    for change in changes:
        version = owner(change)
        if change.expected_version is not None and version != change.expected_version:
            held = "missing" if version is None else f"at version {version}"
            raise ConflictError(f"record {change.owner!r} is {held}, expected {change.expected_version}")

    for _, stored, _ in planned:
        if stored is not None:
            batch.records[stored.id] = (stored, None)
    for key, stored in after.items():
        if stored is None:
            batch.records[key] = (None, None)
    for op, stored, _ in planned:
        if stored is None or not isinstance(op, Upsert):
            batch.answers.append(None)
            continue
        written = payload(stored, metadata_json(op.record))
        if batch.records[stored.id][0] is stored:  # the last op of an id decides what is kept
            batch.records[stored.id] = (stored, written)
        batch.answers.append(record(written))

    edited: dict[str, tuple[Scope, dict[str, dict[str, Any]], int]] = {}
    for change in changes:
        version = owner(change)
        if version is None:
            batch.versions.append(None)
            continue
        if change.owner not in edited:
            start = {} if change.owner in deleted else entries_of(adjacency.get(change.owner))
            if change.owner not in after:
                version += 1  # a link-only owner: one step per call
            edited[change.owner] = (change.scope, start, version)
        apply_change(edited[change.owner][1], change)
        batch.versions.append(edited[change.owner][2])
    for gone, scope in deleted.items():
        if gone in adjacency:
            batch.adjacency[gone] = (scope, None)
    for key, (scope, entries, version) in edited.items():
        batch.adjacency[key] = (scope, adjacency_payload(key, scope, entries, version))
    return batch


_WRITE_BYTES = 16_000_000
"""Rough JSON size at which a write to a server is split: half its default 32 MB request limit."""


def write_chunks(points: list[Any], dim: int) -> list[list[Any]]:
    """The points in as few requests as a server takes: one, unless they are so large that it would refuse the
    request's size (local mode takes any size in one)."""
    if not points:
        return []
    chunks: list[list[Any]] = [[]]
    size = 0
    for point in points:
        # a vector component is ~20 characters of JSON, plus its base64 copy in the payload
        held = point.payload
        text = len(held.get("content", "")) + len(held.get("metadata", "")) + len(held.get(ENTRIES, ""))
        estimate = 512 + (26 * dim if point.vector else 0) + text * 2
        if chunks[-1] and size + estimate > _WRITE_BYTES:
            chunks.append([])
            size = 0
        chunks[-1].append(point)
        size += estimate
    return chunks
