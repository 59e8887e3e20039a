"""The kinds of memory, in one table: what each is called, how it is stored, whether it links, where it shows.

Every module that needs a fact about a kind reads it here: the layer (which ``memory_type`` values it
accepts, which kinds it links), the managers (which attribute of the layer holds each), the links and
the linker (the noun a kind goes by in link lines and the priors), recall (the context section).

=============  ===========  ===================  =====  ==========  ================================
kind           noun         manager attribute    links  section     also accepted as ``memory_type``
=============  ===========  ===================  =====  ==========  ================================
factual        fact         facts                yes    memories    fact
preference     preference   preferences          yes    memories
episodic       event        episodes             yes    memories    episode, event
semantic       knowledge    knowledge            yes    memories    knowledge
goal           goal         goals                yes    goals
procedural     procedure    procedures           yes    procedures  procedure
skill          skill        skills               yes    skills
strategy       lesson       strategies, lessons  yes    lessons     lesson
decision       decision     decisions            yes    decisions
insight        insight      insights             yes    memories
summary        insight      summaries            yes    memories
instruction    instruction  instructions         no     memories
working        working      working              no     memories
profile        profile      profile              no     memories
=============  ===========  ===================  =====  ==========  ================================

``kind`` is what :class:`~kioko_core.store.Record` stores; an alias is only ever an input spelling
(``memory.add(..., memory_type="fact")`` stores ``factual``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import InvalidRecordError


@dataclass(frozen=True)
class KindInfo:
    """One kind of memory."""

    name: str
    """The stored ``Record.kind`` ("factual")."""
    noun: str
    """What it is called in link lines and the priors table ("fact")."""
    manager: str
    """The attribute of :class:`~kioko_core.layer.MemoryLayer` that manages it ("facts")."""
    links: bool
    """Whether the linker links it (instructions, profile slots and working memory never link)."""
    section: str
    """The section of a recalled context it is shown in ("memories", "decisions" ...)."""
    aliases: tuple[str, ...] = ()
    """Other ``memory_type`` spellings accepted for it."""
    semantic: bool = False
    """What someone knows (facts, preferences, knowledge, insights) rather than did or plans: it *informs*."""
    manager_aliases: tuple[str, ...] = ()
    """Further attributes of the layer for the same manager (``lessons`` for ``strategies``)."""


KINDS: tuple[KindInfo, ...] = (
    KindInfo("factual", "fact", "facts", True, "memories", ("fact",), semantic=True),
    KindInfo("preference", "preference", "preferences", True, "memories", semantic=True),
    KindInfo("episodic", "event", "episodes", True, "memories", ("episode", "event")),
    KindInfo("semantic", "knowledge", "knowledge", True, "memories", ("knowledge",), semantic=True),
    KindInfo("goal", "goal", "goals", True, "goals"),
    KindInfo("procedural", "procedure", "procedures", True, "procedures", ("procedure",)),
    KindInfo("skill", "skill", "skills", True, "skills"),
    KindInfo("strategy", "lesson", "strategies", True, "lessons", ("lesson",), manager_aliases=("lessons",)),
    KindInfo("decision", "decision", "decisions", True, "decisions"),
    KindInfo("insight", "insight", "insights", True, "memories", semantic=True),
    KindInfo("summary", "insight", "summaries", True, "memories", semantic=True),
    KindInfo("instruction", "instruction", "instructions", False, "memories"),
    KindInfo("working", "working", "working", False, "memories"),
    KindInfo("profile", "profile", "profile", False, "memories"),
)

_BY_NAME = {info.name: info for info in KINDS}
_BY_SPELLING = {**{alias: info for info in KINDS for alias in info.aliases}, **_BY_NAME}

MEMORY_TYPES: frozenset[str] = frozenset(_BY_NAME)
"""Every stored kind."""
LINKABLE_KINDS: frozenset[str] = frozenset(info.name for info in KINDS if info.links)
"""The kinds the linker links."""
KIND_NOUNS: dict[str, str] = {info.name: info.noun for info in KINDS if info.links}
"""Linked kind -> its noun (the link lines' and the priors' vocabulary)."""
SEMANTIC_NOUNS: frozenset[str] = frozenset(info.noun for info in KINDS if info.semantic)


def kind_info(memory_type: str) -> KindInfo:
    """The kind ``memory_type`` names (its stored name or an alias); :class:`InvalidRecordError` otherwise."""
    info = _BY_SPELLING.get(memory_type) if isinstance(memory_type, str) else None
    if info is None:
        raise InvalidRecordError(
            f"unknown memory_type {memory_type!r}; use one of {sorted(MEMORY_TYPES)} "
            f"(or {', '.join(sorted(set(_BY_SPELLING) - MEMORY_TYPES))})"
        )
    return info


def canonical_kind(memory_type: str) -> str:
    """The stored name of ``memory_type``: ``canonical_kind("fact") == "factual"``."""
    return kind_info(memory_type).name


def noun(kind: str) -> str:
    """What a stored kind is called in link lines ("factual" -> "fact"); an unknown kind is its own noun."""
    info = _BY_NAME.get(kind)
    return info.noun if info is not None else kind


def section_of(kind: str) -> str:
    """The context section a stored kind is shown in ("decision" -> "decisions"); "memories" by default."""
    info = _BY_NAME.get(kind)
    return info.section if info is not None else "memories"


# --------------------------------------------------------------------------- priors (linking, step 4)

_PRIORS: dict[frozenset[str], float] = {
    frozenset(pair): value
    for pair, value in [
        (("decision", "goal"), 1.00),
        (("lesson", "procedure"), 1.00),
        (("lesson", "skill"), 0.90),
        (("lesson", "event"), 0.90),
        (("event", "procedure"), 0.90),
        (("event", "insight"), 0.90),
        (("procedure", "goal"), 0.85),
        (("event", "goal"), 0.85),
        (("event", "event"), 0.85),
        (("event", "decision"), 0.85),
        (("knowledge", "procedure"), 0.85),
        (("knowledge", "decision"), 0.85),
        (("procedure", "skill"), 0.85),
        (("lesson", "decision"), 0.85),
        (("goal", "goal"), 0.80),
        (("decision", "decision"), 0.80),
        (("decision", "procedure"), 0.80),
        (("skill", "goal"), 0.70),
        (("fact", "goal"), 0.70),
        (("lesson", "goal"), 0.70),
        (("insight", "goal"), 0.70),
    ]
}


def prior(a: str, b: str) -> float:
    """prior(noun a, noun b), symmetric: how plausible a link between the two kinds is before any evidence.

    Pairs the spec gives as a range get its middle: preferences 0.50, other pairs with a semantic kind
    0.70 ("facts, knowledge and the rest: 0.60 - 0.75"), everything else 0.60.
    """
    pair = frozenset((a, b))
    if pair in _PRIORS:
        return _PRIORS[pair]
    if "preference" in pair:
        return 0.50
    if pair & SEMANTIC_NOUNS:
        return 0.70
    return 0.60


__all__ = [
    "KINDS",
    "KIND_NOUNS",
    "KindInfo",
    "LINKABLE_KINDS",
    "MEMORY_TYPES",
    "SEMANTIC_NOUNS",
    "canonical_kind",
    "kind_info",
    "noun",
    "prior",
    "section_of",
]
