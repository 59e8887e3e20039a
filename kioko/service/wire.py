"""JSON forms of the library's values, shared by the service (out) and RemoteMemory (back in).

A value crosses the wire as plain JSON and comes back as the same Python type the library returns:
Record, MemoryLink, Context, RelatedMemory, LinkScore, Triple. Records travel without their
embedding (the server re-embeds nothing on read; the client never needs the vector) except in an
export, where the vector is carried exactly (little-endian float32, base64).
"""

from __future__ import annotations

import base64
import dataclasses
from typing import Any

import numpy as np

from kioko_core.context_sections import Sections
from kioko_core.entities import Triple
from kioko_core.graph import RelatedMemory
from kioko_core.intelligence.pins import StablePrefix
from kioko_core.intelligence.planner import RecallPlan
from kioko_core.linker import LinkScore
from kioko_core.links import MemoryLink
from kioko_core.recall import Context, RecalledMemory
from kioko_core.store import KiokoError, Record

RECORD_FIELDS = (
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


def record_out(record: Record, *, embedding: bool = False) -> dict[str, Any]:
    data = {name: getattr(record, name) for name in RECORD_FIELDS}
    data["metadata"] = dict(record.metadata)
    data["terms"] = list(record.terms)
    if embedding:
        data["embedding"] = vector_out(record.embedding)
    return data


def record_in(data: dict[str, Any]) -> Record:
    fields = {name: data[name] for name in RECORD_FIELDS if name in data}
    if data.get("embedding") is not None:
        fields["embedding"] = vector_in(data["embedding"])
    return Record(**fields)


def vector_out(vector: np.ndarray | None) -> str | None:
    if vector is None:
        return None
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def vector_in(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(np.float32)


def link_out(link: MemoryLink) -> dict[str, Any]:
    return dataclasses.asdict(link)


def link_in(data: dict[str, Any]) -> MemoryLink:
    names = {f.name for f in dataclasses.fields(MemoryLink)}
    return MemoryLink(**{k: v for k, v in data.items() if k in names})


def context_out(context: Context) -> dict[str, Any]:
    return {
        "query": context.query,
        "text": context.text,
        "memories": [
            {"record": record_out(m.record), "score": m.score, "signals": dict(m.signals), "section": m.section}
            for m in context.memories
        ],
        "links": [link_out(k) for k in context.links],
        "plan": plan_out(context.plan) if context.plan is not None else None,
        "sections": sections_out(context.sections),
    }


def sections_out(sections: Sections) -> dict[str, Any]:
    return {
        "profile": [record_out(r) for r in sections.profile],
        "instructions": [record_out(r) for r in sections.instructions],
        "relations": [triple_out(t) for t in sections.relations],
        "working": [record_out(r) for r in sections.working],
    }


def sections_in(data: dict[str, Any] | None) -> Sections:
    """The context's unsearched sections; a server without them sends none (an empty Sections)."""
    data = data or {}
    return Sections(
        profile=[record_in(r) for r in data.get("profile", [])],
        instructions=[record_in(r) for r in data.get("instructions", [])],
        relations=[triple_in(t) for t in data.get("relations", [])],
        working=[record_in(r) for r in data.get("working", [])],
    )


def context_in(data: dict[str, Any]) -> Context:
    memories = [
        RecalledMemory(record_in(m["record"]), m["score"], dict(m["signals"]), m["section"]) for m in data["memories"]
    ]
    plan = plan_in(data["plan"]) if data.get("plan") is not None else None
    return Context(
        query=data["query"],
        text=data["text"],
        memories=memories,
        links=[link_in(k) for k in data["links"]],
        plan=plan,
        sections=sections_in(data.get("sections")),
    )


def plan_out(plan: RecallPlan) -> dict[str, Any]:
    return plan.to_dict()


def plan_in(data: dict[str, Any]) -> RecallPlan:
    """The RecallPlan a JSON plan describes; its own checks make a bad one an InvalidRecordError."""
    names = {f.name for f in dataclasses.fields(RecallPlan)}
    return RecallPlan(**{k: v for k, v in data.items() if k in names})


def prefix_out(prefix: StablePrefix) -> dict[str, Any]:
    return {"text": prefix.text, "digest": prefix.digest, "memory_ids": list(prefix.memory_ids)}


def prefix_in(data: dict[str, Any]) -> StablePrefix:
    return StablePrefix(text=data["text"], memory_ids=list(data["memory_ids"]))


def related_out(item: RelatedMemory) -> dict[str, Any]:
    return {"record": record_out(item.record), "score": item.score, "path": [link_out(k) for k in item.path]}


def related_in(data: dict[str, Any]) -> RelatedMemory:
    return RelatedMemory(record_in(data["record"]), data["score"], [link_in(k) for k in data["path"]])


def score_out(score: LinkScore) -> dict[str, Any]:
    return dataclasses.asdict(score)


def score_in(data: dict[str, Any]) -> LinkScore:
    return LinkScore(**data)


def triple_out(triple: Triple) -> dict[str, Any]:
    return triple.model_dump()


def triple_in(data: dict[str, Any]) -> Triple:
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
    import kioko_core.layer  # noqa: F401  (imports every module that defines a public error)

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
