"""Links between memories: the value object, its storage as adjacency lists, authors, decay, degree cap."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Iterable

# read through this module too (L.LinkConflict, L.LINKABLE_KINDS ...): re-exported by name
from kioko_core.errors import LinkConflict as LinkConflict
from kioko_core.kinds.registry import KIND_NOUNS as KIND_NOUNS
from kioko_core.kinds.registry import LINKABLE_KINDS as LINKABLE_KINDS
from kioko_core.kinds.registry import noun as noun
from kioko_core.store import Record, Scope, record_copy

# Who made a link, strongest first: a weaker author never replaces a stronger one's link.
AUTHORS = ("structure", "manual", "feedback", "llm", "auto")
FADING_AUTHORS = frozenset({"feedback", "llm", "auto"})
CAPPED_AUTHORS = frozenset({"auto", "llm"})

# What a link type reads as in a sentence (source <reads as> target).
READS_AS = {
    "serves": "serves",
    "advances": "advances",
    "concerns": "concerns",
    "informs": "informs",
    "refines": "refines",
    "learned_from": "was learned from",
    "applies_to": "applies to",
    "resolves": "resolves",
    "follows": "follows",
    "part_of": "is part of",
    "supersedes": "supersedes",
    "derived_from": "is derived from",
    "related_to": "is related to",
}
LINK_TYPES = frozenset(READS_AS)

SECONDS_PER_DAY = 86400.0
SHARED_USER = "@shared"
"""The shared knowledge base: readable by every user; links to it live only on the user's memory."""


def author_rank(by: str) -> int:
    """0 for the strongest author (structure) ... 4 for the weakest (auto)."""
    return AUTHORS.index(by) if by in AUTHORS else len(AUTHORS)


def faded_weight(weight: float, by: str, seen: float, now: float | None = None, half_life_days: float = 180.0) -> float:
    """w * 0.5 ^ (days since seen / half life) for auto, llm and feedback links; others never fade."""
    if by not in FADING_AUTHORS:
        return weight
    days = max(0.0, ((now if now is not None else time.time()) - seen) / SECONDS_PER_DAY)
    return weight * float(0.5 ** (days / half_life_days))


def record_label(record: Record) -> str:
    from kioko_core.reading.analysis import label

    title = record.metadata.get("title")
    return label(title if isinstance(title, str) and title else record.content)


@dataclass
class MemoryLink:
    """A typed, weighted link read as a sentence: ``source <type> target``."""

    source: str
    target: str
    type: str = "related_to"
    weight: float = 1.0
    why: str = ""
    by: str = "auto"
    at: float = field(default_factory=time.time)
    seen: float = field(default_factory=time.time)
    source_label: str = ""
    source_type: str = ""
    target_label: str = ""
    target_type: str = ""
    taken_from: str | None = None
    """For a link a decision took over from the decision it replaced: that decision's id."""
    shared: bool = False
    """The other end is in the shared knowledge base (@shared); the link is stored on one side only."""

    def line(self) -> str:
        """``decision "use pgvector ..." serves goal "Ship the Kioko memory layer ..."``."""
        return (
            f'{self.source_type} "{self.source_label}" {READS_AS.get(self.type, self.type)} '
            f'{self.target_type} "{self.target_label}"'
        )

    def faded(self, now: float | None = None, half_life_days: float = 180.0) -> float:
        return faded_weight(self.weight, self.by, self.seen, now, half_life_days)

    def entry(self, owner: str) -> dict[str, Any]:
        """The adjacency entry stored on ``owner`` (the source or the target)."""
        outgoing = owner == self.source
        data: dict[str, Any] = {
            "id": self.target if outgoing else self.source,
            "type": self.type,
            "dir": "out" if outgoing else "in",
            "w": round(float(self.weight), 4),
            "by": self.by,
            "why": self.why,
            "at": self.at,
            "seen": self.seen,
        }
        if self.taken_from:
            data["from"] = self.taken_from
        if self.shared:
            data["shared"] = True
        return data

    @classmethod
    def from_entry(cls, owner: Record, entry: dict[str, Any], other: Record | None = None) -> MemoryLink:
        outgoing = entry.get("dir") == "out"
        source, target = (owner, other) if outgoing else (other, owner)
        source_id = owner.id if outgoing else entry["id"]
        target_id = entry["id"] if outgoing else owner.id
        return cls(
            source=source_id,
            target=target_id,
            type=entry.get("type", "related_to"),
            weight=float(entry.get("w", 0.0)),
            why=entry.get("why", ""),
            by=entry.get("by", "auto"),
            at=float(entry.get("at", 0.0)),
            seen=float(entry.get("seen", entry.get("at", 0.0))),
            source_label=record_label(source) if source else "",
            source_type=noun(source.kind) if source else "",
            target_label=record_label(target) if target else "",
            target_type=noun(target.kind) if target else "",
            taken_from=entry.get("from"),
            shared=bool(entry.get("shared")),
        )


