"""Plain, JSON-ready dicts of what the layer returns, for the CLI's ``--json`` and the MCP tools.

A record's vector and index terms are the store's business; the layer's bookkeeping (its adjacency
list) is shown as links with the other end's label, and ``entities`` as what the memory is about.
"""

from __future__ import annotations

import math
from typing import Any

from kioko_core import links as L
from kioko_core.store import Record


def memory_view(record: Record, *, links: list[L.MemoryLink] | None = None) -> dict[str, Any]:
    """The fields a person or an agent reads; ``links`` (already resolved) are added when given."""
    data: dict[str, Any] = {
        "id": record.id,
        "type": record.kind,
        "content": record.content,
        "user_id": record.user_id,
        "agent_id": record.agent_id,
        "session_id": record.session_id,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "version": record.version,
        "metadata": L.user_metadata(record.metadata),
        "entities": L.entities_of(record),
    }
    if links is not None:
        data["links"] = [link_view(link) for link in links]
    return _json_safe(data)


def link_view(link: L.MemoryLink) -> dict[str, Any]:
    return _json_safe(
        {
            "source": link.source,
            "target": link.target,
            "type": link.type,
            "weight": round(link.weight, 4),
            "by": link.by,
            "why": link.why,
            "line": link.line(),
        }
    )


def recalled_view(item: Any) -> dict[str, Any]:
    """A memory of a recall context with its fused score, its signals and the section it is shown in."""
    data = memory_view(item.record)
    data.update(
        score=round(float(item.score), 6),
        section=item.section,
        signals={k: round(float(v), 6) for k, v in item.signals.items()},
    )
    return _json_safe(data)


def context_view(context: Any) -> dict[str, Any]:
    return {
        "query": context.query,
        "text": context.text,
        "memories": [recalled_view(m) for m in context.memories],
        "links": [link_view(k) for k in context.links],
        "plan": context.plan.to_dict() if getattr(context, "plan", None) is not None else None,
        "sections": sections_view(context),
    }


def sections_view(context: Any) -> dict[str, Any]:
    """The profile, instructions, relations and working memory a context shows besides its memories."""
    sections = getattr(context, "sections", None)
    if sections is None:
        return {"profile": [], "instructions": [], "relations": [], "working": []}
    return _json_safe(
        {
            "profile": [r.content for r in sections.profile],
            "instructions": [r.content for r in sections.instructions],
            "relations": [t.line() for t in sections.relations],
            "working": [r.content for r in sections.working],
        }
    )


def related_view(item: Any) -> dict[str, Any]:
    data = memory_view(item.record)
    data.update(score=item.score, path=[link_view(k) for k in item.path])
    return data


def score_view(score: Any) -> dict[str, Any]:
    """A LinkScore: whether the pair is linked, as what, and every signal that scored it."""
    return _json_safe(
        {
            "source": score.source,
            "target": score.target,
            "score": score.score,
            "linked": score.linked,
            "type": score.type,
            "why": score.why,
            "signals": dict(score.signals),
        }
    )


def _json_safe(value: Any) -> Any:
    """Numpy scalars, tuples, sets and non-finite floats made into what ``json.dumps`` writes portably."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_json_safe(v) for v in value]
    if getattr(value, "shape", None) == ():  # a numpy scalar
        value = value.item()
    if isinstance(value, bool) or value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return str(value)
