"""The kinds of memory, in one table: what each is called, how it is stored, whether it links, where it shows.

Every module that needs a fact about a kind reads it here: the layer (which ``memory_type`` values it
accepts, which kinds it links), the managers (which attribute of the layer holds each, and which class
manages it: :data:`kioko_core.kinds.MANAGERS`), the links and the linker (the noun a kind goes by in link
lines and the priors), recall (the context section), the intelligence (the operation kind that names it,
its actions and its starting importance: ``kioko_intelligence.ops.OPERATIONS``, :func:`kind_of`), the service's
``GET /v1/kinds`` (which the console reads) and the graph page (the display colour).

Each row also says what a person calls the kind (``called``: the managers' messages and the console) and
whether it is held by key (profile slots, working memory), and its supersede policy (whether it holds a
current value, states the user's own, is given values by its operation's add, is restated by a correction: read by
``kioko_intelligence.slots``). The table below shows the main columns.

=============  ===========  ===================  =====  ==========  ==================  ===========  ============
kind           noun         manager attribute    links  section     also ``memory_type``  operation    manager class
=============  ===========  ===================  =====  ==========  ==================  ===========  ============
factual        fact         facts                yes    memories    fact                fact         Facts
preference     preference   preferences          yes    memories                        preference   Preferences
episodic       event        episodes             yes    memories    episode, event      episode      Episodes
semantic       knowledge    knowledge            yes    memories    knowledge           knowledge    Knowledge
goal           goal         goals                yes    goals                           goal         Goals
procedural     procedure    procedures           yes    procedures  procedure           procedure    Procedures
skill          skill        skills               yes    skills                          skill        Skills
strategy       lesson       strategies, lessons  yes    lessons     lesson              strategy     Strategies
decision       decision     decisions            yes    decisions                       decision     Decisions
insight        insight      insights             yes    memories                        insight      Insights
summary        insight      summaries            yes    memories                                     Summaries
instruction    instruction  instructions         no     memories                        instruction  Instructions
working        working      working              no     memories                        working      WorkingMemory
profile        profile      profile              no     memories                        profile      Profile
=============  ===========  ===================  =====  ==========  ==================  ===========  ============

``kind`` is what :class:`~kioko_core.store.Record` stores; an alias is only ever an input spelling
(``memory.add(..., memory_type="fact")`` stores ``factual``).
"""

from __future__ import annotations

from dataclasses import dataclass

from kioko_core.errors import InvalidRecordError


@dataclass(frozen=True)
class KindInfo:
    """One kind of memory."""

    name: str
    """The stored ``Record.kind`` ("factual")."""
    noun: str
    """What it is called in link lines and the priors table ("fact")."""
    manager: str
    """The attribute of :class:`~kioko_core.layer.memory_layer.MemoryLayer` that manages it ("facts")."""
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
    manager_class: str = "TextManager"
    """The class in :mod:`kioko_core.kinds` that manages it (``"Goals"``); a class of its own kind, or
    ``"TextManager"``, which manages whatever kind its row names."""
    op: str | None = None
    """The kind an operation of the intelligence names it by (``"fact.add"``, ``"episode.add"``), or None
    when no operation writes it (summaries are maintenance's)."""
    actions: tuple[str, ...] = ("add", "update", "delete")
    """What an operation of this kind may do (``"goal.progress"``): the spec's table "The operations"."""
    importance: float = 0.6
    """The importance the router starts a new memory of this kind at, before the turn's own cues."""
    called: str = ""
    """What its manager calls it in messages and the console shows (the noun when empty): an episode is an
    "event" in link lines but "episode" to a person, a summary an "insight" in link lines but "summary"."""
    colour: str = "#9aa0a6"
    """Its colour on the console and the graph page."""
    keyed: bool = False
    """Held by key rather than by text (profile slots, working memory): no text routes, no ``memory_type``."""
    holds_value: bool = False
    """Holds a current value of a slot (the user's editor, the report's due date): a newer value of the same
    slot supersedes it (``kioko_intelligence.slots``)."""
    users_own: bool = False
    """States the user's own value (a fact, a preference, a decision ...): a turn naming the old value alone
    finds it, where knowledge or an event that merely names the value is no value of the user's."""
    gives_values: bool = False
    """Its operation's ``add`` may give a slot a newer value (what the supersede rules read a turn's adds for)."""
    restated: bool = False
    """A correction or a change the router kept nothing of is written as a new memory of its own operation
    (a decision is superseded instead, a profile slot set, an event never restated)."""

    def __post_init__(self) -> None:
        if not self.called:
            object.__setattr__(self, "called", self.noun)


