"""What the SQL drivers share about a stored record row: its columns, in the order both select them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

RECORD_FIELDS = (
    "id",
    "user_id",
    "agent_id",
    "kind",
    "content",
    "metadata",
    "terms",
    "embedding",
    "session_id",
    "created_at",
    "updated_at",
    "version",
)
"""The Record fields a records row holds, in the order the SQLite and PostgreSQL drivers select them."""


def row_fields(row: Sequence[Any]) -> dict[str, Any]:
    """A selected records row as Record fields by name, before the driver decodes what it stores encoded."""
    return dict(zip(RECORD_FIELDS, row, strict=True))
