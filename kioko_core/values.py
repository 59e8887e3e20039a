"""Conversions the public API shares, so every call accepts the same spellings of a value."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from .errors import InvalidRecordError


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
        if math.isfinite(seconds):
            return seconds
    raise InvalidRecordError(f"{name} must be Unix seconds or a datetime, got {value!r}")


__all__ = ["timestamp"]
