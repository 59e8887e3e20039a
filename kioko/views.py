"""The one JSON shape of a memory, and of each value the layer returns: REST ``/v1``, RemoteMemory, the CLI's
``--json`` and the MCP tools all answer with these functions.

A memory is ``{id, user_id, agent_id, kind, content, metadata, session_id, created_at, updated_at, version,
entities, linked_at, links}``. ``metadata`` is exactly what the user stored: the layer's bookkeeping
(``Record.system``; kept by the store under the metadata key ``_kioko``, its links entry by entry where the
store can, see :mod:`kioko_core.layer.records`) is shown as ``entities`` (what the memory is about),
``linked_at`` (when the linker last linked it; None: never) and ``links`` (its links, as :func:`link_view`
shapes a link: ``source`` and ``target`` ids, the other memory's label and type where it was read). The vector
and the index terms are the store's business and never shown. A recalled memory is the same shape with
``score``, ``signals`` and ``section``; a related one with ``score`` and ``path``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from kioko_core.linking.links import MemoryLink, entities_of, link_entries, linked_at, user_metadata
from kioko_core.store import Record

MEMORY_FIELDS = (
    "id",
    "user_id",
    "agent_id",
    "kind",
    "content",
    "metadata",
    "session_id",
    "created_at",
    "updated_at",
    "version",
    "entities",
    "linked_at",
    "links",
)
"""The fields of a memory, in the order they are shown."""


def memory_view(record: Record, *, links: list[MemoryLink] | None = None) -> dict[str, Any]:
    """A memory as every surface shows it; ``links`` (already resolved, with the other ends' labels) replace
    the record's own adjacency list when given."""
    return {
        "id": record.id,
        "user_id": record.user_id,
        "agent_id": record.agent_id,
        "kind": record.kind,
        "content": record.content,
        "metadata": _json_safe(user_metadata(record.metadata)),
        "session_id": record.session_id,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "version": record.version,
        "entities": entities_of(record),
        "linked_at": linked_at(record),
        "links": (
            [link_view(k) for k in links]
            if links is not None
            else [_stored_link(record, e) for e in link_entries(record)]
        ),
    }


def _stored_link(record: Record, entry: dict[str, Any]) -> dict[str, Any]:
    """A link as the record stores it (no labels: the other memory was not read), in :func:`link_view`'s names."""
    outgoing = entry["dir"] == "out"
    return {
        "source": record.id if outgoing else entry["id"],
        "target": entry["id"] if outgoing else record.id,
        "type": entry["type"],
        "weight": _number(entry.get("w", 0.0)),
        "why": str(entry.get("why", "")),
        "by": str(entry.get("by", "auto")),
        "at": _number(entry.get("at", 0.0)),
        "seen": _number(entry.get("seen", entry.get("at", 0.0))),
        "taken_from": entry.get("from"),
        "shared": bool(entry.get("shared")),
    }


def link_view(link: MemoryLink) -> dict[str, Any]:
    """A link: ``source`` -> ``target``, its type, weight, author (``by``), why, when made and last seen, the
    two ends' labels and types, and ``line``, the sentence it reads as."""
    data = dataclasses.asdict(link)
    data["line"] = link.line()
    return _json_safe(data)


def recalled_view(item: Any) -> dict[str, Any]:
    """A memory of a recall context: the memory, its fused ``score``, the ``signals`` that made it and the
    ``section`` it is shown in."""
    data = memory_view(item.record)
    data.update(
        score=_number(item.score),
        signals={str(k): _number(v) for k, v in item.signals.items()},
        section=item.section,
    )
    return data


def context_view(context: Any) -> dict[str, Any]:
    """A recall context: the text to hand a model, the memories in it, how they connect, the plan followed."""
    plan = getattr(context, "plan", None)
    return {
        "query": context.query,
        "text": context.text,
        "memories": [recalled_view(m) for m in context.memories],
        "links": [link_view(k) for k in context.links],
        "plan": _json_safe(plan.to_dict()) if plan is not None else None,
        "sections": sections_view(context),
        "budget": getattr(context, "budget", None),
        "tokens": getattr(context, "tokens", 0),
        "cut": list(getattr(context, "cut", [])),
        "dropped": list(getattr(context, "dropped", [])),
    }


def sections_view(context: Any) -> dict[str, Any]:
    """The profile, instructions, relations (entity-graph triples) and working memory a context shows besides
    its memories."""
    sections = getattr(context, "sections", None)
    if sections is None:
        return {"profile": [], "instructions": [], "relations": [], "working": []}
    return {
        "profile": [memory_view(r) for r in sections.profile],
        "instructions": [memory_view(r) for r in sections.instructions],
        "relations": [triple_view(t) for t in sections.relations],
        "working": [memory_view(r) for r in sections.working],
    }


def triple_view(triple: Any) -> dict[str, Any]:
    """An entity-graph triple with every field (``line`` aside: a client builds it from the three names)."""
    return _json_safe(triple.model_dump())


def related_view(item: Any) -> dict[str, Any]:
    """A memory connected to another: the memory, its activation ``score`` and the ``path`` of links to it."""
    data = memory_view(item.record)
    data.update(score=_number(item.score), path=[link_view(k) for k in item.path])
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


def _number(value: Any) -> Any:
    return _json_safe(float(value)) if not isinstance(value, bool) else value


def _json_safe(value: Any) -> Any:
    """Numpy scalars, tuples, sets and non-finite floats made into what ``json.dumps`` writes portably."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_json_safe(v) for v in value]
    if getattr(value, "shape", None) == ():  # a numpy scalar
        return _json_safe(value.item())
    return str(value)
