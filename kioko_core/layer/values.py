"""Conversions the public API shares, so every call accepts the same spellings of a value."""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Any

from kioko_core.errors import InvalidRecordError


def timestamp(value: Any, name: str = "created_at") -> float | None:
    """``value`` as Unix seconds: None stays None; a number is taken as Unix seconds; a datetime is converted.

    An aware datetime is converted from its own zone; a naive one is taken as the machine's local time
    (Python's ``datetime.timestamp`` rule), so pass ``datetime.now(timezone.utc)`` or epoch seconds where
    the machine's zone is not the one meant. Booleans, strings, NaN and infinities are refused.
    """
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
        if math.isfinite(seconds) and EARLIEST <= seconds <= LATEST:
            return seconds
        if math.isfinite(seconds):
            raise InvalidRecordError(
                f"{name} must be between year 1 and year 9999 in Unix seconds ({EARLIEST} to {LATEST}), got {value!r}"
            )
    raise InvalidRecordError(f"{name} must be Unix seconds or a datetime, got {value!r}")


EARLIEST = -62_135_596_800.0
"""0001-01-01T00:00:00Z in Unix seconds: the first moment a ``created_at`` may name (a datetime's own range)."""
LATEST = 253_402_300_799.0
"""9999-12-31T23:59:59Z: the last."""

ID_ALPHABET = "A-Z a-z 0-9 . _ - : @ + = ~"
"""What a memory id given by a caller may hold (1-200 of these): no '/', '?', '#', '%' or space, so every id
is one path segment of the REST API as it is, and reachable by id."""
_ID = re.compile(r"[A-Za-z0-9._\-:@+=~]{1,200}")


def check_id(value: Any, name: str = "id") -> str:
    """``value`` if it is an id of :data:`ID_ALPHABET`, else InvalidRecordError."""
    if not isinstance(value, str) or _ID.fullmatch(value) is None:
        raise InvalidRecordError(
            f"{name} must be 1-200 characters of {ID_ALPHABET} (no '/' or spaces), got {str(value)[:80]!r}"
        )
    return value


__all__ = ["EARLIEST", "ID_ALPHABET", "LATEST", "check_id", "timestamp"]
