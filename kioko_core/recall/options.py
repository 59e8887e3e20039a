"""Recall's knobs: :class:`RecallConfig` (how recall retrieves and ranks) and :class:`RecallOptions` (what one
call may be told, as one frozen value taken by every surface).

``memory.recall(query, user_id=..., options=RecallOptions(limit=5, links=0))`` is the same call as
``memory.recall(query, user_id=..., limit=5, links=0)`` on a :class:`~kioko_core.layer.memory_layer.MemoryLayer`, a
``RemoteMemory`` and an ``AsyncRemoteMemory``; keep one value and pass it everywhere instead of
repeating the keywords. A keyword given beside ``options`` wins over the option of the same name.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from kioko_core.errors import InvalidRecordError
from kioko_core.recall import budget as context_budget
from kioko_core.recall.budget import check_budget


@dataclass(frozen=True)
class RecallConfig:
    """How recall retrieves and ranks; every field can be set per layer (``MemoryLayer(recall={...})``).

    The defaults were chosen on the LoCoMo development split (``benchmarks/locomo_recall.py``).
    """

    candidates: int = 20
    """Pool per signal: how many candidates the vector search nominates, and how many lexical ones are kept."""
    limit: int = 8
    """How many memories recall returns (retrieved and linked together)."""
    min_vector_only: float = 0.3
    """h: a memory only the vector search found must be at least this similar."""
    min_vector_fill: float = 0.15
    """The same floor when the question's words found no memory and the embedder relates texts that share no word
    (a semantic one; not the offline lexical one): the nearest in meaning fill the list down to this similarity (a
    change said in other words than the question's: "We look at Richmond Hill now" for "Where will my new
    restaurant be?", cosine 0.26 with all-MiniLM-L6-v2). On ``memory_truth.py`` (offline router, session 12) it
    raised the never-read halves 285 -> 293/350 with as many stale values shown (38), the dev halves 1305 ->
    1309/1449 (stale 85 -> 96). Taking it whenever the words found fewer than ``limit`` (or 4) memories gave 294
    (stale 39) but added a fourth memory to the spec's quick-start context; 0.10 and 0.20 as the floor measured no
    better. LoCoMo, whose questions' words always find memories, is unchanged."""
    goals: int = 10
    """Open goals shown in the context's goal section (they come on top of ``limit``)."""
    lexical_weight: float = 1.0
    """RRF weight of the lexical ranking (query terms weighted by IDF, plus the graph signal when on)."""
    dense_weight: float | None = None
    """Weight of the vector signal; None: for a semantic embedder 0.5 with "sum" fusion (0.3-0.7 measured
    alike, 2.0 far worse) and 1.0 with "rrf"; 0 for a lexical embedder (the offline embedder hashes the
    words the lexical ranking counts, and weighing it in lowered recall@10 on LoCoMo from 0.667 to 0.652;
    its matches still join the list, after the others)."""
    entity_terms: bool = True
    """Count a named entity of the question (``e:...``) when its words are not already counted as words."""
    related_entity_weight: float = 0.5
    """Weight of an entity the user's entity graph relates to one the question names, relative to the name."""
    graph_weight: float = 0.7
    """beta: a memory gains beta x (its strongest linked seed's lexical score x the link's weight)."""
    graph_seeds: int = 10
    """How many of the best lexical candidates pass their score on along their links."""
    context_link_weight: float = 1.0
    """The weight a ``follows`` link (an event and the one just before it in its session) carries in ranking."""
    linked_share_words: bool = True
    """A memory that only an automatic association (``related_to``, or ``follows`` within a session) brings or
    lifts must share a word or name with the question (a name every memory carries counts here), unless
    the link is to the turn just before or after (a reply is read with its question even when it repeats
    none of its words). Typed links and links a person made are followed as they are. On the LoCoMo development split (parts A / B) this
    raised open-domain R@10 by 0.023 on both parts and lowered no category."""
    session_weight: float = 0.1
    """Without links followed (``links=0``): a lexical candidate gains this share of the best score of another
    candidate of its session, among the :data:`~kioko_core.recall.coherence.SESSION_POOL` best (a question's
    evidence seldom stands alone in its session; see :mod:`~kioko_core.recall.coherence`). On the LoCoMo
    development split it raised R@10 from 0.619 to 0.655 (A 0.595 -> 0.627, B 0.639 -> 0.679) and lowered no
    category; with links followed, the links already carry a strong match's score to its session's turns, and
    both together lowered multi-hop and open-domain R@10 (0.396 -> 0.393, 0.403 -> 0.392), so it is off there.
    0 turns it off."""
    period_weight: float = 1.0
    """Without links followed (``links=0``): a question that names a month or a year ("in July", "in December
    2023", "on May 3, 2023") raises each of the :data:`~kioko_core.recall.coherence.SESSION_POOL` best matches
    written in that period by this share of the best match's score. On the LoCoMo development split it raised
    R@10 0.655 -> 0.668 (A 0.627 -> 0.644, B 0.679 -> 0.688; temporal 0.829 -> 0.835, single-hop 0.713 ->
    0.734) and lowered no category. 0 turns it off."""
    session_mates: int = 3
    """Without links followed (``links=0``): the sessions of this many of the best matches lend their other memories
    that share a word with the question to the candidates, scored by their own words (the session signal then
    lifts them): a question's evidence that holds one of its words sits among the session's stronger matches,
    while past a few thousand memories hundreds of memories elsewhere hold that word too and the evidence is no
    longer among the :data:`~kioko_core.recall.coherence.SESSION_POOL` best (see
    :func:`~kioko_core.recall.coherence.session_mates`). 0 turns it off."""
    speaker_weight: float = 1.0
    """Without links followed (``links=0``): among the best lexical matches, a memory said by a person the question
    names (it opens with their name and a colon, "Caroline: ...") gains this much, in the lexical ranking's units
    (a word held by one memory in a thousand weighs about 6.6): of memories holding the same words, what the person
    asked about said goes first (:func:`~kioko_core.recall.coherence.spoken_by_named`). On the LoCoMo development
    split it raised R@10 0.668 -> 0.684 (A 0.644 -> 0.654, B 0.688 -> 0.709) and R@5 0.597 -> 0.626, no category
    lower. 0 turns it off."""
    repeat_share: float = 0.4
    """A memory at least this share of whose word runs (three words in a row; at least six of them) are in a memory
    chosen before it is a repeat: it takes a place only when no other match is left for it
    (:mod:`~kioko_core.recall.repeats`). On ``benchmarks/user_scale.py`` (conversation 26 at 10,000 memories) 0.5
    raised R@10 0.463 -> 0.498 and 0.4 (with ``session_mates``) to 0.518; the LoCoMo development split is unchanged
    at R@10 (0.668 / 0.680) at either, 0.35 lowered part A's ``links=0`` R@10 (0.644 -> 0.643). 0 turns it off."""
    repeat_pool: int = 100
    """Without links followed (``links=0``): how many of the best lexical matches are read, so that the places the
    repeats leave in the pool of ``candidates`` are filled by other memories (the session and period signals
    still read the :data:`~kioko_core.recall.coherence.SESSION_POOL` best). 0: the pool is cut as before. 100 at
    100,000 memories: R@10 0.448 at 2.1x the CPU of a recall at 1,000; 300: 0.455 at 8x (docs/recall.md)."""
    distinct_read: int = 0
    """Without links followed (``links=0``): how many of the best lexical matches may be read so that the
    :data:`~kioko_core.recall.coherence.SESSION_POOL` best, which the session, period and mates signals read, are
    distinct memories: when repeats (:mod:`~kioko_core.recall.repeats`) hold places there, the matches past them are
    read and a repeat of a better match gives its place to the next one. Past tens of thousands of memories one
    common word of a question ties hundreds of memories, many repeating each other, and the pool is cut among the
    tied by their ids, so a question's evidence seldom makes it. On ``benchmarks/user_scale.py``'s fill
    (conversation 26, SQLite) 200 raised R@10 0.617 / 0.525 / 0.479 -> 0.617 / 0.545 / 0.504 at 1,000 / 10,000 /
    100,000 memories (0.777x -> 0.817x), the held-out conversation 30 0.669 / 0.626 -> 0.669 / 0.638, LoCoMo the same
    in every figure; but a recall's CPU at 100,000 went about 3.5 -> 12 ms (the extra records read, and compared),
    against 1.8 -> 2.4 ms at 1,000, so it is off by default (docs/recall.md). 0 (or at most the pool): off."""
    when_weight: float = 0.3
    """A question that asks for a time ("when did ...", "how long ...": :data:`~kioko_core.reading.query_and_draft.ASKS_WHEN`):
    a memory found for it whose text tells a time ("yesterday", "last week", "two weeks ago", a month or a year:
    :data:`~kioko_core.reading.query_and_draft.TELLS_TIME`) gains this much, in units of the best lexical match (with "rrf"
    fusion: of one first rank). "When did she go to the support group?" is answered by "I went to a support
    group yesterday", not by the other turns about the group. On the LoCoMo development split (parts A / B,
    links=3) 0.3 raised temporal R@5 by 0.052 / 0.006 and lowered no category at R@10 (docs/recall.md); 0
    turns it off."""
    budget: int | None = context_budget.DEFAULT_BUDGET
    """Tokens the context's text may take (counted as :func:`~kioko_core.recall.budget.count_tokens` does);
    what gives way first is :data:`~kioko_core.recall.budget.PRIORITY`; None: no budget. ``recall(...,
    budget=N)`` sets it for one call."""
    fusion: str = "sum"
    """How the rankings are joined: "sum" (each signal's scores divided by its best candidate's, weighted and
    added; the graph starts from that sum) or "rrf" (weighted reciprocal ranks of the lexical+graph and the
    vector rankings). With the semantic embedder "sum" gave R@10 0.709 on LoCoMo, "rrf" 0.699; with the
    offline one they tie (0.676 / 0.678)."""

    def __post_init__(self) -> None:
        context_budget.check_budget(self.budget, "recall budget")
        if self.fusion not in ("sum", "rrf"):
            raise InvalidRecordError(f"recall fusion must be 'sum' or 'rrf', got {self.fusion!r}")
        for name in ("candidates", "limit", "goals", "graph_seeds", "repeat_pool", "session_mates", "distinct_read"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int)
                or value < (0 if name in ("goals", "repeat_pool", "session_mates", "distinct_read") else 1)
            ):
                raise InvalidRecordError(f"recall {name} must be a positive integer, got {value!r}")
        for name in (
            "min_vector_only",
            "min_vector_fill",
            "lexical_weight",
            "dense_weight",
            "related_entity_weight",
            "graph_weight",
            "context_link_weight",
            "when_weight",
            "session_weight",
            "period_weight",
            "speaker_weight",
            "repeat_share",
        ):
            value = getattr(self, name)
            if value is None and name == "dense_weight":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise InvalidRecordError(f"recall {name} must be a finite number >= 0, got {value!r}")

    @classmethod
    def build(cls, options: RecallConfig | dict[str, Any] | None = None, **more: Any) -> RecallConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        # checked before dataclasses.replace, which would raise a bare TypeError for a misspelt option
        unknown = set(more) - known
        if isinstance(options, RecallConfig):
            if unknown:
                raise InvalidRecordError(f"unknown recall option(s) {sorted(unknown)}; known: {sorted(known)}")
            return dataclasses.replace(options, **more) if more else options
        values = {**(options or {}), **more}
        unknown = set(values) - known
        if unknown:
            raise InvalidRecordError(f"unknown recall option(s) {sorted(unknown)}; known: {sorted(known)}")
        return cls(**values)


@dataclasses.dataclass(frozen=True)
class RecallOptions:
    """What recall may be told besides the query and the scope (each None: the layer's default).

    ``links``: how many of the memories may come only through a link (0 turns the graph off);
    ``limit``: how many memories (default 8); ``include_shared``: add the shared knowledge base;
    ``config``: :class:`RecallConfig` fields changed for the call (a RecallConfig or a
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
