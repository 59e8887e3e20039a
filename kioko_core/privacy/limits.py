"""Size limits on the text a call hands the layer, so one oversized write or query cannot stall a process.

Analysis is linear in the length of a text, but a memory is analysed, embedded, checked for secrets and
indexed on every write, and a query on every recall: a megabyte of text costs 0.4-1 s of CPU
(``benchmarks/long_text.py``), and a memory that long is almost always a whole document pasted by mistake
(split it into chunks instead). The defaults
are generous for anything a person or an agent writes as one memory; raise them when you mean it::

    kioko.connect("sqlite:///kioko.db", limits={"content_bytes": 2_000_000})

Sizes are counted in UTF-8 bytes, so the limit means the same for every language.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from kioko_core.store import InvalidRecordError

DEFAULT_CONTENT_BYTES = 256 * 1024
"""Largest memory content ``add`` and ``update`` accept by default (256 KiB)."""

DEFAULT_QUERY_BYTES = 32 * 1024
"""Largest query ``recall``, ``context`` and ``search`` accept by default (32 KiB)."""


class TooLargeError(InvalidRecordError):
    """A text is longer than the layer's configured limit; nothing was written or searched.

    ``what`` names the argument (``"content"`` or ``"query"``), ``size`` and ``limit`` are in bytes.
    """

    def __init__(self, what: str, size: int, limit: int, option: str) -> None:
        self.what, self.size, self.limit = what, size, limit
        super().__init__(
            f"{what} is {size:,} bytes, over the limit of {limit:,}: split it into smaller memories, or raise "
            f"the limit with kioko.connect(..., limits={{{option!r}: {size}}})"
        )


@dataclass(frozen=True)
class Limits:
    """The size limits of one layer (``MemoryLayer(..., limits=...)``, ``kioko.connect(..., limits=...)``)."""

    content_bytes: int = DEFAULT_CONTENT_BYTES
    """Largest content of one memory, in UTF-8 bytes."""
    query_bytes: int = DEFAULT_QUERY_BYTES
    """Largest recall query, in UTF-8 bytes."""

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise InvalidRecordError(f"limits: {item.name} must be a positive integer, got {value!r}")

    @classmethod
    def build(cls, given: Limits | Mapping[str, Any] | None) -> Limits:
        """``given`` as Limits: None gives the defaults, a dict overrides the names it has."""
        if given is None:
            return cls()
        if isinstance(given, Limits):
            return given
        if not isinstance(given, Mapping):
            raise InvalidRecordError(f"limits must be a dict such as {{'content_bytes': 1000000}}, got {given!r}")
        unknown = set(given) - {item.name for item in fields(cls)}
        if unknown:
            raise InvalidRecordError(
                f"unknown limit(s) {sorted(unknown)}; the limits are {[item.name for item in fields(cls)]}"
            )
        return cls(**dict(given))

    def check_content(self, content: str) -> None:
        """Raise :class:`TooLargeError` if ``content`` is over ``content_bytes``."""
        _check("content", content, self.content_bytes, "content_bytes")

    def check_query(self, query: str) -> None:
        """Raise :class:`TooLargeError` if ``query`` is over ``query_bytes``."""
        _check("query", query, self.query_bytes, "query_bytes")


def _check(what: str, text: str, limit: int, option: str) -> None:
    # a UTF-8 character is at most 4 bytes: short texts need no encoding to be known small enough
    if len(text) * 4 <= limit:
        return
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise TooLargeError(what, size, limit, option)