# fmt: off
KINDS: tuple[KindInfo, ...] = (
    KindInfo("factual", "fact", "facts", True, "memories", ("fact",), semantic=True, manager_class="Facts", op="fact",
             actions=("add", "update", "delete", "verify"), colour="#4e79a7", holds_value=True, users_own=True,
             gives_values=True, restated=True),
    KindInfo("preference", "preference", "preferences", True, "memories", semantic=True, manager_class="Preferences",
             op="preference", colour="#f28e2b", holds_value=True, users_own=True, gives_values=True, restated=True),
    KindInfo("episodic", "event", "episodes", True, "memories", ("episode", "event"), manager_class="Episodes",
             op="episode", actions=("add", "delete"), importance=0.45, called="episode", colour="#e15759",
             holds_value=True, gives_values=True),
    KindInfo("semantic", "knowledge", "knowledge", True, "memories", ("knowledge",), semantic=True,
             manager_class="Knowledge", op="knowledge", importance=0.55, colour="#76b7b2", holds_value=True,
             gives_values=True, restated=True),
    KindInfo("goal", "goal", "goals", True, "goals", manager_class="Goals", op="goal",
             actions=("add", "update", "progress", "complete", "drop", "delete"), importance=0.75, colour="#59a14f",
             holds_value=True, users_own=True, gives_values=True, restated=True),
    KindInfo("procedural", "procedure", "procedures", True, "procedures", ("procedure",), manager_class="Procedures",
             op="procedure", actions=("add", "outcome", "delete"), importance=0.7, colour="#edc948",
             holds_value=True, users_own=True, gives_values=True, restated=True),
    KindInfo("skill", "skill", "skills", True, "skills", manager_class="Skills", op="skill", actions=("outcome",),
             colour="#b07aa1"),
    KindInfo("strategy", "lesson", "strategies", True, "lessons", ("lesson",), manager_aliases=("lessons",),
             manager_class="Strategies", op="strategy", actions=("add", "outcome", "delete"), importance=0.7,
             colour="#ff9da7", holds_value=True, restated=True),
    KindInfo("decision", "decision", "decisions", True, "decisions", manager_class="Decisions", op="decision",
             actions=("add", "supersede", "outcome", "delete"), importance=0.75, colour="#9c755f",
             holds_value=True, users_own=True, gives_values=True),
    KindInfo("insight", "insight", "insights", True, "memories", semantic=True, manager_class="Insights", op="insight",
             actions=("add",), colour="#bab0ac"),
    KindInfo("summary", "insight", "summaries", True, "memories", semantic=True, manager_class="Summaries",
             actions=(), called="summary", colour="#8cd17d"),
    KindInfo("instruction", "instruction", "instructions", False, "memories", manager_class="Instructions",
             op="instruction", importance=0.8, colour="#86bcb6", holds_value=True, users_own=True,
             gives_values=True, restated=True),
    KindInfo("working", "working", "working", False, "memories", manager_class="WorkingMemory", op="working",
             actions=("set", "remove", "promote"), importance=0.5, colour="#d4a6c8", keyed=True),
    KindInfo("profile", "profile", "profile", False, "memories", manager_class="Profile", op="profile",
             actions=("set", "remove"), importance=0.7, colour="#a0cbe8", keyed=True,
             holds_value=True, users_own=True),
)
# fmt: on
"""The one table of kinds: adding a kind is adding a row (``manager_class="TextManager"`` for a kind whose
memory is just its text), plus its property, rendered by ``python tests/managers_source.py --write``."""

