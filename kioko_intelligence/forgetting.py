"""What deleting one memory takes with it besides the record: the traces Kioko made of it elsewhere.

Called (the layer's ``on_delete`` hook, see :mod:`.surface`) by :meth:`MemoryLayer.delete` once the record,
its neighbours' links to it and the entity triples it asserted (``source`` its id) are gone, so every
surface that deletes (the library, a router's ``memory.delete``, a manager's ``delete``, the CLI, the
service, MCP) erases the same things: its
words in its session's rolling summary and log (:func:`.summaries.forget_memory`), its uses in the
scope's heat record, and what this process holds about it in memory.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable

# the modules by their full names: `from . import ...` would go through the package, whose __init__
# registers the layer's hooks, which call this module
import kioko_intelligence.consolidation as consolidation
import kioko_intelligence.reflection as reflection
from kioko_core.kinds import deterministic_id
from kioko_core.layer.scoped import SESSIONS_AGENT
from kioko_core.linking import links
from kioko_core.privacy.secrets import redact
from kioko_core.store import Filter, Record, Scope
from kioko_intelligence.heat import forget_uses
from kioko_intelligence.maintenance import MAINTENANCE_USER, SESSION_EPISODE_KEY, MaintenanceScheduler
from kioko_intelligence.summaries import LOG_KIND, _change_log, _content, _salient, forget_memory

WORKING_KIND = "working"
"""A session's scratchpad slots (:class:`~kioko_core.kinds.WorkingMemory`)."""

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer


def erase_traces(memory: MemoryLayer, scope: Scope, deleted: Record, *, derived: bool = True) -> set[str]:
    """Erase the traces of ``deleted`` (already removed from ``scope``); the ids of every memory that went.

    ``derived`` False (housekeeping deletes, see ``MemoryLayer._purging_once``) keeps what was derived from
    the memory's content (summary points, triples): the id's traces still go. A scratchpad slot is never
    a source of a summary point, so deleting one rewrites no summary.
    """
    gone = {deleted.id}
    if derived:
        emptied, managed = (None, False) if deleted.kind == WORKING_KIND else forget_memory(memory, scope, deleted)
        if emptied is not None and memory._delete(scope, emptied.id) is not None:
            gone.add(emptied.id)  # a summary left with nothing to say goes as well
        # only a managed session's scratchpad holds what the router noted (read by a scan of its slots)
        for slot in _slots_quoting(memory, scope, deleted) if managed else []:
            if memory._delete(scope, slot.id) is not None:
                gone.add(slot.id)
        gone |= _rewrite_derived(memory, scope, deleted)
        _unquote(memory, scope, deleted)
    forget_uses(memory.bookkeeping, Scope(MAINTENANCE_USER, None), scope, gone)
    forget_held(memory, scope, gone)
    return gone


def _unquote(memory: MemoryLayer, scope: Scope, deleted: Record) -> None:
    """The memories in a marked conflict with ``deleted`` let go of it: the newer one's "(was: ...)" note quoted its
    text ("User's other client, Bexley Foods, ... (was: Client: Halvorsen Group, ...)"), and an older one it
    replaced is in force again. Found with one get: the ids both sides of a conflict keep (``conflicted_by``,
    ``conflicts_with``)."""
    newer = deleted.metadata.get("conflicted_by")
    older = deleted.metadata.get("conflicts_with")
    ids = ([newer] if isinstance(newer, str) and newer else []) + [
        i for i in (older if isinstance(older, list) else []) if isinstance(i, str) and i
    ]
    for record in memory.store.get(scope, list(dict.fromkeys(ids))) if ids else []:
        if record is None:
            continue
        if record.metadata.get("conflicted_by") == deleted.id:
            memory._update(record.id, scope, _set({"conflicted_by": ""}))
        olds = record.metadata.get("conflicts_with")
        if isinstance(olds, list) and deleted.id in olds:
            parts = str(record.metadata.get("was") or "").split("; ")
            was = "; ".join(p for p in parts if p.strip() and p.strip() not in deleted.content)
            left = [i for i in olds if i != deleted.id]
            memory._update(record.id, scope, _set({"conflicts_with": left, "was": was}))


