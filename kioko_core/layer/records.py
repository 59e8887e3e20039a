"""The store as the memory layer sees it: each record's bookkeeping in :attr:`Record.system`, wherever it is kept.

A driver stores records; the layer also keeps, per memory, its links, entities and a few stamps
(:mod:`kioko_core.linking.links`). :class:`LayerStore` wraps the driver and is the one place that knows where those live:

- on every store, the caller's metadata and the bookkeeping travel apart above this module: a record read
  comes back with ``metadata`` exactly as the caller stored it and the bookkeeping in ``system``; a record
  written has ``system`` folded back into what the driver keeps (``metadata["_kioko"]``). Records written
  before (that key, or the layout before it) read the same way and move to the current layout when written.
- on a store with :class:`~kioko_core.store.link_store.LinkStore`, the links are not in the record at all: they are
  read with it (one ``links`` call per read) and a write of a record whose links alone changed (a neighbour of a
  new memory) writes only the entries that changed, at the version read, instead of the whole record.

Which changes are "links alone" is decided from what this module read: a record it hands out remembers (a
private attribute that ``model_copy`` keeps) its version, its link entries and the very objects of its other
fields. A copy whose fields are those same objects, with only ``system["links"]`` different, is written as link
changes; anything else is a record write (plus the link changes it brings). Records are values: the layer
changes them with ``model_copy``, never in place.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kioko_core.linking import links
from kioko_core.store import (
    Capabilities,
    Delete,
    Filter,
    Neighbor,
    Op,
    Postings,
    Record,
    Scope,
    Store,
    Upsert,
    record_copy,
)
from kioko_core.store.link_store import LinkChange, LinkedGet, LinkStore

Entry = dict[str, Any]


@dataclass(frozen=True)
class _Read:
    """What a record handed out was read (or written) as."""

    version: int
    entries: list[Entry]
    """Its link entries as stored (on a LinkStore: the entries the driver holds)."""
    rest: dict[str, Any]
    """Its bookkeeping but the links."""
    fields: tuple[Any, ...]
    """The objects of its other fields (compared by identity)."""
    in_record: bool
    """Its links are kept inside the record (written before the store kept them apart): a change rewrites it."""


def _read_of(record: Record) -> _Read | None:
    """What ``record`` was read as, if this module handed it out (its private ``_read``, read from pydantic's dict of
    private attributes directly: the attribute lookup was a visible part of writing a linked memory's neighbours)."""
    private = record.__pydantic_private__
    read = private.get("_read") if private is not None else None
    return read if isinstance(read, _Read) else None


def _keep_read(record: Record, read: _Read) -> None:
    """Set ``record``'s private ``_read`` (directly in pydantic's dict where it is there)."""
    private = record.__pydantic_private__
    if private is None:
        record._read = read
    else:
        private["_read"] = read


def _fields(record: Record) -> tuple[Any, ...]:
    return (
        record.metadata,
        record.content,
        record.terms,
        record.embedding,
        record.kind,
        record.session_id,
        record.created_at,
        record.updated_at,
        record.user_id,
        record.agent_id,
    )


def _same_fields(record: Record, read: _Read) -> bool:
    return all(a is b or (type(a) in (str, float, int) and a == b) for a, b in zip(_fields(record), read.fields))


class LayerStore:
    """A driver as the layer uses it (see the module). Everything it does not define is the driver's own."""

    def __init__(self, driver: Store, *, links_apart: bool = True) -> None:
        """``links_apart=False`` keeps links inside the records even on a LinkStore (benchmarks and tests compare
        the two layouts on one driver; a store written one way reads right the other way)."""
        self.driver = driver
        self._links: LinkStore | None = driver if links_apart and isinstance(driver, LinkStore) else None
        self._linked_get: LinkedGet | None = (
            driver if self._links is not None and isinstance(driver, LinkedGet) else None
        )
        self.capabilities: Capabilities = driver.capabilities
        self.dim: int = driver.dim
        self.legacy = True
        """Whether the store may hold memories in format 1's layout (bookkeeping at the top of the metadata),
        so that each record read is checked for it. The layer turns it off for a store marked with format 4,
        from which they were moved once (:mod:`kioko_core.store.format_mark`, :mod:`kioko_core.layer.migrate`)."""

    # whatever else a caller asks of the driver (generation, changes_since, purge, path ...)
    def __getattr__(self, name: str) -> Any:
        if name == "driver":  # not set yet (a copy being built): never recurse
            raise AttributeError(name)
        return getattr(self.driver, name)

    def __repr__(self) -> str:
        return repr(self.driver)

    @property
    def keeps_links_apart(self) -> bool:
        """Whether the driver keeps links entry by entry (:class:`~kioko_core.store.link_store.LinkStore`)."""
        return self._links is not None

    # -- reads

    def get(self, scope: Scope, ids: Sequence[str]) -> list[Record | None]:
        if self._linked_get is None:
            return self._lifted(scope, self.driver.get(scope, ids))
        records, held = self._linked_get.get_with_links(scope, ids)  # one round trip instead of two
        return [
            None if r is None else self._lift(r, held.get(r.id) if r.kind in links.LINKABLE_KINDS else None)
            for r in records
        ]

    def scan(self, scope: Scope, filter: Filter | None = None, batch: int = 500) -> Iterator[Record]:
        found = self.driver.scan(scope, filter, batch)
        if self._links is None:
            return (self._lift(record, None) for record in found)
        return self._scan_linked(scope, found, batch)

    def _scan_linked(self, scope: Scope, found: Iterator[Record], batch: int) -> Iterator[Record]:
        page: list[Record | None] = []
        for record in found:
            page.append(record)
            if len(page) >= batch:
                yield from self._lifted(scope, page)  # type: ignore[misc]
                page = []
        if page:
            yield from self._lifted(scope, page)  # type: ignore[misc]

    def postings(self, scope: Scope, terms: Sequence[str], limit: int) -> Postings:
        return self.driver.postings(scope, terms, limit)

    def knn(self, scope: Scope, vector: Any, k: int, filter: Filter | None = None) -> list[Neighbor]:
        return self.driver.knn(scope, vector, k, filter)

    def close(self) -> None:
        self.driver.close()

    def _lifted(self, scope: Scope, records: list[Record | None]) -> list[Record | None]:
        adjacency: dict[str, list[Entry]] = {}
        if self._links is not None:
            wanted = [r.id for r in records if r is not None and r.kind in links.LINKABLE_KINDS]
            if wanted:
                adjacency = dict(zip(wanted, self._links.links(scope, wanted)))
        return [None if r is None else self._lift(r, adjacency.get(r.id)) for r in records]

    def _lift(self, record: Record, entries: list[Entry] | None) -> Record:
        """The driver's record as the layer's: caller's metadata, bookkeeping in ``system``, what it was read as.

        Changed in place: a driver hands out a fresh object per read (the protocol's copies)."""
        if record.system is not None:
            return record  # a driver keeping what it was given (memory:// copies it): nothing of ours in it
        if links.BOOKKEEPING not in record.metadata and record.kind not in links.LINKABLE_KINDS:
            return record  # Kioko's own records, entity triples: no bookkeeping
        if self.legacy:
            own, kept = links.split_stored(record)
            system = dict(kept or {})
        else:  # the bookkeeping key or nothing: read here, without a check for the layout before it
            metadata = record.metadata
            stored = metadata.get(links.BOOKKEEPING)
            if isinstance(stored, dict):
                own, system = {k: v for k, v in metadata.items() if k != links.BOOKKEEPING}, dict(stored)
            else:
                own, system = metadata, {}
        in_record = "links" in system and self._links is not None
        if in_record or self._links is None:
            stored = system.get("links")
            held = list(stored) if isinstance(stored, list) else []
        else:
            held = entries or []
            if held:
                system["links"] = held
        record.metadata, record.system = own, system
        if self._links is None:
            return record  # links written inside the record: nothing to tell apart
        _keep_read(
            record,
            _Read(
                record.version,
                [dict(e) for e in held],  # copies: an entry changed in place is still a change
                {k: v for k, v in system.items() if k != "links"},
                _fields(record),
                in_record,
            ),
        )
        return record

    # -- writes

    def update_many(self, ops: Sequence[Op]) -> list[Record | None]:
        if self._links is None:
            return self._update_in_records(ops)
        return self._update_links_apart(ops)

    def _update_in_records(self, ops: Sequence[Op]) -> list[Record | None]:
        folded = [self._folded(op) if isinstance(op, Upsert) else op for op in ops] if _a_list(ops) else ops
        stored = self.driver.update_many(folded)
        return [None if record is None else self._lift(record, None) for record in stored]

    @staticmethod
    def _folded(op: Upsert, keep_links: bool = True) -> Upsert:
        """The upsert as a driver keeps it: the bookkeeping (without its links unless ``keep_links``) in the metadata."""
        record = op.record
        if not isinstance(record, Record) or record.system is None:
            return op  # written as the caller built it (an import's stored shape, a driver-level record)
        system = record.system if keep_links else {k: v for k, v in record.system.items() if k != "links"}
        # the caller's metadata and the bookkeeping under its key (stamped, even empty, on every linked kind)
        metadata = (
            record.metadata
            if not system and record.kind not in links.LINKABLE_KINDS
            else {**record.metadata, links.BOOKKEEPING: system}
        )
        return Upsert(
            record=record_copy(record, {"metadata": metadata, "system": None}),
            expected_version=op.expected_version,
        )

    def _update_links_apart(self, ops: Sequence[Op]) -> list[Record | None]:
        assert self._links is not None
        if not _a_list(ops):
            return self._links.update_with_links(ops, [])[0]  # the driver refuses it, as update_many would
        record_ops: list[Op] = []
        changes: list[LinkChange] = []
        # per op: ("op", index in record_ops, entries or None) or ("links", index in changes, entries)
        plan: list[tuple[str, int, list[Entry] | None, Upsert | None]] = []
        for op in ops:
            record = op.record if isinstance(op, Upsert) else None
            if record is None or not isinstance(record, Record) or record.system is None:
                if record is not None and isinstance(record, Record) and record.kind in links.LINKABLE_KINDS:
                    op = self._lifted_op(op)  # type: ignore[arg-type]
                    record = op.record
                else:
                    plan.append(("op", len(record_ops), None, None))
                    record_ops.append(op)
                    continue
            assert isinstance(op, Upsert) and record.system is not None
            stored_links = record.system.get("links")
            entries: list[Entry] = list(stored_links) if isinstance(stored_links, list) else []
            read = _read_of(record)
            rest = {k: v for k, v in record.system.items() if k != "links"}
            if (
                read is not None
                and not read.in_record
                and _same_fields(record, read)
                and rest == read.rest
                and (op.expected_version is None or op.expected_version == read.version)
            ):
                put, drop = _diff(read.entries, entries)
                plan.append(("links", len(changes), entries, op))
                changes.append(
                    LinkChange(_scope_of(record), record.id, put=put, drop=drop, expected_version=op.expected_version)
                )
                continue
            plan.append(("op", len(record_ops), entries, op))
            record_ops.append(self._folded(op, keep_links=False))
            if read is not None and not read.in_record:
                put, drop = _diff(read.entries, entries)
                if put or drop:
                    changes.append(LinkChange(_scope_of(record), record.id, put=put, drop=drop))
            elif entries or op.expected_version != 0:
                # written afresh (a new memory, a record built elsewhere, one whose links were in the record)
                changes.append(
                    LinkChange(_scope_of(record), record.id, put=tuple((e["id"], e) for e in entries), replace=True)
                )
        stored, versions = self._links.update_with_links(record_ops, changes)
        answer: list[Record | None] = []
        for where, index, kept, upsert in plan:
            if where == "op":
                written = stored[index]
                answer.append(None if written is None else self._lift(written, kept))
                continue
            assert upsert is not None and kept is not None
            version = versions[index]
            answer.append(None if version is None else self._relinked(upsert.record, kept, version))
        return answer

    def _lifted_op(self, op: Upsert) -> Upsert:
        """An upsert of a record built in the stored shape (``metadata["_kioko"]``): as the layer's."""
        return Upsert(record=links.upgraded(op.record), expected_version=op.expected_version)

    @staticmethod
    def _relinked(record: Record, entries: list[Entry], version: int) -> Record:
        """``record`` as stored after a change of its links alone: those links, the new version."""
        read = _read_of(record)
        assert read is not None
        system = {**read.rest, "links": entries} if entries else dict(read.rest)
        written = record_copy(record, {"system": system, "version": version})
        _keep_read(written, _Read(version, [dict(e) for e in entries], read.rest, read.fields, False))
        return written


def _scope_of(record: Record) -> Scope:
    """``record.scope``, built here (a write asks it of every record of its batch)."""
    return Scope(record.user_id, record.agent_id)


def _a_list(ops: Any) -> bool:
    return isinstance(ops, Sequence) and not isinstance(ops, (str, bytes, Upsert, Delete))


def _diff(old: list[Entry], new: list[Entry]) -> tuple[tuple[tuple[str, Entry], ...], tuple[str, ...]]:
    """The puts and drops that turn the entries ``old`` into ``new`` (order included) when a put moves an entry last.

    The entries ``new`` keeps unchanged, in their old order, stay; the longest run of them that ``new`` starts
    with stays in place, and everything after it in ``new`` is put again, in order.
    """
    now = {e["id"]: e for e in new}
    drop = tuple(dict.fromkeys(e["id"] for e in old if e["id"] not in now))
    kept = [e for e in old if now.get(e["id"]) == e]
    start = 0
    while start < len(kept) and start < len(new) and kept[start] == new[start]:
        start += 1
    return tuple((e["id"], e) for e in new[start:]), drop


__all__ = ["LayerStore"]