# --------------------------------------------------------------------------- the layer's bookkeeping

BOOKKEEPING = "_kioko"
"""Where a store without a place of its own for it keeps the layer's bookkeeping: ``metadata["_kioko"]`` holds
a memory's ``links`` (its adjacency list), ``entities`` (what the analysis found it is about), ``linked_at``
(when the linker last saw it) and ``unlinked`` (ids a person unlinked). The layer reads it into
:attr:`Record.system <kioko_core.store.Record.system>` (:class:`~kioko_core.layer.records.LayerStore`), so a record
the layer returns carries the caller's metadata exactly as stored and the bookkeeping beside it. A caller cannot
write this key: :meth:`MemoryLayer.add` refuses it and :meth:`MemoryLayer.update` ignores it."""


LEGACY_KEYS = ("links", "entities", "linked_at", "unlinked")
"""Where the layer kept its bookkeeping before :data:`BOOKKEEPING`: at the top of the metadata, beside the
caller's keys. ``links`` held the adjacency entries *after* whatever the caller kept under that name (a
caller's URLs stayed first); ``entities``, ``linked_at`` and ``unlinked`` were the layer's alone (it
overwrote a caller's ``entities``)."""


def legacy_split(record: Record) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(the caller's metadata, the bookkeeping) of a memory stored before :data:`BOOKKEEPING`; None otherwise.

    Such a memory is one of a linked kind with no bookkeeping key: since the move, every write of a linked
    kind by the layer stores the key (an update stamps it first), so a caller's own ``"links"`` on a newer
    memory is never read as links. A store marked with format 4 holds no such memory (they were moved once,
    :mod:`kioko_core.layer.migrate`), and the layer reads its records without this check. Of the legacy ``links`` list only
    well-formed adjacency entries move; anything else in it (a caller's URLs) stays the caller's.
    """
    metadata = record.metadata
    if BOOKKEEPING in metadata or record.kind not in LINKABLE_KINDS:
        return None
    own = dict(metadata)
    kept: dict[str, Any] = {}
    listed = metadata.get("links")
    if isinstance(listed, list):
        entries = [e for e in listed if is_link_entry(e)]
        if entries:
            kept["links"] = entries
            others = [e for e in listed if not is_link_entry(e)]
            if others:
                own["links"] = others
            else:
                del own["links"]
    # the layer always stored these with these types; a value of another type is the caller's, left alone
    for key in ("entities", "unlinked"):
        value = metadata.get(key)
        if isinstance(value, list):
            kept[key] = [v for v in value if isinstance(v, str)]
            del own[key]
    linked = metadata.get("linked_at")
    if isinstance(linked, (int, float)) and not isinstance(linked, bool):
        kept["linked_at"] = float(linked)
        del own["linked_at"]
    return own, kept


def split_stored(record: Record) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(the caller's metadata, the bookkeeping or None) of ``record``: its own :attr:`~Record.system` when the layer
    read or built it, else what a store keeps (``metadata["_kioko"]``, or the layout before that key)."""
    if record.system is not None:
        return record.metadata, record.system
    metadata = record.metadata
    stored = metadata.get(BOOKKEEPING)
    if isinstance(stored, dict):
        return user_metadata(metadata), stored
    if record.kind in LINKABLE_KINDS:
        split = legacy_split(record)
        if split is not None:
            return split
        return metadata, {}
    return metadata, None


def upgraded(record: Record) -> Record:
    """``record`` with the caller's metadata in ``metadata`` and the bookkeeping in ``system`` (the same record
    when it has them so already). Its version is kept, so a write of it still expects the version read."""
    if record.system is not None:
        return record
    own, system = split_stored(record)
    if system is None:
        return record
    return record.model_copy(update={"metadata": own, "system": system})


def stored_metadata(record: Record) -> dict[str, Any]:
    """The metadata a store without a place for the bookkeeping keeps: the caller's, and the bookkeeping under
    :data:`BOOKKEEPING` (stamped, even empty, on every linked kind, so a caller's own ``"links"`` is never read
    as the layout before it)."""
    own, system = split_stored(record)
    if system is None or (not system and record.kind not in LINKABLE_KINDS):
        return own
    return {**own, BOOKKEEPING: system}


def bookkeeping(record: Record) -> dict[str, Any]:
    """The layer's bookkeeping of ``record`` (read only; empty when it has none; the stored layouts read too)."""
    system = record.system
    if system is not None:
        return system
    return split_stored(record)[1] or {}


def with_bookkeeping(record: Record, **fields: Any) -> Record:
    """A copy of ``record`` with bookkeeping ``fields`` set (``links=``, ``entities=``, ``linked_at=`` ...)."""
    own, system = split_stored(record)
    return record_copy(record, {"metadata": own, "system": {**(system or {}), **fields}})


def user_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    """``metadata`` without the layer's bookkeeping key: exactly what the caller stored."""
    if BOOKKEEPING not in metadata:
        return metadata
    return {key: value for key, value in metadata.items() if key != BOOKKEEPING}


def entities_of(record: Record) -> list[str]:
    """The entity keys the analysis found in the memory (``[]`` before it was analysed)."""
    found = bookkeeping(record).get("entities")
    return list(found) if isinstance(found, list) else []


def linked_at(record: Record) -> float | None:
    """When the linker last linked the memory; None if it never did (``connect()`` picks those up)."""
    value = bookkeeping(record).get("linked_at")
    return float(value) if isinstance(value, (int, float)) else None


# --------------------------------------------------------------------------- adjacency lists


def is_link_entry(entry: Any) -> bool:
    """A well-formed adjacency entry: the other memory's id, a direction and a type."""
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("id"), str)
        and entry.get("dir") in ("in", "out")
        and isinstance(entry.get("type"), str)
    )


