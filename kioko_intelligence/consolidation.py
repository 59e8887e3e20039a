"""Consolidation (every ``consolidate_every`` applied operations): expire, fold, merge, forget.

- **expire**: a memory whose ``metadata.expires_at`` (Unix seconds) has passed is deleted; a session log
  idle for :data:`IDLE_SESSION_DAYS` has its waiting turns folded into the session summary and goes.
- **fold**: episodes older than ``fold_after_days`` (30), grouped by calendar month, are summarised in one
  ``summary`` memory per month (keyed, updated in place when the month gains episodes); the summary lists
  every episode it folded (``metadata.folded``) and links ``derived_from`` its ten most important ones.
- **merge**: memories of a lasting kind (facts, preferences, knowledge, insights, lessons) with the same
  words are merged into the oldest with the layer's :meth:`~kioko_core.graph.facade.MemoryGraph.merge`, which
  moves their links. Episodes are never merged: the same words on another day are another event.
- **forget**: an episode that never mattered fades away: one the intelligence wrote and scored
  (``metadata.importance``; an episode added by hand or imported is never forgotten), older than
  ``forget_after_days`` (90), importance below :data:`FORGET_BELOW`, never pinned, credited or recalled (no use in the scope's heat record or its
  metadata), no link
  a person, feedback or a model made, and its importance halved every 30 days now under :data:`FADED`.
"""

from __future__ import annotations

import math
import re
import time
from collections import defaultdict
from collections.abc import Collection
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from kioko_core.errors import ConflictError, MemoryNotFound
from kioko_core.kinds import Episodes, Facts, Insights, Knowledge, Preferences, Strategies, Summaries, deterministic_id
from kioko_core.layer.scoped import SESSIONS_AGENT
from kioko_core.linking import links
from kioko_core.privacy.secrets import redact
from kioko_core.reading.analysis import label
from kioko_core.store import Filter, Record, Scope
from kioko_intelligence.summaries import LOG_KIND, fold, take_waiting

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

DAY = 86400.0
IDLE_SESSION_DAYS = 7
MERGED_KINDS = frozenset(manager.kind for manager in (Facts, Preferences, Knowledge, Insights, Strategies))
"""What someone knows or learned, where two memories saying the same are merged (each kind from its registry row)."""
FORGET_BELOW = 0.5
"""Only episodes less important than this can fade away."""
FADE_HALF_LIFE_DAYS = 30.0
FADED = 0.1
DEFAULT_IMPORTANCE = 0.45
"""An episode's importance when nothing scored it (the offline router's base for episodes): for ranking only;
an unscored episode (added by hand or imported) never fades away."""
USE_KEYS = ("pinned", "recalls", "recalled", "uses", "heat", "mentions", "successes", "failures", "last_used_at")
"""Metadata that shows a memory was used: any of them set keeps an episode from fading away."""
VOUCHING_AUTHORS = frozenset({"manual", "feedback", "llm"})
"""Links that show an episode mattered; the linker's and structural ones (a summary resting on it) do not."""
SHOWN_PER_SUMMARY = 10
_PUNCTUATION = re.compile(r"[^\w\s]")


def count(state: dict[str, Any], report: Any, every: int) -> bool:
    """Add the turn's applied operations; True (and the mark moved) when consolidation is due."""
    state["operations"] += len(getattr(report, "applied", []) or [])
    if every and state["operations"] - state["consolidated_at"] >= every:
        state["consolidated_at"] = state["operations"]
        return True
    return False


def consolidate(
    memory: MemoryLayer,
    scope: Scope,
    *,
    now: float | None = None,
    fold_after_days: float = 30.0,
    forget_after_days: float = 90.0,
    used: set[str] | frozenset[str] = frozenset(),
    records: list[Record] | None = None,
) -> dict[str, int]:
    """Run the four steps for one scope; how many memories each touched. ``used``: ids of memories a query
    or a turn used (the scope's heat record), which never fade away. ``records``: the records the steps
    may act on (:func:`candidates`: what changed since the last run and what time made due); default the
    whole scope."""
    now = time.time() if now is None else now
    # one scan for the four steps: each only acts on records it re-reads or deletes by id, and a record
    # a step removed is skipped by the next (a delete of what is gone is a no-op)
    records = list(memory.store.scan(scope)) if records is None else records
    # housekeeping, not forgetting (summaries and triples stay); the files are purged once, at the end
    with memory._purging_once(maintaining=True):
        result = {"expired": expire(memory, scope, now, records)}
        result["folded"] = fold_episodes(memory, scope, now - fold_after_days * DAY, records)
        result["merged"] = merge_duplicates(memory, scope, records)
        result["forgotten"] = forget_faded(memory, scope, now, now - forget_after_days * DAY, used, records)
    return result


FADE_SPAN_DAYS = FADE_HALF_LIFE_DAYS * math.log2(FORGET_BELOW / FADED)
"""The age by which every episode that can fade away (importance below FORGET_BELOW) has faded."""


