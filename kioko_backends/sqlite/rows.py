"""How a record is stored in a row and read back, what a batch finds for an id, and ids chunked for ``IN (...)``."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kioko_backends._rows import row_fields
from kioko_backends.sqlite.statements import _NO_AGENT
from kioko_core.store import (
    Record,
    Scope,
)

_VECTOR_DTYPE = np.dtype("<f4")


# --------------------------------------------------------------------------- encoding rows


def _scope_values(scope: Scope) -> tuple[str, str]:
    """``(user_id, agent_id)`` as the columns hold them."""
    return scope.user_id, scope.agent_id if scope.agent_id is not None else _NO_AGENT


def _loaded_float(value: float | None) -> float:
    # files written before timestamps had to be finite may hold NULL for NaN
    return math.nan if value is None else float(value)


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
"""``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` without building an encoder per call (a linked
write encodes a dozen link entries)."""


def _json(value: Any) -> str:
    # validate_ops let only JSON through, without NaN or infinity
    return _ENCODE(value)


def _vector_bytes(record: Record) -> bytes | None:
    """The embedding as float32 little-endian bytes (validate_ops made it a finite float32 vector)."""
    return None if record.embedding is None else record.embedding.astype(_VECTOR_DTYPE, copy=False).tobytes()


@dataclass(frozen=True)
class _Row:
    """A record encoded for ``kioko_records``; encoding checks it, before any lock is taken."""

    scope: Scope
    terms: tuple[str, ...]
    values: tuple[Any, ...]
    """Column values in ``_RECORD_COLUMNS`` order; the version (last) is stamped when the batch is planned."""

    @property
    def embedding(self) -> bytes | None:
        blob: bytes | None = self.values[7]
        return blob

    @property
    def created_at(self) -> float | None:
        when: float | None = self.values[9]
        return when

    @property
    def kind(self) -> str:
        kind: str = self.values[3]
        return kind

    @property
    def terms_json(self) -> str:
        encoded: str = self.values[6]
        return encoded

    @property
    def session_id(self) -> str | None:
        session: str | None = self.values[8]
        return session

    def stamped(self, version: int) -> tuple[Any, ...]:
        return self.values[:-1] + (version,)

    def rewrite(self, version: int) -> tuple[Any, ...]:
        """Parameters of ``_REWRITE_RECORD``: the columns no index holds, then the id."""
        values = self.values
        return (values[4], values[5], values[6], values[7], values[9], values[10], version, values[0])

    def keeps_index_keys(self, before: _State) -> bool:
        """True when the row's indexed columns (scope, kind, session) are what ``before`` holds."""
        return before.scope == self.scope and before.kind == self.kind and before.session_id == self.session_id


def _encode_record(record: Record) -> _Row:
    """A record (one validate_ops accepted) as a row for ``kioko_records``."""
    agent_id = record.agent_id if record.agent_id is not None else _NO_AGENT
    return _Row(
        record.scope,
        tuple(record.terms),
        (
            record.id,
            record.user_id,
            agent_id,
            record.kind,
            record.content,
            _json(record.metadata),
            _json(record.terms),
            _vector_bytes(record),
            record.session_id,
            float(record.created_at),
            float(record.updated_at),
            0,
        ),
    )


def _decode_record(row: Sequence[Any]) -> Record:
    """A ``kioko_records`` row as a Record; the row was validated when it was written."""
    fields = row_fields(row)
    embedding = fields["embedding"]
    fields.update(
        agent_id=fields["agent_id"] if fields["agent_id"] != _NO_AGENT else None,
        metadata=json.loads(fields["metadata"]),
        terms=json.loads(fields["terms"]),
        embedding=None if embedding is None else np.frombuffer(embedding, dtype=_VECTOR_DTYPE).astype(np.float32),
        created_at=_loaded_float(fields["created_at"]),
        updated_at=_loaded_float(fields["updated_at"]),
    )
    return Record.model_construct(**fields)


_ID_CHUNK = 512
"""Ids per IN list: below every SQLite build's parameter limit, and few statement shapes to prepare."""


def _id_chunks(ids: Sequence[str]) -> Iterator[list[str]]:
    """``ids`` in chunks padded (by repeating an id, harmless in IN) to a power-of-two length."""
    for start in range(0, len(ids), _ID_CHUNK):
        chunk = list(ids[start : start + _ID_CHUNK])
        size = 1 << (len(chunk) - 1).bit_length()
        yield chunk + [chunk[0]] * (size - len(chunk))


@dataclass(frozen=True)
class _State:
    """What the database holds for one id, as the batch sees it."""

    scope: Scope
    version: int
    terms_json: str = "[]"
    """The terms column as stored: a rewrite compares it with the new text before parsing it."""
    created_at: float | None = None
    """As stored (None for NaN): postings carry it, so a changed timestamp rewrites them."""
    kind: str = ""
    session_id: str | None = None

    @functools.cached_property
    def terms(self) -> tuple[str, ...]:
        return tuple(json.loads(self.terms_json))

    @property
    def has_terms(self) -> bool:
        # a JSON list of strings holds a quote exactly when it is not empty: no parse needed
        return '"' in self.terms_json