def link_entries(record: Record) -> list[dict[str, Any]]:
    """The memory's adjacency entries (one per linked memory), from the layer's bookkeeping only."""
    return entries_in(bookkeeping(record))


def entries_in(system: dict[str, Any]) -> list[dict[str, Any]]:
    """The well-formed adjacency entries of a memory's bookkeeping ``system`` (its :attr:`Record.system`)."""
    entries = system.get("links")
    if not isinstance(entries, list):
        return []
    # is_link_entry, inline: a linked write reads a dozen memories' entries several times each
    return [
        e
        for e in entries
        if isinstance(e, dict)
        and isinstance(e.get("id"), str)
        and e.get("dir") in ("in", "out")
        and isinstance(e.get("type"), str)
    ]


def entry_for(record: Record, other_id: str) -> dict[str, Any] | None:
    """The memory's well-formed entry for ``other_id`` (the first, as in :func:`link_entries`), or None."""
    entries = bookkeeping(record).get("links")
    if not isinstance(entries, list):
        return None
    # the id compared first, the rest of the form checked only for that entry: a linked write asks this of every
    # memory it links, at up to twelve entries each
    for entry in entries:
        if (
            isinstance(entry, dict)
            and entry.get("id") == other_id
            and isinstance(entry.get("id"), str)
            and entry.get("dir") in ("in", "out")
            and isinstance(entry.get("type"), str)
        ):
            return entry
    return None


