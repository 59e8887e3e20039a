"""JSON forms of the library's values, shared by the service (out) and RemoteMemory (back in).

Out, every value has the one shape :mod:`kioko.views` gives it (the CLI's ``--json`` and the MCP tools show
the same): a memory is ``{id, user_id, agent_id, kind, content, metadata, session_id, created_at, updated_at,
version, entities, links}`` with ``metadata`` exactly what the user stored. Back in, it becomes the same
Python type the library returns: Record, MemoryLink, Context, RelatedMemory, LinkScore, Triple; a Record's
links and entities go back where the library keeps them, so ``kioko.links`` reads a remote record as a local
one. Records travel without their embedding and index terms, except in an export (:func:`stored_out`),
which carries a record exactly as stored (the vector as little-endian float32, base64).
"""

from __future__ import annotations

import base64
import dataclasses
from typing import Any

import numpy as np

from kioko.views import context_view, link_view, memory_view, related_view, score_view, triple_view
from kioko_core.graph.entities import Triple
from kioko_core.graph.facade import RelatedMemory
from kioko_core.linking import links
from kioko_core.linking.linker import LinkScore
from kioko_core.linking.links import MemoryLink
from kioko_core.recall.hybrid import Context, RecalledMemory
from kioko_core.recall.sections import Sections
from kioko_core.store import KiokoError, Record
from kioko_intelligence.pins import StablePrefix
from kioko_intelligence.planner import RecallPlan

STORED_FIELDS = (
    "id",
    "user_id",
    "agent_id",
    "kind",
    "content",
    "metadata",
    "terms",
    "session_id",
    "created_at",
    "updated_at",
    "version",
)
"""A record as the store holds it (an export's lines): every field but the vector, which travels apart."""


def record_out(record: Record) -> dict[str, Any]:
    """A memory in the one wire shape (:func:`kioko.views.memory_view`)."""
    return memory_view(record)


def stored_out(record: Record) -> dict[str, Any]:
    """A record exactly as stored, bookkeeping, index terms and vector included: what an export carries."""
    data = {name: getattr(record, name) for name in STORED_FIELDS}
    # the stored shape whatever store it came from: the bookkeeping (links included) under the metadata key
    data["metadata"] = dict(links.stored_metadata(record))
    data["terms"] = list(record.terms)
    data["embedding"] = vector_out(record.embedding)
    return data


def record_in(data: dict[str, Any]) -> Record:
    """The Record a memory's JSON describes: the wire shape, or the stored shape of an export (or of a
    server before the one wire shape, whose metadata carried the bookkeeping itself)."""
    fields = {name: data[name] for name in STORED_FIELDS if name in data}
    metadata = dict(data.get("metadata") or {})
    if links.BOOKKEEPING not in metadata:
        kept: dict[str, Any] = {}
        if data.get("links"):
            kept["links"] = [link_in(k).entry(data["id"]) for k in data["links"]]
        if data.get("entities"):
            kept["entities"] = list(data["entities"])
        if data.get("linked_at") is not None:
            kept["linked_at"] = data["linked_at"]
        if kept:
            metadata[links.BOOKKEEPING] = kept
    fields["metadata"] = metadata
    if data.get("embedding") is not None:
        fields["embedding"] = vector_in(data["embedding"])
    return Record(**fields)


def memory_in(data: dict[str, Any]) -> Record:
    """The Record the library returns for a memory's JSON: the caller's metadata in ``metadata`` (without the
    ``_kioko`` key) and the bookkeeping (links, entities) in ``system``, as the layer reads it. What the remote
    clients decode every memory with, sync and async alike; :func:`record_in` keeps the stored shape (imports)."""
    return links.upgraded(record_in(data))


def vector_out(vector: np.ndarray | None) -> str | None:
    """A vector as JSON carries it: little-endian float32 bytes in base64 (None stays None)."""
    if vector is None:
        return None
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def vector_in(text: str) -> np.ndarray:
    """The vector :func:`vector_out` wrote."""
    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(np.float32)


def link_out(link: MemoryLink) -> dict[str, Any]:
    """A memory link as every surface shows it."""
    return link_view(link)


def link_in(data: dict[str, Any]) -> MemoryLink:
    """The MemoryLink of a wire dict (fields the class does not know are ignored)."""
    names = {f.name for f in dataclasses.fields(MemoryLink)}
    return MemoryLink(**{k: v for k, v in data.items() if k in names})


def context_out(context: Context) -> dict[str, Any]:
    """A recall context as every surface shows it."""
    return context_view(context)


def _recalled_in(data: dict[str, Any]) -> RecalledMemory:
    # a server before the one wire shape nested the memory under "record"
    record = memory_in(data["record"] if "record" in data else data)
    return RecalledMemory(record, data["score"], dict(data["signals"]), data["section"])