def _set(metadata: dict[str, Any]) -> Callable[[Record], tuple[str | None, dict[str, Any] | None]]:
    return lambda _: (None, metadata)


def _rewrite_derived(memory: MemoryLayer, scope: Scope, deleted: Record) -> set[str]:
    """Rewrite without ``deleted`` the memories made from it, or delete those left with nothing; the ids deleted.

    Found with one get: the memories its links say were ``derived_from`` it (insights and month summaries,
    when the layer links), and the ids a derived memory it may have fed is keyed by (its month's summary and
    the themes of an episode, its session's episode), so they are found with linking off too.

    - a **month summary** drops it from ``folded`` and its label from the text; one left showing no episode goes;
    - a **theme insight** counts it out and quotes the newest episode left; one under
      :data:`~.reflection.MIN_EPISODES` episodes goes;
    - a **model's insight** goes when its words carry the memory (see :func:`_carrier`) or no evidence is
      left; else it only loses the id from its evidence;
    - the **session's episode** (end_session's wrap-up) drops the parts that carry the memory or quote it; an
      episode left with none goes.
    """
    wanted = [e["id"] for e in links.link_entries(deleted) if e.get("type") == "derived_from" and e.get("dir") == "in"]
    if deleted.kind == "episodic" and not deleted.metadata.get("session_episode"):
        wanted.append(consolidation.month_summary_id(scope, consolidation.month_of(deleted.created_at)))
        wanted += reflection.theme_ids(scope, deleted.content)
    if deleted.session_id and deleted.kind != WORKING_KIND:
        wanted.append(deterministic_id("episodic", scope, SESSION_EPISODE_KEY, deleted.session_id))
    wanted = [i for i in dict.fromkeys(wanted) if isinstance(i, str) and i != deleted.id]
    found = [r for r in memory.store.get(scope, wanted) if r is not None] if wanted else []
    gone: set[str] = set()
    carrier: list[Callable[[str], bool]] = []  # made once, when a model's text or an episode asks (a postings call)

    def carries(text: str) -> bool:
        if not carrier:
            carrier.append(_carrier(memory, scope, deleted, found))
        return carrier[0](text)

    for record in found:
        change = _without(record, deleted, carries, memory, scope)
        if change is None:
            continue
        content, metadata = change
        if content is None and metadata is None:
            if memory._delete(scope, record.id) is not None:
                gone.add(record.id)
            continue

        def rewrite(current: Record) -> Change:
            # read again inside the versioned write: a concurrent fold or reflection is rewritten, not lost
            again = _without(current, deleted, carries, memory, scope)
            return again if again is not None and again != (None, None) else (None, None)

        memory._update(record.id, scope, rewrite)
    return gone


Change = tuple[str | None, dict[str, Any] | None]
"""(content, metadata) to write; (None, None) to delete the record."""


def _without(
    record: Record,
    deleted: Record,
    carries: Callable[[str], bool],
    memory: MemoryLayer,
    scope: Scope,
) -> Change | None:
    """How ``record`` reads without ``deleted``: a change, (None, None) to delete it, None when untouched."""
    meta = record.metadata
    ids = [i for i in meta.get("folded", []) if isinstance(i, str)]
    evidence = [i for i in meta.get("evidence", []) if isinstance(i, str)]
    if record.kind == "summary" and isinstance(meta.get("month"), str) and deleted.id in ids:
        return _month_without(record, deleted, memory, scope)
    if meta.get("reflection") and isinstance(meta.get("theme"), str) and deleted.id in evidence:
        left = [i for i in evidence if i != deleted.id]
        count = int(meta.get("episodes", len(evidence)) or 0) - 1
        if count < reflection.MIN_EPISODES or not left:
            return None, None
        shown = str(meta.get("shown") or _theme_shown(record.content) or meta["theme"])
        latest = memory.store.get(scope, [left[-1]])[0]
        return reflection.theme_content(shown, count, latest), {"evidence": left, "episodes": count}
    if meta.get("reflection") and deleted.id in evidence:
        left = [i for i in evidence if i != deleted.id]
        return (None, None) if not left or carries(record.content) else (None, {"evidence": left})
    if meta.get("session_episode") and record.session_id == deleted.session_id:
        return _episode_without(record, deleted, carries)
    return None