def set_entries(record: Record, entries: Iterable[dict[str, Any]]) -> Record:
    """A copy of ``record`` whose link entries are ``entries``."""
    return with_bookkeeping(record, links=list(entries))


def put_link(record: Record, link: MemoryLink) -> Record:
    """``record`` with ``link`` stored (replacing any entry for the same other memory)."""
    other = link.target if record.id == link.source else link.source
    kept = [e for e in link_entries(record) if e["id"] != other]
    return set_entries(record, kept + [link.entry(record.id)])


def drop_link(record: Record, other_id: str) -> Record:
    return set_entries(record, [e for e in link_entries(record) if e["id"] != other_id])


def _unlinked(record: Record) -> list[str]:
    kept = bookkeeping(record).get("unlinked")
    return [i for i in kept if isinstance(i, str)] if isinstance(kept, list) else []


def remember_unlinked(record: Record, other_id: str) -> Record:
    """``record`` noting that a person removed its link to ``other_id`` (the algorithm will not redo it)."""
    return with_bookkeeping(record, unlinked=[i for i in _unlinked(record) if i != other_id] + [other_id])


def forget_unlinked(record: Record, other_id: str) -> Record:
    kept = _unlinked(record)
    if other_id not in kept:
        return record
    return with_bookkeeping(record, unlinked=[i for i in kept if i != other_id])


def was_unlinked(record: Record, other_id: str) -> bool:
    return other_id in _unlinked(record)


def capped_entries(record: Record) -> list[dict[str, Any]]:
    return [e for e in link_entries(record) if e.get("by") in CAPPED_AUTHORS]


def weakest_capped(
    record: Record, max_degree: int, now: float, half_life_days: float, protect: str | None = None
) -> list[str]:
    """Ids whose automatic links must go so ``record`` keeps at most ``max_degree`` of them, weakest first."""
    held = bookkeeping(record).get("links")
    if not isinstance(held, list) or len(held) <= max_degree:
        return []  # no more entries than the cap, so no more well-formed automatic ones (asked of every neighbour)
    return weakest_of(entries_in({"links": held}), max_degree, now, half_life_days, protect)


def weakest_of(
    all_entries: list[dict[str, Any]], max_degree: int, now: float, half_life_days: float, protect: str | None = None
) -> list[str]:
    """:func:`weakest_capped` of a memory whose adjacency entries are ``all_entries``."""
    entries = [e for e in all_entries if e.get("by") in CAPPED_AUTHORS]
    excess = len(entries) - max_degree
    if excess <= 0:
        return []
    ranked = sorted(
        (e for e in entries if e["id"] != protect),
        key=lambda e: (
            faded_weight(float(e.get("w", 0)), e.get("by", "auto"), float(e.get("seen", 0)), now, half_life_days),
            e["id"],
        ),
    )
    return [e["id"] for e in ranked[:excess]]


def entry_scope(owner: Record, entry: dict[str, Any]) -> Scope:
    """The scope the other end of ``entry`` lives in: the shared knowledge base, or the owner's own."""
    return Scope(SHARED_USER, None) if entry.get("shared") else owner.scope


def fetch_others(store: Any, owner: Record, entries: list[dict[str, Any]]) -> list[Record | None]:
    """The records at the other end of ``entries``, in order: one get per scope involved."""
    by_scope: dict[Any, list[str]] = {}
    for entry in entries:
        by_scope.setdefault(entry_scope(owner, entry), []).append(entry["id"])
    found: dict[tuple[Any, str], Record | None] = {}
    for scope, ids in by_scope.items():
        for memory_id, record in zip(ids, store.get(scope, ids)):
            found[(scope, memory_id)] = record
    return [found[(entry_scope(owner, e), e["id"])] for e in entries]