def sections_in(data: dict[str, Any] | None) -> Sections:
    """The context's unsearched sections; a server without them sends none (an empty Sections)."""
    data = data or {}
    return Sections(
        profile=[memory_in(r) for r in data.get("profile", [])],
        instructions=[memory_in(r) for r in data.get("instructions", [])],
        relations=[triple_in(t) for t in data.get("relations", [])],
        working=[memory_in(r) for r in data.get("working", [])],
    )


def context_in(data: dict[str, Any]) -> Context:
    """The Context of a wire dict, its memories, links, plan and sections included."""
    plan = plan_in(data["plan"]) if data.get("plan") is not None else None
    return Context(
        query=data["query"],
        text=data["text"],
        memories=[_recalled_in(m) for m in data["memories"]],
        links=[link_in(k) for k in data["links"]],
        plan=plan,
        sections=sections_in(data.get("sections")),
        # a server before the context budget sends none of these
        budget=data.get("budget"),
        tokens=int(data.get("tokens") or 0),
        cut=list(data.get("cut") or []),
        dropped=list(data.get("dropped") or []),
    )


def plan_out(plan: RecallPlan) -> dict[str, Any]:
    """A recall plan as JSON."""
    return plan.to_dict()


def plan_in(data: dict[str, Any]) -> RecallPlan:
    """The RecallPlan a JSON plan describes; its own checks make a bad one an InvalidRecordError."""
    names = {f.name for f in dataclasses.fields(RecallPlan)}
    return RecallPlan(**{k: v for k, v in data.items() if k in names})


def prefix_out(prefix: StablePrefix) -> dict[str, Any]:
    """The stable prefix as JSON: its text, digest and the pinned memories' ids."""
    return {"text": prefix.text, "digest": prefix.digest, "memory_ids": list(prefix.memory_ids)}


def prefix_in(data: dict[str, Any]) -> StablePrefix:
    """The StablePrefix of a wire dict (its digest is the text's, so it need not travel back)."""
    return StablePrefix(text=data["text"], memory_ids=list(data["memory_ids"]))


def related_out(item: RelatedMemory) -> dict[str, Any]:
    """A related memory (record, score, chain of links) as every surface shows it."""
    return related_view(item)


def related_in(data: dict[str, Any]) -> RelatedMemory:
    """The RelatedMemory of a wire dict."""
    record = memory_in(data["record"] if "record" in data else data)
    return RelatedMemory(record, data["score"], [link_in(k) for k in data["path"]])


def score_out(score: LinkScore) -> dict[str, Any]:
    """A link score (every signal of :meth:`Graph.explain`) as every surface shows it."""
    return score_view(score)


def score_in(data: dict[str, Any]) -> LinkScore:
    """The LinkScore of a wire dict (fields the class does not know are ignored)."""
    names = {f.name for f in dataclasses.fields(LinkScore)}
    return LinkScore(**{k: v for k, v in data.items() if k in names})


def triple_out(triple: Triple) -> dict[str, Any]:
    """An entity-graph triple as every surface shows it."""
    return triple_view(triple)


def triple_in(data: dict[str, Any]) -> Triple:
    """The Triple of a wire dict."""
    return Triple(**data)


def jsonable(value: Any) -> Any:
    """A task's result as JSON: records as the API shows them, report objects by their fields.

    Tasks other engineers add return what suits them; this keeps any of them from being a 500.
    """
    if isinstance(value, Record):
        return record_out(value)
    if hasattr(value, "to_dict"):
        return jsonable(value.to_dict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


# --------------------------------------------------------------------------- errors


def error_out(error: BaseException) -> dict[str, Any]:
    """``{"error": {"type", "message"}}``; extra public attributes (SecretDropped's ``kinds``) ride along."""
    body: dict[str, Any] = {"type": type(error).__name__, "message": _message(error)}
    kinds = getattr(error, "kinds", None)
    if isinstance(kinds, list):
        body["kinds"] = list(kinds)
    return {"error": body}


def _message(error: BaseException) -> str:
    # KeyError's str() is the repr of its argument; the message a person reads is the argument itself
    if isinstance(error, KeyError) and error.args and isinstance(error.args[0], str):
        return error.args[0]
    return str(error)


def error_class(name: str) -> type[KiokoError] | None:
    """The KiokoError subclass called ``name`` (wherever the core defines it), or None."""
    import kioko_core.layer.memory_layer  # noqa: F401  (imports every module that defines a public error)

    pending: list[type[KiokoError]] = [KiokoError]
    while pending:
        cls = pending.pop()
        if cls.__name__ == name:
            return cls
        pending.extend(cls.__subclasses__())
    return None


def error_in(body: dict[str, Any]) -> Exception:
    """The exception a server's error body names, built without calling its constructor (whose arguments vary)."""
    cls = error_class(str(body.get("type", ""))) or KiokoError
    error = cls.__new__(cls)
    Exception.__init__(error, body.get("message", ""))
    if "kinds" in body:
        error.kinds = list(body["kinds"])  # type: ignore[attr-defined]
    return error