def _month_without(summary: Record, deleted: Record, memory: MemoryLayer, scope: Scope) -> Change:
    """The month summary without the deleted episode: out of ``folded`` and ``episodes``, its label out of the
    text. When the text does not show the label as the episode reads now (it was edited after the fold), the
    text is written again from the episodes it shows that are still there."""
    meta = summary.metadata
    folded = [i for i in meta.get("folded", []) if isinstance(i, str) and i != deleted.id]
    shown = [i for i in meta.get("episodes", []) if isinstance(i, str) and i != deleted.id]
    body = summary.content.partition("): ")[2]
    body = body[:-1] if body.endswith(".") else body
    framed, lab = f"; {body}; ", f"; {redact(consolidation.month_label(deleted))}; "
    if lab in framed:
        body = framed.replace(lab, "; ", 1)[2:-2]
    elif deleted.id in meta.get("episodes", []):
        present = [r for r in memory.store.get(scope, shown) if r is not None] if shown else []
        body = "; ".join(redact(consolidation.month_label(r)) for r in present)
    if not folded or not body.strip(" ;"):
        return None, None  # no episode left to show: the summary has nothing to say
    return consolidation.month_text(str(meta["month"]), len(folded), body), {"folded": folded, "episodes": shown}


def _theme_shown(content: str) -> str:
    """The theme as a theme insight written before ``metadata.shown`` existed shows it."""
    head, found, _ = content.partition(" came up in ")
    return head.removeprefix("Recurring theme: ") if found else ""


def _episode_without(episode: Record, deleted: Record, carries: Callable[[str], bool]) -> Change | None:
    """The session's wrap-up without the parts (its task, a slot's ``key: value``) that quote or carry ``deleted``."""
    prefix = f"Session {deleted.session_id}: "
    if not episode.content.startswith(prefix):
        return None
    body = episode.content[len(prefix) :]
    parts = (body[:-1] if body.endswith(".") else body).split("; ")
    text = " ".join(deleted.content.split()).lower()

    def quoted(part: str) -> bool:
        value = " ".join(part.partition(": ")[2].split()).lower()
        return (len(value) >= 3 and value in text) or carries(part)

    kept = [part for part in parts if not quoted(part)]
    if kept == parts:
        return None
    return (prefix + "; ".join(kept) + ".", None) if kept else (None, None)


def _carrier(memory: MemoryLayer, scope: Scope, deleted: Record, holders: list[Record]) -> Callable[[str], bool]:
    """Whether a derived text carries the deleted memory: the rule of :func:`.summaries.forget_memory` (half of
    its salient words, or any word no other memory holds; what the ``holders``, made from it, hold does not count)."""
    words = _salient(deleted.content)
    df = memory.store.postings(scope, sorted(words), 0).df if words else {}
    only = {w for w in words if df.get(w, 0) - sum(w in h.terms for h in holders) <= 0}

    def carries(text: str) -> bool:
        shared = words & _salient(text)
        return bool(words) and (bool(shared & only) or 2 * len(shared) >= len(words))

    return carries


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


