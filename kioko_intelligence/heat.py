"""Heat: how often and how lately a user needed a memory, and the automatic pins it earns.

A use is a query retrieving a memory on its own merit (a memory shown only because it is pinned, an open
goal or brought in by a link is not used) or a managed turn re-mentioning it (an update, progress, a
verification, an outcome). Each scope keeps one heat record in the maintenance scope, beside its
counters, so heat survives restarts and is shared by every process on the store; the memories
themselves are not rewritten on a read.

    heat = uses * 0.5 ^ (days since last use / 28) + 0.5 ^ (days since last use / 7)

(the MemoryOS heat score: visits that halve every 28 days without use, plus recency with a 7-day
half-life). :func:`pin_hot` pins memories at or above the threshold (5), keeps at most ``max_pinned``
(5) automatic pins per scope - the coldest give way - and unpins automatic pins that cooled below 3.
Manual pins are never touched.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from kioko_core.errors import ConflictError
from kioko_core.kinds import deterministic_id
from kioko_core.privacy.secrets import get_logger
from kioko_core.recall.hybrid import pinned_memories
from kioko_core.store import Delete, Record, Scope, Upsert
from kioko_intelligence.pins import set_pinned

if TYPE_CHECKING:
    from kioko_core.layer.bookkeeping import Bookkeeping
    from kioko_core.layer.memory_layer import MemoryLayer

log = get_logger("kioko.intelligence")

HEAT_KIND = "heat"
USE_HALF_LIFE_DAYS = 28.0
RECENCY_HALF_LIFE_DAYS = 7.0
UNPIN_BELOW = 3.0
MAX_TRACKED = 256
"""Memories whose uses a scope's heat record keeps; beyond that the coldest are forgotten (they are far
below any pin)."""
RETRIES = 8
SECONDS_PER_DAY = 86400.0
AUTO = "auto"
"""``metadata.pinned_by`` of a pin the scheduler made (a manual pin says ``manual``)."""
PINS_READ = 200
"""Pinned memories read to find the automatic ones among the manual ones."""


def heat_of(entry: Any, now: float) -> float:
    """The heat of one tracked memory (``[uses faded to its last use, last use]``) at ``now``; 0 if unreadable."""
    try:
        uses, last = float(entry[0]), float(entry[1])
    except (TypeError, ValueError, IndexError, KeyError):
        return 0.0
    if not (math.isfinite(uses) and math.isfinite(last)):
        return 0.0
    days = max(0.0, (now - last) / SECONDS_PER_DAY)
    return float(uses * 0.5 ** (days / USE_HALF_LIFE_DAYS) + 0.5 ** (days / RECENCY_HALF_LIFE_DAYS))


def heat_record_id(scope: Scope) -> str:
    return deterministic_id(HEAT_KIND, scope, "heat")


def read_heat(store: Any, where: Scope, scope: Scope) -> dict[str, Any]:
    """The scope's tracked uses: memory id -> [uses faded to the last use, last use]."""
    found = store.get(where, [heat_record_id(scope)])[0]
    uses = found.metadata.get("uses") if found is not None else None
    return dict(uses) if isinstance(uses, dict) else {}


def heats(store: Any, where: Scope, scope: Scope, now: float) -> dict[str, float]:
    """Memory id -> heat now, for every memory the scope's heat record tracks."""
    return {memory_id: heat_of(entry, now) for memory_id, entry in read_heat(store, where, scope).items()}


def note_uses(store: Bookkeeping, where: Scope, scope: Scope, used: Iterable[tuple[str, float]]) -> bool:
    """Count each ``(memory id, when)`` as one use, in one versioned write (a concurrent one is read again).

    A use older than the memory's last counted one (another process wrote a later one first) adds what
    it would weigh now instead of moving the last use back.
    """
    events = sorted(((i, float(t)) for i, t in used if isinstance(i, str) and i), key=lambda e: e[1])
    if not events:
        return False
    now = max(t for _, t in events)
    record_id = heat_record_id(scope)
    for _ in range(RETRIES):
        current = store.get(where, [record_id])[0]
        stored = current.metadata.get("uses") if current is not None else None
        uses: dict[str, Any] = dict(stored) if isinstance(stored, dict) else {}
        for memory_id, when in events:
            uses[memory_id] = _count_use(uses.get(memory_id), when)
        if len(uses) > MAX_TRACKED:
            tracked = uses
            hottest = sorted(tracked, key=lambda i: (-heat_of(tracked[i], now), i))[:MAX_TRACKED]
            uses = {i: tracked[i] for i in hottest}
        record = Record(
            id=record_id,
            user_id=where.user_id,
            agent_id=where.agent_id,
            kind=HEAT_KIND,
            content=f"memory heat of {scope.user_id}",
            metadata={"uses": uses, "user_id": scope.user_id, "agent_id": scope.agent_id},
            created_at=current.created_at if current is not None else now,
            updated_at=now,
        )
        try:
            store.update_many([Upsert(record=record, expected_version=current.version if current else 0)])
        except ConflictError:
            continue  # another recall counted at the same time: read again
        return True
    raise ConflictError(f"the heat of {scope.user_id!r} kept changing under this write")


def _count_use(entry: Any, when: float) -> list[float]:
    """``entry`` ([uses faded to the last use, last use]) with one more use at ``when``."""
    try:
        uses, last = float(entry[0]), float(entry[1])
    except (TypeError, ValueError, IndexError, KeyError):
        return [1.0, when]
    if not (math.isfinite(uses) and math.isfinite(last)):
        return [1.0, when]
    if when >= last:
        days = (when - last) / SECONDS_PER_DAY
        return [round(uses * 0.5 ** (days / USE_HALF_LIFE_DAYS) + 1.0, 6), when]
    days = (last - when) / SECONDS_PER_DAY
    return [round(uses + 0.5 ** (days / USE_HALF_LIFE_DAYS), 6), last]


