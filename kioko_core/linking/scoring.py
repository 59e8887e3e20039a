"""The linker's pure scoring (spec section 3, steps 3-6): signals, score, gate, type and why for a pair.

Nothing here reads or writes a store: each function takes the two memories as :class:`Side` values and
the term statistics as :class:`Stats`, so the rules can be read and tested on their own. The I/O (which
candidates to load, the statistics to fetch, what to store) is :class:`~kioko_core.linking.linker.MemoryLinker`'s.

:func:`vote` is the candidate nomination both the linker and recall use: every salient term votes its
weight for each memory its postings list.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from math import log
from typing import Any, Protocol

from kioko_core.kinds.registry import MEANS, PAIR_TYPES, noun, prior
from kioko_core.linking.index import ENTITY_BOOST, VIRTUAL_MEMORIES, Voting, is_hub, nominates, term_weight
from kioko_core.linking.term_rows import top_k
from kioko_core.reading.analysis import Analysis, cues_of
from kioko_core.store import Record, cosine

TWO_HOURS = 7200.0


class ScoringConstants(Protocol):
    """The constants scoring reads (a :class:`~kioko_core.linking.linker.LinkerConfig` has them)."""

    h: float
    """The similarity scale of the sem signal (the ranker's min_vector_only)."""


# --------------------------------------------------------------------------- candidates (step 2)


def vote(
    terms: Iterable[str],
    postings: Mapping[str, Sequence[str]],
    weight: Callable[[str], float],
    limit: int,
    *,
    nominates: Callable[[str], bool] | None = None,
    exclude: str | None = None,
) -> list[tuple[str, float]]:
    """The ``limit`` ids with the most votes, best first (ties by id): each term votes ``weight(term)`` for every id in
    ``postings[term]``.

    ``nominates(term)`` False skips a term (a hub, or a term too rare to say anything); ``exclude`` is an id
    that never gets a vote (the memory being linked). A term given twice votes twice.
    """
    votes: dict[str, float] = {}
    tally = votes.get
    for term in terms:
        if nominates is not None and not nominates(term):
            continue
        value = weight(term)
        for memory_id in postings.get(term, ()):
            votes[memory_id] = tally(memory_id, 0.0) + value
    # the excluded id leaves at the end rather than being tested in the loop (thousands of ids a write); the
    # ranking is by (votes, id), so where it stood in the dict changes nothing
    if exclude is not None:
        votes.pop(exclude, None)
    if len(votes) > limit > 0:
        # the votes of the limit-th best decide: every id above it is in, those at it compete by id (a sort of the
        # floats alone, then of the few kept, instead of a Python key call per id)
        cut = sorted(votes.values(), reverse=True)[limit - 1]
        kept = [kv for kv in votes.items() if kv[1] >= cut]
        kept.sort(key=lambda kv: (-kv[1], kv[0]))
        return kept[:limit]
    return heapq.nsmallest(limit, votes.items(), key=lambda kv: (-kv[1], kv[0]))


FEW_POSTINGS = 300
"""Below this many postings in all, :func:`vote_rows` sums them in Python (:func:`vote`, the same answer): numpy's
fixed cost per call is more than the loop's there (a single linked write into a few thousand memories votes over
about 200: 0.19 ms a write through ``top_k`` against 0.07 ms through ``vote``, benchmarks/linked_write_split.py)."""


def vote_rows(
    terms: list[str], found: Voting, stats: Stats, limit: int, exclude: str, few: int = FEW_POSTINGS
) -> list[str]:
    """:func:`vote`'s ``limit`` best ids (``exclude`` never among them) over the looked-up postings of ``terms``,
    summed over their rows in C (:func:`top_k`, the same floats and order as ``vote``'s): a write's vote walked
    up to 200 ids a term in Python, a tenth of a linked import's CPU past 40,000 memories. Asked for one more than
    ``limit``: ``exclude`` (a memory linked again is in its own postings) leaves the list afterwards. Which terms
    nominate is judged on ``stats`` (n and df as they will be once this write lands), as the weights are. Fewer
    than ``few`` postings in all are summed by :func:`vote` itself."""
    n, df, rows = stats.n, stats.df, found.rows
    # a term has no rows only where the scope holds nothing (no ids either)
    voting = [t for t in terms if t in rows and nominates(df.get(t, 0), n)]
    if sum(len(rows[t]) for t in voting) < few:
        return [i for i, _ in vote(voting, found.ids, stats.w, limit, exclude=exclude)]
    ranked = [i for i, _ in top_k(found.table, [(rows[t], stats.w(t)) for t in voting], limit + 1) if i != exclude]
    return ranked[:limit]


# --------------------------------------------------------------------------- evidence (step 3)


@dataclass
class Side:
    """One memory as the linker sees it: its record, salient terms and entities, and cue words."""

    record: Record
    terms: list[str]
    entities: list[str]
    surface: dict[str, str] = field(default_factory=dict)
    # read about ten times per scored pair (type, prior, gate, signals): derived once per side, when it is made
    # (set here rather than as cached properties, whose first read per side cost more than the read itself)
    noun: str = field(init=False, repr=False, compare=False)
    term_set: frozenset[str] = field(init=False, repr=False, compare=False)
    entity_set: frozenset[str] = field(init=False, repr=False, compare=False)
    _cues: tuple[bool, bool, bool] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.noun = noun(self.record.kind)
        self.term_set = frozenset(self.terms)
        self.entity_set = frozenset(self.entities)

    def cues(self) -> tuple[bool, bool, bool]:
        """(a fix, a problem, progress) named in the memory's text: read once per side, not once per pair."""
        if self._cues is None:
            self._cues = cues_of(self.record.content)
        return self._cues

    @classmethod
    def of(cls, record: Record, analysis: Analysis | None = None) -> Side:
        if analysis is not None:
            terms = [t for t in analysis.terms if t.startswith(("e:", "t:"))]  # a shared number ("3", "2022") is
            # too common to link two memories on; recall still matches it (``n:`` terms)
            return cls(record, terms, list(analysis.entities), analysis.surface)
        terms = [t for t in record.terms if t.startswith(("e:", "t:"))]
        return cls(record, terms, [t[2:] for t in terms if t.startswith("e:")])

    @classmethod
    def of_stored(cls, record: Record) -> Side:
        """``Side.of(record)``, derived once per record and kept with it: the linker scores the same cached neighbours
        write after write. What it derives (terms, entities, noun, cues) is kept in the record's private attributes
        with the very ``terms`` list and ``content`` string it was derived from and the kind: a copy that keeps them
        (``model_copy`` / ``record_copy`` keep private attributes: a neighbour's copy with a link more, the held
        batch's versions, the layer's relinked record) uses it too; one whose terms, text or kind were replaced
        derives its own. Nothing kept refers to the record, so a record and its derivation are no cycle: a record
        let go is freed at once, without the cycle collector (an import otherwise held every record it let go until
        a full collection: 14 GB at 100,000 memories)."""
        # the private attributes' dict read directly: pydantic's attribute lookup for a private name was a tenth of
        # scoring a candidate
        private = record.__pydantic_private__
        held = private.get("_side") if private is not None else None
        if held is not None and held[0] is record.terms and held[1] is record.content and held[2] == record.kind:
            side = cls.__new__(cls)
            side.__dict__ = {**held[3], "record": record}
            return side
        side = cls.of(record)
        if private is not None:
            side.cues()  # derived now, so every later use of this record shares it
            derived = {k: v for k, v in vars(side).items() if k != "record"}
            private["_side"] = (record.terms, record.content, record.kind, derived)
        return side


class _Weights(dict[str, float]):
    """w(t) of every term asked, computed at its first reading (``weights[term]``) from the statistics' df and n:
    the sums below read it with ``map``, without a Python call per term once a term is known."""

    __slots__ = ("df", "n")

    def __init__(self, df: dict[str, int], n: int) -> None:
        super().__init__()
        self.df, self.n = df, n

    def __missing__(self, term: str) -> float:
        weight = self[term] = term_weight(term, self.df.get(term, 0), self.n)
        return weight


@dataclass
class Stats:
    """n and df for every term the evidence needs, plus the bridge relations of the new memory."""

    n: int
    df: dict[str, int]
    bridges: dict[str, list[tuple[str, Any]]] = field(default_factory=dict)

    _weights: _Weights = field(init=False, repr=False, compare=False)
    _totals: dict[str, float] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._weights = _Weights(self.df, self.n)

    def w(self, term: str) -> float:
        return self._weights[term]

    def weigh(self) -> None:
        """w(t) of every term of ``df`` not weighed yet, in one pass: the idf of each distinct df computed once (a
        write's candidates bring a few hundred terms, most of them with a df shared by many), the same floats as
        :func:`~kioko_core.linking.index.term_weight` gives term by term."""
        weights, n = self._weights, self.n
        # idf() inline (its very arithmetic, so the same floats): a write weighs a hundred distinct counts or more
        common = n >= VIRTUAL_MEMORIES and n > 0
        more = n + VIRTUAL_MEMORIES
        of_df: dict[int, float] = {}
        for term, count in self.df.items():
            if term in weights:
                continue
            value = of_df.get(count)
            if value is None:
                value = of_df[count] = (
                    0.0 if common and count / n > 0.5 else log(1.0 + (more - count + 0.5) / (count + 0.5))
                )
            weights[term] = value * ENTITY_BOOST if term.startswith("e:") else value

    def sum_w(self, terms: Iterable[str]) -> float:
        """The sum of the terms' weights, in order (the same additions as one by one)."""
        return sum(map(self._weights.__getitem__, terms))

    def total(self, side: Side) -> float:
        """W(S): the sum of a memory's term weights, memoised per memory for one write."""
        value = self._totals.get(side.record.id)
        if value is None:
            value = self._totals[side.record.id] = self.sum_w(side.terms)
        return value

    def hub(self, term: str) -> bool:
        return is_hub(self.df.get(term, 0), self.n)


@dataclass
class Evidence:
    """Every signal of one pair (step 3), the combined score (step 4), the gate (step 5) and the type (step 6)."""

    share: float = 0.0
    sem: float = 0.0
    cos: float = 0.0
    bridge: float = 0.0
    time: float = 0.0
    cue: float = 0.0
    raw: float = 0.0
    prior: float = 0.0
    score: float = 0.0
    evidence: bool = False
    type: str = "related_to"
    source_is_first: bool = True
    why: str = ""
    _context: tuple[Any, ...] = field(default=(), repr=False)
    _stats: Any = field(default=None, repr=False)

    def signals(self) -> dict[str, float | bool]:
        return {
            k: getattr(self, k) for k in ("share", "sem", "cos", "bridge", "time", "cue", "raw", "prior", "evidence")
        }


def weak_terms(m: Side, stats: Stats, place_terms: set[str]) -> frozenset[str]:
    """``m``'s terms that are weak common ground (a hub, a place): a share made of them alone is halved. Every
    shared term is one of ``m``'s, so this is asked once per write, not once per candidate."""
    return frozenset(t for t in m.terms if stats.hub(t) or t in place_terms)


def share_signal(
    m: Side, c: Side, stats: Stats, place_terms: set[str], weak: frozenset[str] | None = None
) -> tuple[float, list[str]]:
    """The weight of the terms both share over the smaller memory's total weight, and the shared terms
    (``weak``: :func:`weak_terms` of ``m``, when the caller has it)."""
    theirs = c.term_set
    if theirs.isdisjoint(m.term_set):  # in C: a session's turns often share no term with the memory
        return 0.0, []
    shared = [t for t in m.terms if t in theirs]
    smaller = min(stats.total(m), stats.total(c))
    value = stats.sum_w(shared) / smaller if smaller > 0 else 0.0
    # where something happened (a hub, a line number) is weak common ground: halve once
    if (weak if weak is not None else weak_terms(m, stats, place_terms)).issuperset(shared):
        value /= 2.0
    return min(1.0, value), shared


def bridge_signal(m: Side, c: Side, stats: Stats) -> tuple[float, str]:
    """1.0 (0.4 through a hub) when an entity graph relation joins an entity only one names to one only the other names."""
    best, why = 0.0, ""
    if not stats.bridges:  # the new memory's entities relate to nothing (or it names none)
        return best, why
    mine, theirs = m.entity_set, c.entity_set
    for key, relations in stats.bridges.items():
        for other, triple in relations:
            # an entity only one memory names, related to an entity only the other names
            if key in mine and key not in theirs and other in theirs and other not in mine:
                value = 0.4 if stats.hub("e:" + key) or stats.hub("e:" + other) else 1.0
            elif key in theirs and key not in mine and other in mine and other not in theirs:
                value = 0.4 if stats.hub("e:" + key) or stats.hub("e:" + other) else 1.0
            else:
                continue
            if value > best:
                best, why = value, f"via {triple.line()}"
    return best, why


def event_link_type(m: Side, c: Side) -> tuple[str, bool]:
    """resolves (fix after problem) / follows (same session, later -> earlier) / related_to."""
    a, b = m.record, c.record
    (a_fix, a_problem, _), (b_fix, b_problem, _) = m.cues(), c.cues()
    if a_fix and b_problem and not b_fix and a.created_at >= b.created_at:
        return "resolves", True
    if b_fix and a_problem and not a_fix and b.created_at >= a.created_at:
        return "resolves", False
    if a.session_id and a.session_id == b.session_id:
        return "follows", a.created_at >= b.created_at
    return "related_to", True


def link_type(m: Side, c: Side) -> tuple[str, bool]:
    """Step 6: the type, and whether ``m`` is the link's source."""
    a, b = m.noun, c.noun
    for first, second, flipped in ((m, c, False), (c, m, True)):
        kind = PAIR_TYPES.get((first.noun, second.noun))
        if kind == "advances":  # an event and a goal: progress advances it, anything else concerns it
            fix, problem, progressing = first.cues()
            progress = (progressing or fix) and not problem
            kind = "advances" if progress else "concerns"
        if kind is not None:
            return kind, not flipped
    if a == "event" and b == "event":
        return event_link_type(m, c)
    return "related_to", True


def score_pair(
    m: Side,
    c: Side,
    stats: Stats,
    config: ScoringConstants,
    lexical: bool,
    place_terms: set[str] | None = None,
    with_why: bool = True,
    cos: float | None = None,
    weak: frozenset[str] | None = None,
    share: tuple[float, list[str]] | None = None,
) -> Evidence:
    """Steps 3-6 for one pair: every signal, the score, the gate, the type and the why.

    ``cos`` is the pair's cosine when the caller computed it already (the linker does, for all its
    candidates in one product); None computes it here. ``share``: :func:`share_signal`'s answer, when the caller
    has it.
    """
    places = place_terms if place_terms is not None else set()
    ev = Evidence()
    ev.share, shared = share if share is not None else share_signal(m, c, stats, places, weak)
    if cos is not None:
        ev.cos = cos
    elif m.record.embedding is not None and c.record.embedding is not None:
        ev.cos = cosine(m.record.embedding, c.record.embedding)
    half = config.h / 2.0
    ev.sem = min(1.0, max(0.0, (ev.cos - half) / half))
    ev.bridge, bridge_why = bridge_signal(m, c, stats)
    a, b = m.record, c.record
    same_session = bool(a.session_id) and a.session_id == b.session_id
    apart = abs(a.created_at - b.created_at)
    ev.time = (1.0 if apart <= TWO_HOURS else 0.5) if same_session else 0.0
    ev.type, ev.source_is_first = link_type(m, c)
    ev.cue = 1.0 if ev.type == "resolves" and same_session and apart <= TWO_HOURS and shared else 0.0
    omega = 0.25 if lexical else 0.5
    ev.raw = 1.0 - (
        (1 - 0.8 * ev.share) * (1 - omega * ev.sem) * (1 - 0.6 * ev.bridge) * (1 - 0.35 * ev.time) * (1 - 0.5 * ev.cue)
    )
    ev.prior = prior(m.noun, c.noun)
    ev.score = ev.prior * ev.raw
    source, target = (m, c) if ev.source_is_first else (c, m)
    means_to_end = source.noun in MEANS and target.noun == "goal"
    ev.evidence = (
        ev.share >= 0.30
        or ev.cos >= config.h + (1 - config.h) / 2
        or (ev.bridge == 1.0 and means_to_end)
        or ev.cue == 1.0
        or (ev.share >= 0.15 and (ev.sem >= 0.5 or ev.time == 1.0 or ev.bridge > 0))
    )
    only_graph = ev.bridge > 0 and ev.share < 0.15 and ev.time == 0 and ev.sem < 0.5
    if only_graph and not means_to_end:
        ev.type, ev.source_is_first = "related_to", True  # the type says no more than the evidence
    ev.why = explanation(m, shared, ev, bridge_why, apart, stats) if with_why else ""
    ev._context = (shared, bridge_why, apart)
    return ev


def score_candidates(
    m: Side,
    sides: Sequence[Side],
    cosines: Sequence[float | None],
    stats: Stats,
    config: ScoringConstants,
    lexical: bool,
    place_terms: set[str] | None = None,
) -> list[Evidence]:
    """:func:`score_pair` of ``m`` with every side of ``sides`` (``cosines`` theirs with ``m``, in order), without
    their explanations (:func:`explain_chosen` writes those of the links made)."""
    places = place_terms if place_terms is not None else set()
    weak = weak_terms(m, stats, places)
    return [score_pair(m, side, stats, config, lexical, places, False, cos, weak) for side, cos in zip(sides, cosines)]


class Evaluated(dict[str, Evidence]):
    """The evidence of one write's candidates by id (:func:`score_pair` without the why): those whose score may reach
    ``floor`` scored at once, any other the first time it is asked for (``evaluated[id]``; ``get`` and ``in`` see
    only those scored). A link needs a score at or above the threshold, and most candidates a write's vote
    nominates share too little to come near it: their type, bridge and gate were a third of a write's scoring.

    Which candidates wait is decided by a bound of the score computed as :func:`score_pair` computes it, with the
    one signal not yet known, the problem-fix cue (it needs the type), at its largest where it may hold: each factor
    of the bound is at least the score's own, and rounding keeps that order, so a candidate left waiting could
    never have been linked. A candidate whose gate cannot pass waits too (a link also needs evidence): every signal of
    the gate is known before the type but the two that need it (means to an end, the problem-fix cue), taken as
    holding wherever they may. In a linked import about a third of the candidates scored at once were then refused
    at the gate (4.5 of 14.7 a memory over bulk_import.py's first 5,000). A candidate without a given cosine is
    scored at once."""

    def __init__(
        self,
        m: Side,
        sides: Sequence[Side],
        cosines: Sequence[float | None],
        stats: Stats,
        config: ScoringConstants,
        lexical: bool,
        place_terms: set[str] | None,
        floor: float,
    ) -> None:
        super().__init__()
        self._args = (m, stats, config, lexical, place_terms if place_terms is not None else set())
        self._weak = weak_terms(m, stats, self._args[4])
        self._waiting: dict[str, tuple[Side, float | None]] = {}
        for side, cos in zip(sides, cosines):
            share = share_signal(m, side, stats, self._args[4], self._weak)
            if cos is not None and _score_bound(m, side, stats, config, lexical, cos, share) < floor:
                self._waiting[side.record.id] = (side, cos)
            else:
                self[side.record.id] = self._score(side, cos, share)

    def _score(self, side: Side, cos: float | None, share: tuple[float, list[str]] | None) -> Evidence:
        m, stats, config, lexical, places = self._args
        return score_pair(m, side, stats, config, lexical, places, False, cos, self._weak, share)

    def __missing__(self, record_id: str) -> Evidence:
        side, cos = self._waiting.pop(record_id)  # a KeyError for an id that was no candidate, as a dict's
        ev = self[record_id] = self._score(side, cos, None)
        return ev


def _score_bound(
    m: Side, c: Side, stats: Stats, config: ScoringConstants, lexical: bool, cos: float, share: tuple[float, list[str]]
) -> float:
    """At least :func:`score_pair`'s score of the pair (see :class:`Evaluated`): its very arithmetic, the cue taken
    as 1.0 wherever it may be (a shared term, one session, at most two hours apart, a fix in one and a problem in the
    other) whatever the type; 0.0 where its gate cannot pass whatever the type (the pair is never linked)."""
    half = config.h / 2.0
    sem = min(1.0, max(0.0, (cos - half) / half))
    bridge = bridge_signal(m, c, stats)[0]
    a, b = m.record, c.record
    same_session = bool(a.session_id) and a.session_id == b.session_id
    apart = abs(a.created_at - b.created_at)
    time = (1.0 if apart <= TWO_HOURS else 0.5) if same_session else 0.0
    # the cue needs the type "resolves": a fix in one of the two and a problem in the other (each side reads its
    # text's cues once); the type's other conditions taken as holding
    (m_fix, m_problem, _), (c_fix, c_problem, _) = m.cues(), c.cues()
    may_resolve = (m_fix and c_problem) or (c_fix and m_problem)
    cue = 1.0 if same_session and apart <= TWO_HOURS and share[1] and may_resolve else 0.0
    if not (
        share[0] >= 0.30
        or cos >= config.h + (1 - config.h) / 2
        or bridge == 1.0
        or cue == 1.0
        or (share[0] >= 0.15 and (sem >= 0.5 or time == 1.0 or bridge > 0))
    ):
        return 0.0  # score_pair's gate cannot pass (its means-to-end and cue taken as holding): no link
    omega = 0.25 if lexical else 0.5
    raw = 1.0 - ((1 - 0.8 * share[0]) * (1 - omega * sem) * (1 - 0.6 * bridge) * (1 - 0.35 * time) * (1 - 0.5 * cue))
    return prior(m.noun, c.noun) * raw


def explain_chosen(m: Side, chosen: Iterable[Evidence], stats: Stats) -> None:
    """Write the ``why`` of each evidence in ``chosen`` scored by :func:`score_candidates` (one with no context
    left, e.g. the turn before's, is explained already)."""
    for ev in chosen:
        if ev._context:
            ev.why = explanation(m, ev._context[0], ev, ev._context[1], ev._context[2], ev._stats or stats)


def explanation(m: Side, shared: list[str], ev: Evidence, bridge_why: str, apart: float, stats: Stats) -> str:
    """The link's ``why``: the shared names, the similarity, the bridge, the problem-fix cue, the session."""
    parts: list[str] = []
    if shared:
        entity_words = {w for t in shared if t.startswith("e:") for w in t[2:].split()}
        shown = [t for t in shared if t.startswith("e:") or m.surface.get(t, t[2:]).lower() not in entity_words]
        shown.sort(key=lambda t: -stats.w(t))
        names = [t[2:] if t.startswith("e:") else m.surface.get(t, t[2:]).lower() for t in shown[:4]]
        parts.append("shared: " + ", ".join(names))
    if ev.sem > 0:
        parts.append(f"similar meaning ({ev.cos:.2f})")
    if bridge_why:
        parts.append(bridge_why)
    if ev.cue:
        parts.append("a problem and its fix")
    if ev.time:
        parts.append(f"same session, {int(round(apart / 60))} min apart")
    return "; ".join(parts)


@dataclass
class LinkScore:
    """explain(a, b): the pair scored from scratch."""

    score: float
    linked: bool
    type: str
    why: str
    signals: dict[str, float | bool]
    source: str = ""
    target: str = ""
