"""RecallOptions: recall's knobs as one frozen value, taken by every surface.

``memory.recall(query, user_id=..., options=RecallOptions(limit=5, links=0))`` is the same call as
``memory.recall(query, user_id=..., limit=5, links=0)`` on a :class:`~kioko_core.layer.memory_layer.MemoryLayer`, a
``RemoteMemory`` and an ``AsyncRemoteMemory``; keep one value and pass it everywhere instead of
repeating the keywords. A keyword given beside ``options`` wins over the option of the same name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from kioko_core.errors import InvalidRecordError
from kioko_core.recall.budget import check_budget


@dataclasses.dataclass(frozen=True)
class RecallOptions:
    """What recall may be told besides the query and the scope (each None: the layer's default).

    ``links``: how many of the memories may come only through a link (0 turns the graph off);
    ``limit``: how many memories (default 8); ``include_shared``: add the shared knowledge base;
    ``config``: :class:`~kioko_core.recall.hybrid.RecallConfig` fields changed for the call (a RecallConfig or a
    mapping of its fields); ``plan``: ``"auto"``, ``False`` or a ``RecallPlan``; ``section_limits``
    (``{"procedures": 0}``) and ``fill_recent`` (``("decisions",)``) win over the plan's; ``budget``: the
    tokens the context's text may take (:mod:`~kioko_core.recall.budget`; None: the config's, 2,000).
    """

    links: int | None = None
    limit: int | None = None
    include_shared: bool = False
    config: Any = None
    plan: Any = None
    section_limits: Mapping[str, int] | None = None
    fill_recent: tuple[str, ...] | None = None
    budget: int | None = None

    def __post_init__(self) -> None:
        check_budget(self.budget, "RecallOptions.budget")
        for name in ("links", "limit"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise InvalidRecordError(f"RecallOptions.{name} must be a whole number >= 0 or None, got {value!r}")
        if not isinstance(self.include_shared, bool):
            raise InvalidRecordError(f"RecallOptions.include_shared must be True or False, got {self.include_shared!r}")
        if self.section_limits is not None:
            if not isinstance(self.section_limits, Mapping):
                raise InvalidRecordError("RecallOptions.section_limits must be a mapping of section -> count")
            object.__setattr__(self, "section_limits", MappingProxyType(dict(self.section_limits)))
        if self.fill_recent is not None:
            if isinstance(self.fill_recent, str):
                raise InvalidRecordError("RecallOptions.fill_recent must be a list of kinds, not one string")
            object.__setattr__(self, "fill_recent", tuple(self.fill_recent))
        if isinstance(self.config, Mapping):
            object.__setattr__(self, "config", MappingProxyType(dict(self.config)))

    def replace(self, **changes: Any) -> RecallOptions:
        """A copy with ``changes`` applied (the value itself never changes)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def merge(cls, options: RecallOptions | None, **keywords: Any) -> RecallOptions:
        """``options`` with the keywords given beside it applied: a keyword that is not None (for
        ``include_shared``: True) wins over the option."""
        if options is not None and not isinstance(options, RecallOptions):
            raise InvalidRecordError(f"options must be a RecallOptions, got {type(options).__name__}")
        base = options if options is not None else cls()
        given = {
            k: v
            for k, v in keywords.items()
            if (v is True if k == "include_shared" else v is not None) and k in _FIELDS
        }
        return dataclasses.replace(base, **given) if given else base

    def keywords(self) -> dict[str, Any]:
        """The options as recall's keywords (mappings and tuples as the dicts and lists recall takes)."""
        return {
            "links": self.links,
            "limit": self.limit,
            "include_shared": self.include_shared,
            "config": dict(self.config) if isinstance(self.config, Mapping) else self.config,
            "plan": self.plan,
            "section_limits": dict(self.section_limits) if self.section_limits is not None else None,
            "fill_recent": list(self.fill_recent) if self.fill_recent is not None else None,
            "budget": self.budget,
        }


_FIELDS = frozenset(f.name for f in dataclasses.fields(RecallOptions))
RECALL_KNOBS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(RecallOptions))
"""The names of recall's knobs, in order: the keywords recall takes beside ``options``."""