_BY_NAME = {info.name: info for info in KINDS}
_BY_SPELLING = {**{alias: info for info in KINDS for alias in info.aliases}, **_BY_NAME}

MEMORY_TYPES: frozenset[str] = frozenset(_BY_NAME)
"""Every stored kind."""
LINKABLE_KINDS: frozenset[str] = frozenset(info.name for info in KINDS if info.links)
"""The kinds the linker links."""
KIND_NOUNS: dict[str, str] = {info.name: info.noun for info in KINDS if info.links}
"""Linked kind -> its noun (the link lines' and the priors' vocabulary)."""
SEMANTIC_NOUNS: frozenset[str] = frozenset(info.noun for info in KINDS if info.semantic)
OP_KINDS: dict[str, str] = {info.op: info.name for info in KINDS if info.op}
"""Operation kind -> the stored kind ("fact" -> "factual"): what the intelligence's operations name."""


_BY_OP = {info.op: info for info in KINDS if info.op}
_BY_CLASS = {info.manager_class: info for info in KINDS if info.manager_class != "TextManager"}


def kind_of(op_kind: str) -> str:
    """The stored kind an operation's kind names: ``kind_of("fact") == "factual"``; KeyError for a kind no
    operation names (what the intelligence reads instead of spelling stored kinds)."""
    return _BY_OP[op_kind].name


def op_of(kind: str) -> str | None:
    """The operation kind that names a stored kind (``op_of("episodic") == "episode"``), None when none does."""
    info = _BY_NAME.get(kind)
    return info.op if info is not None else None


def row_of_class(class_name: str) -> KindInfo | None:
    """The row that names ``class_name`` as its manager class (a manager class takes its kind from it)."""
    return _BY_CLASS.get(class_name)


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


# --------------------------------------------------------------------------- link types (linking, step 6)

PAIR_TYPES: dict[tuple[str, str], str] = {
    **{(means, "goal"): "serves" for means in ("decision", "procedure", "skill")},
    ("event", "goal"): "advances",
    **{(known, "goal"): "informs" for known in ("knowledge", "fact", "preference", "insight", "lesson")},
    **{("lesson", done): "refines" for done in ("procedure", "skill", "decision")},
    ("lesson", "event"): "learned_from",
    ("procedure", "event"): "applies_to",
    ("skill", "event"): "applies_to",
    ("event", "decision"): "informs",
    **{
        (known, used): "informs"
        for known in sorted(SEMANTIC_NOUNS)
        for used in ("decision", "procedure", "skill", "lesson")
    },
}
"""(source noun, target noun) -> the type of the link, where the two kinds alone decide it (the spec's step 6).
An event and a goal: "advances" when the event reads as progress, "concerns" otherwise (the linker reads the
event's text: :func:`kioko_core.linking.scoring.link_type`); two events: by their texts and sessions."""

MEANS: frozenset[str] = frozenset(
    x for (x, y), kind in PAIR_TYPES.items() if y == "goal" and kind in ("serves", "advances")
)
"""Nouns of what serves a goal: a bridge alone is evidence enough between one of these and a goal."""


__all__ = [
    "KINDS",
    "KIND_NOUNS",
    "KindInfo",
    "LINKABLE_KINDS",
    "MEANS",
    "PAIR_TYPES",
    "MEMORY_TYPES",
    "OP_KINDS",
    "SEMANTIC_NOUNS",
    "canonical_kind",
    "kind_info",
    "kind_of",
    "op_of",
    "row_of_class",
    "noun",
    "prior",
    "section_of",
]
