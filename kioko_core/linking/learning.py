"""Learning from "that worked" (spec section 7): feedback links and Hebbian strengthening."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kioko_core.linking import links
from kioko_core.recall.hybrid import Context, problem_memories
from kioko_core.store import Record, Scope, Upsert

if TYPE_CHECKING:
    from kioko_core.layer.parts import LayerParts

FEEDBACK_WEIGHT = 0.8
FEEDBACK_WINDOW = 6 * 3600.0
HEBBIAN_RATE = 0.2


def apply_feedback(
    layer: LayerParts, scope: Scope, credited: str | None, session_id: str | None, context: Context | None, now: float
) -> list[links.MemoryLink]:
    """Link the credited fix to the problems it solved and strengthen the links used together, in one batch."""
    changed: dict[str, Record] = {}
    made: list[links.MemoryLink] = []

    def current(record: Record) -> Record:
        return changed.get(record.id, record)

    if credited is not None:
        fix = layer.get(credited, user_id=scope.user_id, agent_id=scope.agent_id)
        problems: dict[str, Record] = {}
        if session_id:
            for record in problem_memories(layer, scope, session_id, now - FEEDBACK_WINDOW):
                problems[record.id] = record
        if context is not None:
            for memory in context.memories:
                if memory.record.kind == "episodic" and memory.record.scope == scope:
                    from kioko_core.reading.analysis import has_problem_cue

                    if has_problem_cue(memory.record.content):
                        problems.setdefault(memory.record.id, memory.record)
        problems.pop(fix.id, None)
        fresh = {r.id: r for r in layer.store.get(scope, list(problems)) if r is not None} if problems else {}
        for problem in fresh.values():
            existing = links.entry_for(current(fix), problem.id)
            if existing is not None and links.author_rank(existing.get("by", "auto")) < links.author_rank("feedback"):
                continue
            link = links.MemoryLink(
                source=fix.id,
                target=problem.id,
                type="resolves",
                weight=FEEDBACK_WEIGHT,
                why="it worked: the fix credited for this problem",
                by="feedback",
                at=now,
                seen=now,
            )
            changed[fix.id] = links.put_link(current(fix), link)
            changed[problem.id] = links.put_link(current(problem), link)
            made.append(link)

    fresh_pairs = {frozenset((k.source, k.target)) for k in made}
    if context is not None:
        given = {m.record.id: m.record for m in context.memories}
        latest = {r.id: r for r in layer.store.get(scope, list(given)) if r is not None} if given else {}
        for memory_id, record in latest.items():
            record = changed.get(memory_id, record)
            for entry in links.link_entries(record):
                other = entry["id"]
                if other not in latest or memory_id > other or frozenset((memory_id, other)) in fresh_pairs:
                    continue  # each pair once; a link made by this feedback is not also strengthened
                partner = changed.get(other, latest[other])
                strengthened = _strengthen(entry, now)
                link = links.MemoryLink.from_entry(record, strengthened, partner)
                changed[memory_id] = links.put_link(record, link)
                changed[other] = links.put_link(partner, link)
                record = changed[memory_id]
                made.append(link)
    if changed:
        layer.store.update_many([Upsert(record=r, expected_version=r.version) for r in changed.values()])
    return made


def _strengthen(entry: dict[str, Any], now: float) -> dict[str, Any]:
    """w <- w + 0.2 (1 - w), seen = now: memories used together link together."""
    updated = dict(entry)
    weight = float(entry.get("w", 0.0))
    updated["w"] = round(weight + HEBBIAN_RATE * (1.0 - weight), 4)
    updated["seen"] = now
    return updated