def candidates(
    memory: MemoryLayer,
    scope: Scope,
    changed: Collection[str],
    *,
    since: float,
    now: float,
    expiring: Collection[str] = (),
    fold_after_days: float = 30.0,
    forget_after_days: float = 90.0,
) -> list[Record]:
    """The records a run at ``now`` acts on like a run over the whole scope, given a run over them at ``since``
    and the ids written into the scope after it (``changed``; nothing left the scope meanwhile):

    - the changed records, and ``expiring`` (memories known to carry ``expires_at``, due now);
    - the episodes that came of folding age since (created in ``[since, now)`` minus ``fold_after_days``),
      and with them every month summary (they say what is folded already);
    - the episodes that may have faded away since: older than ``forget_after_days`` now, and young enough
      then that age alone may have made them fade (:data:`FADE_SPAN_DAYS`);
    - every memory of a kind that is merged, of the kinds a changed record has (a new duplicate's twin).

    Not seen: an episode whose only use was an entry its user's heat record has dropped since (a whole
    run sees it)."""
    wanted = sorted(set(changed) | set(expiring))
    found = {r.id: r for r in memory.store.get(scope, wanted) if r is not None} if wanted else {}
    merged_kinds = {r.kind for r in found.values() if r.kind in MERGED_KINDS}
    folding = now - fold_after_days * DAY
    fading = now - forget_after_days * DAY
    reads = [
        Filter(kinds=frozenset({Episodes.kind}), created_after=since - fold_after_days * DAY, created_before=folding),
        Filter(
            kinds=frozenset({Episodes.kind}),
            created_after=since - max(forget_after_days, FADE_SPAN_DAYS) * DAY,
            created_before=fading,
        ),
    ]
    if merged_kinds:
        reads.append(Filter(kinds=frozenset(merged_kinds)))
    for wanted_filter in reads:
        for record in memory.store.scan(scope, wanted_filter):
            found.setdefault(record.id, record)
    if any(r.kind == Episodes.kind for r in found.values()):
        for record in memory.store.scan(scope, Filter(kinds=frozenset({Summaries.kind}))):
            found.setdefault(record.id, record)
    return list(found.values())


def expiry(record: Record) -> float | None:
    """When ``record`` expires (``metadata.expires_at``), or None."""
    ends = record.metadata.get("expires_at")
    return float(ends) if isinstance(ends, (int, float)) and not isinstance(ends, bool) else None


def expire(memory: MemoryLayer, scope: Scope, now: float, records: list[Record] | None = None) -> int:
    """Delete what has expired; fold and drop the logs of sessions idle for a week."""
    who: dict[str, Any] = {"user_id": scope.user_id, "agent_id": scope.agent_id}
    gone = 0
    for record in list(memory.store.scan(scope)) if records is None else records:
        ends = record.metadata.get("expires_at")
        if isinstance(ends, (int, float)) and not isinstance(ends, bool) and ends <= now:
            gone += 1 if memory.delete(record.id, **who) else 0
    where = Scope(scope.user_id, SESSIONS_AGENT)
    for log in list(memory.store.scan(where)):
        if (
            log.kind != LOG_KIND
            or log.metadata.get("agent_id") != scope.agent_id
            or now - log.updated_at < IDLE_SESSION_DAYS * DAY
        ):
            continue
        session_id = str(log.metadata.get("session_id") or "")
        waiting = take_waiting(memory, scope, session_id)
        if waiting:
            fold(memory, scope, session_id, waiting)
        current = memory.store.get(where, [log.id])[0]
        if current is not None and not current.metadata.get("waiting"):
            from kioko_core.store import Delete

            try:
                memory.bookkeeping.update_many([Delete(id=log.id, scope=where, expected_version=current.version)])
            except ConflictError:
                pass  # the session came back to life meanwhile: its log stays
    return gone


def fold_episodes(memory: MemoryLayer, scope: Scope, before: float, records: list[Record] | None = None) -> int:
    """Summarise the episodes older than ``before`` not folded yet, one summary per month; how many were folded."""
    records = (
        list(memory.store.scan(scope, Filter(kinds=frozenset({Episodes.kind, Summaries.kind}))))
        if records is None
        else records
    )
    episodes = [r for r in records if r.kind == Episodes.kind]
    summaries = [r for r in records if r.kind == Summaries.kind and r.metadata.get("month")]
    folded = {i for s in summaries for i in s.metadata.get("folded", []) if isinstance(i, str)}
    months: dict[str, list[Record]] = defaultdict(list)
    for episode in episodes:
        if episode.created_at < before and episode.id not in folded and not episode.metadata.get("session_episode"):
            months[month_of(episode.created_at)].append(episode)
    count = 0
    for month, new in sorted(months.items()):
        _write_month(memory, scope, month, new)
        count += len(new)
    return count


def month_of(created_at: float) -> str:
    """The calendar month (UTC, ``"2026-05"``) whose summary folds an episode made at ``created_at``."""
    return datetime.fromtimestamp(created_at, UTC).strftime("%Y-%m")


def month_summary_id(scope: Scope, month: str) -> str:
    """The id of the scope's summary of ``month``'s episodes (one per month, updated in place)."""
    return deterministic_id(Summaries.kind, scope, "episodes", month)


