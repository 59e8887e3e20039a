"""Copies of the records recall hands out: the index cache's records are shared, and a caller may change its own."""

from __future__ import annotations

from typing import Any

from kioko_core.store import Record


def owned(record: Record) -> Record:
    """A copy of a record the index cache holds, for the caller to keep and change as they like."""
    vector = record.embedding
    return record.model_copy(
        update={
            "metadata": json_copy(record.metadata),
            "terms": list(record.terms),
            "embedding": vector.copy() if vector is not None else None,
        }
    )


def json_copy(value: Any) -> Any:
    """A copy of JSON-shaped metadata (dicts, lists, plain values): what a deep copy does, without its bookkeeping."""
    kind = type(value)
    if kind is dict:
        return {key: json_copy(inner) for key, inner in value.items()}
    if kind is list:
        return [json_copy(inner) for inner in value]
    return value