def forget_uses(store: Bookkeeping, where: Scope, scope: Scope, memory_ids: Iterable[str]) -> bool:
    """Take deleted memories out of the scope's heat record (``delete``): no trace of their ids stays; True
    when the record held one of them."""
    gone = set(memory_ids)
    record_id = heat_record_id(scope)
    for _ in range(RETRIES):
        current = store.get(where, [record_id])[0]
        stored = current.metadata.get("uses") if current is not None else None
        if current is None or not isinstance(stored, dict) or not gone & stored.keys():
            return False
        kept = {i: entry for i, entry in stored.items() if i not in gone}
        changed = current.model_copy(update={"metadata": {**current.metadata, "uses": kept}})
        try:
            store.update_many([Upsert(record=changed, expected_version=current.version)])
        except ConflictError:
            continue
        return True
    raise ConflictError(f"the heat of {scope.user_id!r} kept changing under this write")


def forget_heat(store: Bookkeeping, where: Scope, scope: Scope) -> None:
    """Delete the scope's heat record (``forget_user``)."""
    if store.get(where, [heat_record_id(scope)])[0] is not None:
        store.update_many([Delete(id=heat_record_id(scope), scope=where)])


def pin_hot(
    memory: MemoryLayer,
    where: Scope,
    scope: Scope,
    *,
    threshold: float,
    max_pinned: int,
    now: float,
    unpin_below: float = UNPIN_BELOW,
    limit: int | None = None,
) -> dict[str, Any]:
    """Pin the hottest memories at or above ``threshold`` (at most ``max_pinned`` automatic pins, the coldest
    give way) and unpin automatic pins below ``unpin_below``; returns ``{"pinned": [...], "unpinned": [...]}``.

    ``limit``: make at most that many changes, unpins first (so the automatic pins never exceed
    ``max_pinned``); ``"more"`` then says whether changes were left. Called until none is left, the pins
    are those one call without a limit makes (each call ranks the heat afresh)."""
    heat = heats(memory.store, where, scope, now)
    pinned = pinned_memories(memory, scope, PINS_READ)
    automatic = {r.id for r in pinned if r.metadata.get("pinned_by") == AUTO}
    manual = {r.id for r in pinned} - automatic
    candidates = [i for i, h in heat.items() if h >= threshold and i not in manual and i not in automatic]
    # only memories that may be shown can be pinned (not superseded, still there, of a recallable kind)
    contenders = _pinnable(memory, scope, candidates)
    staying = [i for i in automatic if heat.get(i, 0.0) >= unpin_below]
    ranked = sorted(set(staying) | set(contenders), key=lambda i: (-heat.get(i, 0.0), i))
    keep = set(ranked[:max_pinned])
    unpin = sorted(automatic - keep, key=lambda i: (heat.get(i, 0.0), i))
    pin = [i for i in ranked if i in keep and i not in automatic]
    who: dict[str, Any] = {"user_id": scope.user_id, "agent_id": scope.agent_id}
    done: dict[str, Any] = {"pinned": [], "unpinned": []}
    changes = [(memory_id, False) for memory_id in unpin] + [(memory_id, True) for memory_id in pin]
    for memory_id, pinning in changes[:limit]:
        if pinning and _pin_automatic(memory, memory_id, who):
            done["pinned"].append(memory_id)
        elif not pinning and _unpin_automatic(memory, memory_id, who):
            done["unpinned"].append(memory_id)
    if limit is not None:
        done["more"] = len(changes) > limit
    return done


def _pinnable(memory: MemoryLayer, scope: Scope, memory_ids: list[str]) -> list[str]:
    """Those of ``memory_ids`` that may be pinned, in their order: one read for all of them (one each cost a
    pin step ~35 reads)."""
    from kioko_core.kinds.registry import LINKABLE_KINDS

    found = memory.store.get(scope, memory_ids) if memory_ids else []
    return [
        memory_id
        for memory_id, record in zip(memory_ids, found)
        if record is not None
        and record.kind in LINKABLE_KINDS
        and not record.metadata.get("superseded_by")
        and record.metadata.get("pinned_by") != "manual"  # pinned or unpinned by hand: a person decided
    ]


def _pin_automatic(memory: MemoryLayer, memory_id: str, who: dict[str, Any]) -> bool:
    """Pin unless someone pinned it meanwhile (a manual pin stays manual); False if it is gone."""
    try:
        current = memory.get(memory_id, **who)
        if current.metadata.get("pinned") is True:
            return False
        set_pinned(memory, memory_id, True, by=AUTO, **who)
    except Exception as error:  # deleted meanwhile: nothing to pin
        log.info("automatic pin of %s skipped: %s", memory_id, error)
        return False
    return True


def _unpin_automatic(memory: MemoryLayer, memory_id: str, who: dict[str, Any]) -> bool:
    """Unpin an automatic pin (one a person re-pinned by hand meanwhile stays)."""
    try:
        current = memory.get(memory_id, **who)
        if current.metadata.get("pinned") is not True or current.metadata.get("pinned_by") != AUTO:
            return False
        set_pinned(memory, memory_id, False, **who)
    except Exception as error:
        log.info("automatic unpin of %s skipped: %s", memory_id, error)
        return False
    return True


Clock = Callable[[], float]

__all__ = [
    "AUTO",
    "HEAT_KIND",
    "MAX_TRACKED",
    "RECENCY_HALF_LIFE_DAYS",
    "UNPIN_BELOW",
    "USE_HALF_LIFE_DAYS",
    "forget_heat",
    "heat_of",
    "heats",
    "note_uses",
    "pin_hot",
    "read_heat",
]