def served_note(layer: MemoryLayer) -> tuple[threading.Lock, OrderedDict[tuple[str, str | None, str], Any]]:
    """The layer's lock and note of what recall served per session (set by :func:`install`)."""
    held = vars(layer)
    return held["_served_lock"], held["_served"]


def forget_held(layer: MemoryLayer, scope: Scope, memory_ids: set[str] | None = None) -> None:
    """Drop what this process keeps in memory about a deleted memory (``memory_ids``) or, without ids, about
    the whole scope (``forget_user``; the user's own scope takes their agents' too): served notes, replies,
    uses not yet written."""

    def about(key: tuple[Any, ...]) -> bool:
        return key[0] == scope.user_id and (scope.agent_id is None or key[1] == scope.agent_id)

    lock, note = served_note(layer)
    with lock:
        for key in [k for k in note if about(k)]:
            served, context = note[key]
            shown = {r.id for r in served} | {m.record.id for m in getattr(context, "memories", [])}
            if memory_ids is None or shown & memory_ids:
                del note[key]
    if memory_ids is None:
        vars(layer)["_replies"].forget(about)
    scheduler = getattr(layer.intelligence, "scheduler", None)
    if isinstance(scheduler, MaintenanceScheduler):
        scheduler.forget_held(layer, scope, memory_ids)


def forget_subject(
    layer: MemoryLayer, scope: Scope, names: Callable[[str], bool], summaries: list[Record], *, dry_run: bool
) -> list[str]:
    """What ``forget_about`` takes besides memories: the points of session summaries that name the subject (a
    summary left with none, or a model's prose that still names it, is deleted), the turns waiting in the
    scope's session logs that name it, and the agent's last replies this process holds for the scope.
    Returns a line for each thing taken (``dry_run``: that would be)."""
    lines: list[str] = []
    for summary in summaries:
        points = [p for p in summary.metadata.get("points", []) if isinstance(p, str)]
        kept = [p for p in points if not names(p)]
        session = str(summary.session_id or summary.metadata.get("session_id") or "")
        if not kept or names(_content(session, " ".join(kept))):
            lines.append(f"the summary of session {session} (deleted: nothing left to say)")
            if not dry_run:
                layer.delete(summary.id, user_id=scope.user_id, agent_id=scope.agent_id)
            continue
        lines.append(f"{len(points) - len(kept)} point(s) of the summary of session {session}")
        if dry_run:
            continue

        def rewrite(
            current: Record, session: str = session, kept: list[str] = kept
        ) -> tuple[str | None, dict[str, Any] | None]:
            now_kept = [p for p in current.metadata.get("points", []) if isinstance(p, str) and not names(p)]
            body = " ".join(now_kept or kept)
            return _content(session, body), {"points": now_kept or kept, "summary": body, "by": "offline"}

        layer._update(summary.id, scope, rewrite)
    where = Scope(scope.user_id, SESSIONS_AGENT)
    logs = [r for r in layer.store.scan(where) if r.kind == LOG_KIND and r.metadata.get("agent_id") == scope.agent_id]
    for log in logs:
        waiting = [t for t in log.metadata.get("waiting", []) if isinstance(t, str)]
        naming = [t for t in waiting if names(t)]
        if not naming:
            continue
        session = str(log.metadata.get("session_id", ""))
        lines.append(f"{len(naming)} turn(s) waiting in the log of session {session}")
        if not dry_run:

            def drop_turns(state: dict[str, Any]) -> tuple[dict[str, Any], None]:
                state["waiting"] = [turn for turn in state["waiting"] if not names(turn)]
                return state, None

            _change_log(layer, scope, session, drop_turns)
    if not dry_run:

        def about(key: tuple[Any, ...]) -> bool:
            return key[0] == scope.user_id and (scope.agent_id is None or key[1] == scope.agent_id)

        vars(layer)["_replies"].forget(about)  # a reply may name the subject; it only helps credit feedback
    return lines


__all__ = ["erase_traces", "forget_held", "forget_subject", "served_note"]
