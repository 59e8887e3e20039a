"""How a Kioko record is laid out as a Qdrant point, shared by the server/local driver and the edge driver.

Nothing here imports a Qdrant library: the two drivers use two (``qdrant-client`` and ``qdrant-edge-py``),
whose condition classes differ in small ways, so :func:`conditions` takes a :class:`ConditionKit` that
builds them. The layout is described in :mod:`kioko_backends.qdrant.store`; changing it orphans
every stored point, in both drivers.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from kioko_core.store import Filter, Record, Scope
from kioko_core.store.driver import keeps_text

DENSE = "dense"
"""Name of the one vector each point may carry."""

FORMAT = 1
"""Payload layout version, written where each driver keeps its store's metadata."""

ID_NAMESPACE = uuid.UUID("6b696f6b-6f00-5c1a-9e1d-7265636f7264")
"""Fixed namespace of the uuid5 point ids; changing it would orphan every stored point."""

POSTING_FIELDS = ("id", "timestamps", "created_at")
"""Payload fields postings reads: the id, the exact created_at, and the one the engine orders by."""

INDEXED_FIELDS: dict[str, tuple[str, bool]] = {
    # field -> (schema, is_tenant). scope is the tenant key: every request filters on it first.
    "scope": ("keyword", True),
    "user_id": ("keyword", False),
    "kind": ("keyword", False),
    "terms": ("keyword", False),
    "session_id": ("keyword", False),
    "created_at": ("float", False),
}
"""Payload indexes an engine with indexes gets (a server, an edge shard)."""


@keeps_text  # memory ids: a forgotten one must not stay in the process
@lru_cache(maxsize=65536)
def point_id(record_id: str) -> str:
    """The Qdrant point id of a record id (a uuid5, since Qdrant takes only UUIDs and integers).

    Cached: a linked write asks for the ids of a few dozen candidates and neighbours, again and again."""
    return str(uuid.uuid5(ID_NAMESPACE, record_id))


def scope_key(scope: Scope) -> str:
    """One exact keyword per scope, in which ``agent_id=None`` is its own value."""
    return json.dumps([scope.user_id, scope.agent_id], ensure_ascii=False, separators=(",", ":"))


def metadata_json(record: Record) -> str:
    # validate_ops let only JSON through
    return json.dumps(record.metadata, ensure_ascii=False, separators=(",", ":"))


def encode_vector(vector: np.ndarray | None) -> str | None:
    if vector is None:
        return None
    return base64.b64encode(np.ascontiguousarray(vector, dtype="<f4").tobytes()).decode("ascii")


def decode_vector(text: str | None) -> np.ndarray | None:
    if text is None:
        return None
    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(np.float32)


def payload(record: Record, metadata: str) -> dict[str, Any]:
    """The point payload of ``record``; ``metadata`` is :func:`metadata_json` of it."""
    return {
        "id": record.id,
        "scope": scope_key(record.scope),
        "user_id": record.user_id,
        "agent_id": record.agent_id,
        "kind": record.kind,
        "content": record.content,
        "metadata": metadata,
        "terms": list(record.terms),
        "embedding": encode_vector(record.embedding),
        "session_id": record.session_id,
        "created_at": float(record.created_at),
        "updated_at": float(record.updated_at),
        "timestamps": json.dumps([record.created_at, record.updated_at]),
        "version": record.version,
    }


def record(stored: dict[str, Any]) -> Record:
    """The record a point payload holds, bit for bit as it was written."""
    created_at, updated_at = json.loads(stored["timestamps"])
    return Record(
        id=stored["id"],
        user_id=stored["user_id"],
        agent_id=stored["agent_id"],
        kind=stored["kind"],
        content=stored["content"],
        metadata=json.loads(stored["metadata"]),
        terms=stored["terms"],
        embedding=decode_vector(stored["embedding"]),
        session_id=stored["session_id"],
        created_at=created_at,
        updated_at=updated_at,
        version=stored["version"],
    )


@dataclass(frozen=True)
class ConditionKit:
    """How one Qdrant library spells the four conditions Kioko filters with (their classes differ slightly)."""

    match: Callable[[str, str], Any]
    """``match(key, value)``: the keyword field equals value."""
    match_any: Callable[[str, list[str]], Any]
    """``match_any(key, values)``: the keyword field equals one of values."""
    time_range: Callable[[str, float | None, float | None], Any]
    """``time_range(key, gte, lt)``: the float field lies in [gte, lt); a None side is open."""
    has_ids: Callable[[list[str]], Any]
    """``has_ids(point_ids)``: the point is one of these."""


def conditions(kit: ConditionKit, scope: Scope, filter: Filter | None) -> list[Any] | None:
    """The conditions (all must hold) selecting ``filter``'s records of ``scope``; None when it matches nothing."""
    found = [kit.match("scope", scope_key(scope))]
    if filter is None:
        return found
    if filter.kinds is not None:
        if not filter.kinds:
            return None
        found.append(kit.match_any("kind", sorted(filter.kinds)))
    if filter.session_id is not None:
        found.append(kit.match("session_id", filter.session_id))
    if filter.created_after is not None or filter.created_before is not None:
        found.append(kit.time_range("created_at", filter.created_after, filter.created_before))
    if filter.ids is not None:
        if not filter.ids:
            return None
        found.append(kit.has_ids([point_id(i) for i in sorted(filter.ids)]))
    return found