def month_content(month: str, total: int, shown: list[Record]) -> str:
    """A month summary's text: how many episodes it folded, and the labels of those it shows."""
    return month_text(month, total, "; ".join(month_label(r) for r in shown))


def month_label(episode: Record) -> str:
    """How a month summary shows one of its episodes."""
    return label(episode.content, 80)


def month_text(month: str, total: int, body: str) -> str:
    title = datetime.strptime(month, "%Y-%m").strftime("%B %Y")
    return redact(f"In {title} ({total} events): {body}.")


def _write_month(memory: MemoryLayer, scope: Scope, month: str, new: list[Record]) -> Record:
    who: dict[str, Any] = {"user_id": scope.user_id, "agent_id": scope.agent_id}
    memory_id = month_summary_id(scope, month)
    existing = memory.store.get(scope, [memory_id])[0]
    before = [i for i in (existing.metadata.get("folded", []) if existing else []) if isinstance(i, str)]
    present = [r for r in memory.store.get(scope, before) if r is not None] if before else []
    everything = {r.id: r for r in [*present, *new]}
    ranked = sorted(everything.values(), key=lambda r: (-_importance(r), r.created_at, r.id))[:SHOWN_PER_SUMMARY]
    shown = sorted(ranked, key=lambda r: (r.created_at, r.id))
    content = month_content(month, len(set(before) | {r.id for r in new}), shown)
    metadata = {
        "month": month,
        "folded": sorted(set(before) | {r.id for r in new}),
        "episodes": [r.id for r in shown],
        "consolidation": True,
    }
    if existing is None:
        try:
            return memory.add(
                content,
                memory_type=Summaries.kind,
                id=memory_id,
                created_at=max(r.created_at for r in new),
                metadata=metadata,
                **who,
            )
        except ConflictError:
            pass  # another process folded this month just now: ours updates it
    return memory.update(memory_id, content=content, metadata=metadata, **who)


def merge_duplicates(memory: MemoryLayer, scope: Scope, records: list[Record] | None = None) -> int:
    """Merge memories of a lasting kind that say the same words into the oldest; how many went."""
    groups: dict[tuple[str, str], list[Record]] = defaultdict(list)
    for record in memory.store.scan(scope, Filter(kinds=MERGED_KINDS)) if records is None else records:
        if record.kind not in MERGED_KINDS or record.metadata.get("superseded_by"):
            continue
        words = " ".join(_PUNCTUATION.sub(" ", record.content.lower()).split())
        if words:
            groups[(record.kind, words)].append(record)
    merged = 0
    for same in groups.values():
        if len(same) < 2:
            continue
        survivor, *duplicates = sorted(same, key=lambda r: (not r.metadata.get("pinned"), r.created_at, r.id))
        for duplicate in duplicates:
            try:
                memory.graph.merge(duplicate.id, survivor.id, user_id=scope.user_id, agent_id=scope.agent_id)
            except MemoryNotFound:
                continue  # another process merged (or someone deleted) it first
            merged += 1
    return merged


def forget_faded(
    memory: MemoryLayer,
    scope: Scope,
    now: float,
    before: float,
    used: set[str] | frozenset[str] = frozenset(),
    records: list[Record] | None = None,
) -> int:
    """Delete the episodes older than ``before`` that never mattered (none of ``used``) and have faded."""
    who: dict[str, Any] = {"user_id": scope.user_id, "agent_id": scope.agent_id}
    gone = 0
    found = memory.store.scan(scope, Filter(kinds=frozenset({Episodes.kind}))) if records is None else records
    for episode in [r for r in found if r.kind == Episodes.kind]:
        if episode.created_at >= before or episode.id in used or not is_faded(episode, now):
            continue
        gone += 1 if memory.delete(episode.id, **who) else 0
    return gone


def is_faded(record: Record, now: float) -> bool:
    """True for a memory that never mattered: low importance, never used, only the linker's links, faded."""
    meta = record.metadata
    if not _scored(record):
        return False  # written by hand (add(), an import), not judged by the router: not ours to let fade
    importance = _importance(record)
    if importance >= FORGET_BELOW or meta.get("session_episode") or any(meta.get(key) for key in USE_KEYS):
        return False
    if any(entry.get("by", "auto") in VOUCHING_AUTHORS for entry in links.link_entries(record)):
        return False  # a person, feedback or a model vouched for one of its links
    age_days = max(0.0, now - record.created_at) / DAY  # updated_at moves with every link written to it
    return bool(importance * 0.5 ** (age_days / FADE_HALF_LIFE_DAYS) < FADED)


def _scored(record: Record) -> bool:
    value = record.metadata.get("importance")
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _importance(record: Record) -> float:
    value = record.metadata.get("importance")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else DEFAULT_IMPORTANCE


__all__ = [
    "FADE_SPAN_DAYS",
    "candidates",
    "consolidate",
    "count",
    "expire",
    "expiry",
    "is_faded",
    "fold_episodes",
    "forget_faded",
    "merge_duplicates",
    "month_content",
    "month_label",
    "month_of",
    "month_summary_id",
    "month_text",
]
