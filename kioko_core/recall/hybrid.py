"""recall(): hybrid retrieval fused with RRF, spreading activation over the links, and the context
(its text is written by :mod:`~kioko_core.recall.context_text`)."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from kioko_core.embedding.embedders import relates_unshared_words
from kioko_core.kinds import Episodes, Facts, Goals, Preferences, Summaries
from kioko_core.kinds.registry import KINDS, section_of
from kioko_core.layer.scoped import SESSIONS_AGENT
from kioko_core.linking.activation import strongest
from kioko_core.linking.index import ENTITY_BOOST, idf, nominates
from kioko_core.linking.linker import KIND_TERM, PIN_TERM, TURN_BEFORE_WHY
from kioko_core.linking.links import (
    CAPPED_AUTHORS,
    LINKABLE_KINDS,
    SHARED_USER,
    MemoryLink,
)
from kioko_core.linking.scoring import vote
from kioko_core.reading.analysis import Analysis, has_problem_cue, stem
from kioko_core.reading.query_and_draft import GOAL_QUESTION as GOAL_QUESTION  # the patterns live with the Query now
from kioko_core.reading.query_and_draft import TELLS_TIME, Query
from kioko_core.reading.query_and_draft import WHEN_QUESTION as WHEN_QUESTION
from kioko_core.recall import budget as context_budget
from kioko_core.recall import sections as context_sections
from kioko_core.recall.coherence import (
    MATES_READ,
    SESSION_POOL,
    in_period,
    named_period,
    session_coherent,
    session_mates,
    spoken_by_named,
)
from kioko_core.recall.context_text import SAFETY_TITLE as SAFETY_TITLE  # read here by tests and surfaces
from kioko_core.recall.context_text import RecalledMemory as RecalledMemory  # a Context's memories
from kioko_core.recall.context_text import context_blocks, links_section
from kioko_core.recall.context_text import dated as dated
from kioko_core.recall.context_text import goal_line as goal_line
from kioko_core.recall.options import RecallConfig as RecallConfig  # its home was here: callers import it from here
from kioko_core.recall.owned import owned
from kioko_core.recall.repeats import distinct_ids, repeats, repeats_last, word_runs
from kioko_core.recall.safety import READ_TERMS, SAFETY_TERM, bears_on, is_safety_relevant
from kioko_core.recall.safety import SHOWN as SAFETY_SHOWN
from kioko_core.recall.shown_changes import ChangeReader, show_changes
from kioko_core.recall.turn_mates import TurnMates, bring_turn_mates, drop_mates_of
from kioko_core.store import Filter, InvalidRecordError, Record, Scope, check_scope
from kioko_core.telemetry import staged

if TYPE_CHECKING:
    from kioko_core.layer.parts import LayerParts

RRF_K = 60
RECENCY_WEIGHT = 0.1
"""Recency's weight in the fused score: it orders what the other signals found, never nominates on its own."""
ASSOCIATIONS = frozenset({"related_to", "follows"})
"""Link types that say two memories go together but not how (see :func:`keep_related`)."""
DEFAULT_LINKS = 3
FILL_RECENT = 3
"""At most this many newest memories fill an empty section named in ``fill_recent``."""
PINNED_SHOWN = 10
"""At most this many pinned memories are shown (the oldest pins first: the section stays the same turn to turn)."""
ABOUT_THE_USER = re.compile(
    r"User\b|(?:[A-Z][a-z]{2,}ed|Made|Got|Went|Took|Began|Won|Lost|Left|Bought|Sold|Became|Met)\b"
)
"""An event the router wrote about the user ("User is training to be a pilot", or without a subject: "Made
partner at Hart & Doyle", "Started sixth form at Hillcrest"), not about someone else ("Her fence was ...")."""
FILL_KINDS = {
    **{info.section: info.name for info in KINDS if info.section not in ("memories", "goals")},
    "memories": Facts.kind,  # a question about the user that shares no word with what they said: their newest facts
}
"""A section ``fill_recent`` may fill -> the kind whose newest memories fill it (a section of one kind, from the
registry; the open goals are always shown)."""


@dataclass
class Context:
    """What recall returns: the text for the agent, the memories with their signals, and the links shown."""

    query: str
    text: str
    memories: list[RecalledMemory]
    links: list[MemoryLink]
    plan: Any = None
    """The :class:`~kioko_intelligence.planner.RecallPlan` followed (explicit options applied), or None."""
    sections: context_sections.Sections = field(default_factory=context_sections.Sections)
    """What the context shows besides the searched memories: ``profile``, ``instructions`` (records),
    ``relations`` (entity-graph triples about what the query names) and ``working`` (the session's scratchpad)."""
    budget: int | None = None
    """The token budget the text was fitted to (None: none), see :mod:`~kioko_core.recall.budget`."""
    tokens: int = 0
    """The text's size in tokens, as :func:`~kioko_core.recall.budget.count_tokens` counts them."""
    cut: list[str] = field(default_factory=list)
    """Ids of the memories the text shows only in part (each line ends with the cut marker)."""
    dropped: list[str] = field(default_factory=list)
    """Ids of the memories recall found but the budget left out of the text (and out of ``memories``)."""

    def __str__(self) -> str:
        return self.text


def _order_key(scores: dict[str, float], records: dict[str, Record]) -> Any:
    """Best first; ties go to the newer memory, then the content, and only then the id: never random."""

    def key(memory_id: str) -> tuple[float, float, str, str]:
        record = records.get(memory_id)
        return (
            -scores[memory_id],
            -(record.created_at if record else 0.0),
            record.content if record else "",
            memory_id,
        )

    return key


def _rank(scores: dict[str, float], records: dict[str, Record]) -> dict[str, int]:
    ordered = sorted(scores, key=_order_key(scores, records))
    return {key: rank for rank, key in enumerate(ordered, 1)}


@staged("recall.candidates")
def lexical_scores(
    layer: LayerParts,
    scope: Scope,
    query: str,
    config: RecallConfig,
    limit: int,
    extra_terms: Sequence[str] = (),
    voted: dict[str, float] | None = None,
) -> tuple[dict[str, float], dict[str, list[str]], Analysis]:
    """The ``limit`` memories whose terms best overlap the question's, weighted by IDF (postings only, no scan).

    This is BM25 with every term counted once per memory and no length normalisation: the terms a
    memory is indexed under are a set, and on the LoCoMo development split length normalisation
    (b = 0.75) lowered recall@10 from 0.58 to 0.54 (see docs/recall.md). ``query`` is read for the scope's
    user unless it is a :class:`~kioko_core.reading.query_and_draft.Query` read for them already. ``voted``, when
    given, receives each term that scored and its weight.
    """
    analysis = Query.of(query, scope.user_id, layer.entities).analysis
    words = {t for t in analysis.terms if t.startswith("t:")}
    numbers = [t for t in analysis.terms if t.startswith("n:")]
    weights: dict[str, float] = {t: 1.0 for t in [*words, *numbers]}
    if config.entity_terms:
        for term in analysis.terms:
            key = term[2:]
            # a name whose words the question already counts ("Caroline") would be counted twice; a name
            # with a number or code in it ("line 3", "E-217") says more than its words, so it counts
            if term.startswith("e:") and not all(w.isalpha() and "t:" + stem(w) in words for w in key.split()):
                weights[term] = ENTITY_BOOST
        related = layer.entities.related_entities(analysis.entities, user_id=scope.user_id) if analysis.entities else {}
        for other in (o for rels in related.values() for o, _ in rels if o not in analysis.entities):
            weights.setdefault("e:" + other, ENTITY_BOOST * config.related_entity_weight)
    # every posting of every term that nominates, however many the user holds: the linker's postings_limit
    # is a cost bound for writes, and recall bounded by it never saw a common term's older memories
    terms = list(weights) + list(extra_terms)
    nominating = lambda t, count, size: t in weights and nominates(count, size)  # noqa: E731
    first = max(layer.linker.config.postings_limit, config.goals)
    # the nominating lists are made whole in the cache, where exact_top scores them, without copies handed back
    n, df, postings = layer.index.lookup_all(scope, terms, nominating, first, whole_ids=False)
    voting = {t: idf(df[t], n) * weights[t] for t in weights if df[t] and nominates(df[t], n)}
    top = layer.index.exact_top(scope, voting, limit)
    if top is None:  # a list left the cache in between (a delete): the same scores, counted over whole lists here
        n, df, postings = layer.index.lookup_all(scope, terms, nominating, first)
        voting = {t: idf(df[t], n) * weights[t] for t in weights if df[t] and nominates(df[t], n)}
        top = vote(voting, postings, voting.__getitem__, limit)
    if voted is not None:
        voted.update(voting)
    return dict(top), postings, analysis


@staged("recall.links")
def graph_scores(
    seeds: dict[str, float],
    records: dict[str, Record],
    config: RecallConfig,
    linker_config: Any,
    now: float,
    include_shared: bool,
    vouched: dict[str, float] | None = None,
) -> dict[str, float]:
    """What the links add: each memory gets its strongest linked seed's score times the link's weight.

    A conversation's turns are read with their neighbours ("Yes, last Sunday!" answers the turn before),
    so a ``follows`` link carries ``context_link_weight``; other links their faded weight. ``vouched``, when
    given, receives what the links that say more than an association add: a typed link (a lesson refines
    a procedure, a fix resolves a fault), one a person, feedback or a memory's own fields made, and the
    turn-before link (see :func:`keep_related`).
    """
    gained: dict[str, float] = {}
    for seed_id, seed_score in seeds.items():
        record = records.get(seed_id)
        if record is None or seed_score <= 0:
            continue
        for other, entry, weight in strongest(
            record, linker_config.max_degree, linker_config.min_weight, linker_config.half_life_days, now
        ):
            if entry.get("shared") and not include_shared:
                continue
            if entry.get("type") == "follows":
                weight = config.context_link_weight
            gained[other] = max(gained.get(other, 0.0), seed_score * weight)
            if vouched is not None and (
                entry.get("by", "auto") not in CAPPED_AUTHORS
                or entry.get("type") not in ASSOCIATIONS
                or str(entry.get("why", "")).startswith(TURN_BEFORE_WHY)
            ):
                vouched[other] = max(vouched.get(other, 0.0), seed_score * weight)
    return gained


def keep_related(
    gained: dict[str, float], vouched: dict[str, float], records: dict[str, Record], asked: set[str]
) -> dict[str, float]:
    """What the links add, kept only for memories that share a term with the question (``asked``).

    On LoCoMo a seed's neighbour that shares no word or name with the question was almost never what was
    asked for (0 of 660 such neighbours on multi-hop questions, 3 of 2,058 on single-hop ones, part A),
    yet it took one of the few places the links have. Such a memory keeps only what the links that say
    more than an association give it (``vouched``): a typed link ("lesson refines procedure" brings a
    lesson that repeats none of the question's words, as the spec's quick start shows), one a person,
    feedback or the memory's own fields made, and the turn-before link, since a reply ("Yes, last
    Sunday!") is read with the question it answers. Only ``related_to`` and ``follows`` links the
    algorithm guessed need the shared term.
    """
    kept: dict[str, float] = {}
    for memory_id, value in gained.items():
        record = records.get(memory_id)
        if record is not None and not asked.isdisjoint(record.terms):
            kept[memory_id] = value
        elif vouched.get(memory_id, 0.0) > 0:
            kept[memory_id] = vouched[memory_id]
    return kept


@dataclass
class Retrieved:
    """The fused ranking of one scope: score and signals per memory, the records read, the open goals."""

    scores: dict[str, float]
    signals: dict[str, dict[str, float]]
    records: dict[str, Record]
    goals: list[Record]
    linked_only: set[str]
    weightless: set[str] = field(default_factory=set)
    """Memories only a signal of weight 0 found (the vector search beside a lexical embedder)."""


def _dense_cannot_place(lexical: dict[str, float], config: RecallConfig, dense_weight: float, read: Query) -> bool:
    """True when the vector search could not put a memory of its own among the ``limit`` best: its weight is 0
    (a lexical embedder's default), so a memory only it finds scores no more than the recency and time-telling
    bonuses, and ``limit`` lexical candidates already score more than those. The vector search is the largest
    cost of a recall in a large scope (an HNSW walk), and then it is skipped."""
    if dense_weight != 0 or len(lexical) < config.limit:
        return False
    ceiling = RECENCY_WEIGHT + (config.when_weight if read.asks_when else 0.0)  # in units of one first rank
    ordered = sorted(lexical.values(), reverse=True)
    weakest = ordered[config.limit - 1]
    if config.fusion == "sum":  # a lexical score counts relative to the best one
        return weakest > ceiling * ordered[0]
    # "rrf": the limit-th of the lexical (and graph) ranking gains lexical_weight / (RRF_K + limit) at least
    return config.lexical_weight * (RRF_K + 1) / (RRF_K + config.limit) > ceiling


@staged("recall.retrieve")
def retrieve(
    layer: LayerParts,
    scope: Scope,
    query: str,
    config: RecallConfig,
    *,
    use_links: bool = True,
    now: float | None = None,
    include_shared: bool = False,
) -> Retrieved:
    """Candidates from the postings (lexical), the vector search and (``use_links``) the links of the best
    lexical ones, fused with weighted reciprocal ranks; a bounded number of ``get`` calls, never a scan.
    ``query`` is read for the scope's user unless it is a :class:`~kioko_core.reading.query_and_draft.Query` read for them.
    """
    now = time.time() if now is None else now
    read = Query.of(query, scope.user_id, layer.entities)
    goal_term = KIND_TERM + Goals.kind
    pool_size = max(config.candidates, config.graph_seeds if use_links else 0)
    cohere = (config.session_weight > 0 or config.period_weight > 0) and not use_links
    # the session and period signals read the SESSION_POOL best; the repeats' collapse reads further down, so
    # that what the repeats leave is filled by other memories
    wide = max(pool_size, SESSION_POOL, config.repeat_pool, config.distinct_read) if cohere else pool_size
    voting: dict[str, float] = {}
    lexical, postings, analysis = lexical_scores(layer, scope, read, config, wide, [goal_term], voting)
    matched = lexical
    dated: set[str] = set()  # in the period the question names
    said: set[str] = set()  # said by a person the question names
    if cohere and lexical:
        # the best SESSION_POOL matches grouped by session, then cut to the pool (records through the index cache)
        by_lexical = sorted(lexical, key=lambda i: (-lexical[i], i))
        first = max(SESSION_POOL, config.repeat_pool)
        pooled = layer.index.records(scope, by_lexical[:first])
        text_of = lambda i: pooled[i].content if i in pooled else ""  # noqa: E731
        distinct = False  # repeats took places among the SESSION_POOL best: the matches past them are read
        if config.distinct_read > SESSION_POOL and config.repeat_share > 0 and len(by_lexical) > SESSION_POOL:
            distinct = len(distinct_ids(by_lexical[:first], text_of, config.repeat_share, SESSION_POOL)) < SESSION_POOL
            if distinct and len(by_lexical) > first:
                pooled.update(layer.index.records(scope, by_lexical[first : config.distinct_read]))
        said = spoken_by_named(by_lexical, pooled, read.text) if config.speaker_weight else set()
        if said:  # "What did Caroline research?": what Caroline said goes before the same words said to her
            lexical = {i: v + config.speaker_weight if i in said else v for i, v in lexical.items()}
            by_lexical = sorted(lexical, key=lambda i: (-lexical[i], i))
        if distinct:  # a repeat of a better match gives its place among the SESSION_POOL to the next match
            ahead = repeats_last(by_lexical, text_of, config.repeat_share, SESSION_POOL)
            in_pool = set(ahead)
            by_lexical = ahead + [i for i in by_lexical if i not in in_pool]
        near = {i: lexical[i] for i in by_lexical[:SESSION_POOL]}
        if config.session_mates:  # the best matches' sessions lend their other matches (records read into pooled)
            members = lambda terms: layer.index.lookup(scope, terms, MATES_READ)[2]  # noqa: E731
            holding = lambda ids: layer.index.holding(scope, ids, list(voting))  # noqa: E731
            mates = session_mates(
                near, pooled, voting, config.session_mates, members, partial(layer.index.records, scope), holding
            )
            near.update(mates)
            lexical.update(mates)
            if matched is not lexical:  # the speaker's share made a copy: the signals read the words' own scores
                matched.update(mates)
        raised = session_coherent(near, pooled, config.session_weight)
        period = named_period(read.text) if config.period_weight else (None, None)
        if period != (None, None):  # "in July", "in December 2023": a memory written then gains
            best = max(lexical.values())
            for memory_id in near:
                if memory_id in pooled and in_period(pooled[memory_id].created_at, period):
                    raised[memory_id] += config.period_weight * best
                    dated.add(memory_id)
        # past the pool: the matches a session did not lend to it already (a lent one keeps what it was raised by)
        past_pool = [i for i in by_lexical[SESSION_POOL:] if i not in raised]
        best_first = sorted(raised, key=lambda i: (-raised[i], i)) + past_pool
        best_first = repeats_last(
            best_first,
            lambda i: pooled[i].content if i in pooled else "",
            config.repeat_share if config.repeat_pool else 0.0,
            pool_size,
        )
        raised.update((i, lexical[i]) for i in past_pool)
        lexical = {i: raised[i] for i in best_first[:pool_size]}
    relates = relates_unshared_words(layer.embedder, undeclared=True)
    dense_weight = config.dense_weight
    if dense_weight is None:
        dense_weight = (0.5 if config.fusion == "sum" else 1.0) if relates else 0.0
    dense: dict[str, float] = {}
    if not _dense_cannot_place(lexical, config, dense_weight, read) and layer.index.lookup(scope, [], 0)[0]:
        # a question whose words find no memory takes the nearest in meaning down to a lower floor ("Where will my
        # new restaurant be?" finds "We look at Richmond Hill now" by no word of it); a lexical embedder's vectors
        # hash the very words that found nothing, so below the usual floor they hold only collisions
        floor = config.min_vector_fill if not lexical and relates else config.min_vector_only
        for hit in layer.store.knn(scope, read.vector(layer.embedder), config.candidates):
            if hit.score >= floor or hit.id in lexical:
                dense[hit.id] = hit.score
    by_score = sorted(lexical, key=lambda i: (-lexical[i], i))
    pool = by_score[:pool_size]
    goal_ids = postings.get(goal_term, [])[: config.goals]
    wanted = list(dict.fromkeys(pool + list(dense) + goal_ids))
    # through the index cache: a question asked again (or a memory just written) is not read and decoded
    # again; the records are the cache's own, so what recall hands out is a copy (:func:`~kioko_core.recall.owned.owned`)
    records = layer.index.records(scope, wanted) if wanted else {}
    goals = [
        records[i]
        for i in goal_ids
        if i in records
        and records[i].metadata.get("status", "open") == "open"
        and not context_sections.is_replaced(records[i])
    ]

    if config.fusion == "sum":
        # each signal scaled to its best candidate, then added: the graph then starts from both
        top_lexical = max(lexical.values(), default=0.0) or 1.0
        top_dense = max(dense.values(), default=0.0) or 1.0
        base = {i: lexical[i] / top_lexical for i in pool}
        for memory_id, value in dense.items():
            base[memory_id] = base.get(memory_id, 0.0) + dense_weight * value / top_dense
    else:
        base = {i: lexical[i] for i in pool}
    ordered = sorted(base, key=lambda i: (-base[i], i))
    seeds = {i: base[i] for i in ordered[: config.graph_seeds]} if use_links else {}
    if use_links and read.about_goals:
        # a question about goals starts from them, so the decisions and procedures serving them come along
        top = max(seeds.values(), default=1.0)
        seeds.update({g.id: top for g in goals})

    vouched: dict[str, float] = {}
    gained = graph_scores(seeds, records, config, layer.linker.config, now, include_shared, vouched) if seeds else {}
    if gained and config.linked_share_words:
        # the linked memories are read now (at most graph_seeds x max_degree, through the index cache) to
        # see whether they share a term with the question
        unread = [i for i in gained if i not in records]
        if unread:
            records.update(layer.index.records(scope, unread))
        gained = keep_related(gained, vouched, records, set(analysis.terms))
    combined = dict(base)
    for memory_id, value in gained.items():
        combined[memory_id] = combined.get(memory_id, 0.0) + config.graph_weight * value
    # a linked memory not read yet is read only if it could make the list
    top_combined = sorted(combined, key=lambda i: (-combined[i], i))[: config.candidates]
    missing = [i for i in top_combined if i not in records]
    if missing:
        records.update(layer.index.records(scope, missing))
    combined = {i: v for i, v in combined.items() if i in records and i in top_combined}
    dense = {i: v for i, v in dense.items() if i in records}

    fused: dict[str, float] = {}
    signals: dict[str, dict[str, float]] = {}
    if config.fusion == "sum":
        for memory_id in list(combined) + [i for i in dense if i not in combined]:
            fused[memory_id] = combined.get(memory_id, base.get(memory_id, 0.0)) / (RRF_K + 1)
    else:
        for scores, weight in ((combined, config.lexical_weight), (dense, dense_weight)):
            for memory_id, rank in _rank(scores, records).items():
                fused[memory_id] = fused.get(memory_id, 0.0) + weight / (RRF_K + rank)
    # a replaced memory the question found hands its place to the one in force now (sections.in_force)
    replaced = [records[i] for i in fused if context_sections.is_replaced(records[i])]
    asked = set(analysis.terms)
    # the words a memory the context may show holds (a summary is shown only for a question about its session)
    shown_now = [records[i] for i in fused if _may_show(records[i]) and records[i].kind != Summaries.kind]
    answered = {t for r in shown_now for t in r.terms} & asked
    fetch = lambda ids: layer.index.records(scope, ids)  # noqa: E731
    for old, new in context_sections.in_force(replaced, fetch, asked, answered).items():
        records.setdefault(new.id, new)
        fused[new.id] = max(fused.get(new.id, 0.0), fused[old])
    for memory_id in fused:
        found = signals.setdefault(memory_id, {})
        if memory_id in lexical:
            found["lexical"] = round(matched[memory_id], 4)
            if memory_id in dated:
                found["period"] = 1.0
            if memory_id in said:
                found["speaker"] = 1.0
            added = lexical[memory_id] - matched[memory_id] - (config.speaker_weight if memory_id in said else 0.0)
            if memory_id not in dated and added > 1e-9:  # what the session's other matches added
                found["session"] = round(added, 4)
        if memory_id in dense:
            found["dense"] = round(dense[memory_id], 4)
        if gained.get(memory_id):
            found["graph"] = round(gained[memory_id], 4)
    shown = [i for i in fused if _may_show(records[i])]
    # recency only orders what the other signals found: it never nominates on its own. A memory only a signal
    # of weight 0 found (the vector search beside a lexical embedder) is ranked by recency among everything
    # shown, but does not push the others down the recency order: they then rank alike whether or not that
    # search ran (see _dense_cannot_place)
    newest = _rank({i: records[i].created_at for i in shown}, records)
    weightless: set[str] = set()
    if dense_weight == 0:
        weightless = {i for i in dense if i not in lexical and not gained.get(i)}
        if weightless:
            newest.update(_rank({i: records[i].created_at for i in shown if i not in weightless}, records))
    kept = {i: fused[i] + RECENCY_WEIGHT / (RRF_K + newest[i]) for i in shown}
    if read.asks_when and config.when_weight:
        # after the links: a linked memory that tells the time is as good an answer as a retrieved one
        for memory_id in kept:
            if TELLS_TIME.search(records[memory_id].content):
                kept[memory_id] += config.when_weight / (RRF_K + 1)
    for memory_id, score in kept.items():
        signals[memory_id]["rrf"] = round(score, 6)
    linked_only = {i for i in kept if i not in lexical and i not in dense}
    return Retrieved(kept, {i: signals[i] for i in kept}, records, goals, linked_only, weightless & set(kept))


SESSION_OR_PERIOD = re.compile(
    r"\b(?:session|conversation|chat|last time|earlier today|recap|summar(?:y|ise|ize)|catch me up|"
    r"(?:we|you and i|i) (?:discussed|talked|spoke|covered|went over)|(?:discuss|talk|speak|cover)(?:ed)? (?:last|earlier)|"
    r"yesterday|(?:last|this|past) (?:week|weekend|month|year|summer|winter|spring|fall|autumn|quarter)|"
    r"(?:in|during|of|early|late|mid) (?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december)|(?:19|20)\d\d)\b",
    re.IGNORECASE,
)
"""A question about a session or a period: only then does a context show summaries (of sessions, of months)."""


def about_a_period(query: str) -> bool:
    return SESSION_OR_PERIOD.search(query) is not None


RECAP = re.compile(
    r"\b(?:(?P<first>(?:very )?first|earliest) (?:session|conversation|chat|time we (?:talked|spoke))|"
    r"last time|(?:last|previous|earlier|other) (?:session|conversation|chat)|"
    r"(?:we|you and i) (?:discussed|talked about|spoke about|covered|went over|did|decided) (?:before|earlier|last))\b",
    re.IGNORECASE,
)
"""A question about one earlier session ("what did we talk about last time?", "in our first session"): the
context shows that session's memories, which a summary never repeats."""
RECAP_SHOWN = 8


def session_recalled(layer: LayerParts, scope: Scope, question: str, session_id: str | None) -> list[Record]:
    """The memories of the earlier session ``question`` asks about (:data:`RECAP`), oldest first: the first
    session, or the last one before ``session_id``. Sessions are known from their logs (one small record per
    managed session); asked only for such a question, never on the hot path."""
    asked = RECAP.search(question)
    if asked is None:
        return []
    logs = [
        r
        for r in layer.store.scan(Scope(scope.user_id, SESSIONS_AGENT))
        if r.session_id and r.session_id != session_id and r.metadata.get("agent_id") == scope.agent_id
    ]
    if not logs:
        return []
    logs.sort(key=lambda r: (r.created_at, r.id))
    target = (logs[0] if asked.group("first") else logs[-1]).session_id
    found = [r for r in layer.store.scan(scope, Filter(session_id=target)) if _may_show(r)]
    return sorted(found, key=lambda r: (r.created_at, r.id))[:RECAP_SHOWN]


def _may_show(record: Record) -> bool:
    """Same filters as retrieval: not superseded, a memory (not bookkeeping), not working memory."""
    return record.kind in LINKABLE_KINDS and not context_sections.is_replaced(record)


def recall(
    layer: LayerParts,
    query: str,
    *,
    user_id: str,
    agent_id: str | None = None,
    session_id: str | None = None,
    links: int | None = None,
    limit: int | None = None,
    include_shared: bool = False,
    config: RecallConfig | dict[str, Any] | None = None,
    section_limits: dict[str, int] | None = None,
    fill_recent: Sequence[str] = (),
    sections: bool = False,
    budget: int | None = None,
    changes: ChangeReader | None = None,
    turn_mates: TurnMates | None = None,
) -> Context:
    """The context for ``query``: the ``limit`` best memories, up to ``links`` of them brought by links only.

    ``section_limits`` caps how many memories a section shows (``{"procedures": 0}``; ``goals`` caps the open
    goals); ``fill_recent`` names sections filled with their newest memories (decisions: in force) when the
    search put none there. Without either, the ranking is the plain one. ``sections`` adds the profile,
    the instructions, the relations of what the query names and the session's working memory
    (:mod:`~kioko_core.recall.sections`; the profile and instructions cost one kind-filtered scan, so a
    plain recall - the layer without intelligence - leaves them out and never scans).

    ``budget`` (tokens; None: the config's, 2,000 by default) bounds the text: see
    :mod:`~kioko_core.recall.budget`. Memories it leaves out of the text leave ``memories`` too
    (``ctx.dropped`` names them).

    ``changes`` (the intelligence's reader of changes) names memories to show in place of older ones the
    question found too, with "(was: ...)" (:mod:`~kioko_core.recall.shown_changes`); None shows every one.

    ``turn_mates`` (the intelligence's reader of the memories said in one turn) brings the other memories of the
    turns of the best found ones (:mod:`~kioko_core.recall.turn_mates`); None brings none.

    ``query`` is read once here (a :class:`~kioko_core.reading.query_and_draft.Query`, unless it is one read for ``user_id``
    already) and that reading is what retrieval and the sections take.
    """
    caps = dict(section_limits or {})
    if isinstance(fill_recent, str) or any(section not in FILL_KINDS for section in fill_recent):
        raise InvalidRecordError(f"fill_recent can fill {sorted(FILL_KINDS)}, got {fill_recent!r}")
    scope = check_scope((user_id, agent_id))
    config = RecallConfig.build(config if config is not None else getattr(layer, "recall_config", None))
    if limit is not None:
        config = RecallConfig.build(config, limit=limit)
    if budget is not None:
        config = RecallConfig.build(config, budget=context_budget.check_budget(budget))
    if links is not None and (isinstance(links, bool) or not isinstance(links, int) or links < 0):
        raise InvalidRecordError(f"links must be an integer >= 0, got {links!r}")
    expand = DEFAULT_LINKS if links is None else links
    now = time.time()
    read = Query.of(query, scope.user_id, layer.entities)
    got = retrieve(layer, scope, read, config, use_links=expand > 0, now=now, include_shared=include_shared)
    if include_shared and scope.user_id != SHARED_USER:
        shared = retrieve(layer, Scope(SHARED_USER, None), read, config, use_links=expand > 0, now=now)
        for memory_id, score in shared.scores.items():
            got.scores[memory_id] = got.scores.get(memory_id, 0.0) + score
            got.signals.setdefault(memory_id, {}).update(shared.signals[memory_id], shared=1.0)
        got.records.update(shared.records)
        got.linked_only |= {i for i in shared.linked_only if i not in got.signals or "rrf" not in got.signals[i]}

    chosen: list[str] = []
    brought: set[str] = set()
    shown: dict[str, int] = {}
    chosen_runs: list[frozenset[str]] = []
    repeated: list[str] = []  # repeats of a memory chosen before them (kioko_core.recall.repeats)

    def take(memory_id: str, first: bool) -> None:
        record = got.records[memory_id]
        section = section_of(record.kind)
        if shown.get(section, 0) >= caps.get(section, config.limit):
            return
        if record.kind == Summaries.kind and not about_a_period(read.text):
            return  # a summary restates; it earns a place only when the question is about its session or period
        runs = word_runs(record.content) if config.repeat_share else frozenset()
        if first and config.repeat_share and any(repeats(runs, before, config.repeat_share) for before in chosen_runs):
            repeated.append(memory_id)  # it takes a place only when the others have left one
            return
        if memory_id in got.linked_only:
            if len(brought) >= expand:
                return
            brought.add(memory_id)
        chosen.append(memory_id)
        chosen_runs.append(runs)
        shown[section] = shown.get(section, 0) + 1

    for memory_id in sorted(got.scores, key=_order_key(got.scores, got.records)):
        if memory_id in got.weightless:
            # the repeats go before what only a signal of weight 0 found: a repeat is still a match, and the
            # answer is the same whether or not that search ran (see _dense_cannot_place)
            for repeat in repeated:
                if len(chosen) < config.limit:
                    take(repeat, first=False)
            repeated.clear()
        if len(chosen) >= config.limit:
            break
        take(memory_id, first=True)
    for memory_id in repeated:
        if len(chosen) >= config.limit:
            break
        take(memory_id, first=False)
    strongest_seed = max((got.signals[i].get("lexical", 0.0) for i in got.signals), default=0.0) or 1.0
    recalled: dict[str, RecalledMemory] = {}
    for memory_id in chosen:
        record = got.records[memory_id]
        signals = got.signals[memory_id]
        if memory_id in brought:  # what only a link brought says how strongly, relative to the best match
            signals = {"linked": round(min(1.0, signals.get("graph", 0.0) / strongest_seed), 4)}
        recalled[memory_id] = RecalledMemory(owned(record), got.scores[memory_id], signals, section_of(record.kind))
    mates = bring_turn_mates(recalled, brought, turn_mates, scope, _may_show)
    for section in fill_recent:
        wanted = min(FILL_RECENT, caps.get(section, FILL_RECENT))
        if wanted > 0 and not any(m.section == section for m in recalled.values()):
            newest = _newest(layer, scope, FILL_KINDS[section], wanted)
            if section == "memories":  # "what do you know about me?": what they like and did is about them too
                newest += _newest(layer, scope, Preferences.kind, wanted)
                newest += [r for r in _newest(layer, scope, "episodic", wanted) if ABOUT_THE_USER.match(r.content)]
                newest = sorted(newest, key=lambda r: (-r.created_at, r.id))[:wanted]
            for record in newest:
                recalled.setdefault(record.id, RecalledMemory(record, 0.0, {"recent": 1.0}, section))
    goals = got.goals[: min(config.goals, caps.get("goals", config.goals))]
    # a goal is named by the question's text alone, not by names only the user's entity graph knows
    query_words = set(read.analysis.text_terms)
    named_goals = [g for g in goals if read.about_goals or query_words & set(g.terms)]
    for goal in goals:
        if goal.id not in recalled:
            recalled[goal.id] = RecalledMemory(owned(goal), 0.0, {"goal": 1.0}, "goals")
    always = {g.id for g in goals} - ({g.id for g in named_goals} if named_goals else set())
    if sections:  # what the user said about allergies, health, access needs and hard rules, where it matters
        for record in safety_memories(layer, scope, read.text, caps.get("safety", SAFETY_SHOWN)):
            found = recalled.get(record.id)
            recalled[record.id] = RecalledMemory(
                found.record if found else record, found.score if found else 0.0, {"safety": 1.0}, "safety"
            )
    if sections:  # "what did we talk about last time?": that session's memories, summary or not
        for record in session_recalled(layer, scope, read.text, session_id):
            if record.id not in recalled:
                recalled[record.id] = RecalledMemory(record, 0.0, {"session": 1.0}, section_of(record.kind))
    for record in pinned_memories(layer, scope, caps.get("pinned", PINNED_SHOWN)):
        if record.id not in recalled:  # retrieved on its own merit, it stays in its section
            recalled[record.id] = RecalledMemory(record, 0.0, {"pinned": 1.0}, "pinned")
            always.add(record.id)
    extra = context_sections.gather(layer, scope, read, session_id, caps) if sections else context_sections.Sections()
    stable = {
        r.id: RecalledMemory(r, 0.0, {section: 1.0}, section)
        for section, records in (("profile", extra.profile), ("instructions", extra.instructions))
        for r in records
    }
    # a newer memory shown in place of an older one it changes (a searched memory, a profile slot, an instruction)
    gone = set(show_changes(read, recalled, changes, stable))
    drop_mates_of(recalled, mates, gone)  # what came with an older value shown as "(was: ...)" is as old
    if gone & {r.id for r in extra.profile + extra.instructions}:
        extra.profile = [r for r in extra.profile if r.id not in gone]
        extra.instructions = [r for r in extra.instructions if r.id not in gone]
    shown_links = links_section(layer, recalled, brought, always, None, now)
    fitted = context_budget.fit(
        context_blocks(recalled, shown_links, extra, now if read.about_when else None), config.budget
    )
    left_out = set(fitted.dropped)
    return Context(
        query=read.text,
        text=fitted.text,
        memories=[m for m in recalled.values() if m.record.id not in left_out],
        links=[k for k in shown_links if k.source not in left_out and k.target not in left_out],
        sections=extra,
        budget=config.budget,
        tokens=fitted.tokens,
        cut=fitted.cut,
        dropped=fitted.dropped,
    )


def pinned_memories(layer: LayerParts, scope: Scope, count: int = PINNED_SHOWN) -> list[Record]:
    """The scope's pinned memories, oldest first (one postings call and one get, never a scan)."""
    if count <= 0:
        return []
    ids = layer.index.lookup(scope, [PIN_TERM], 4 * count)[2].get(PIN_TERM, [])
    found = (
        [r for r in layer.store.get(scope, ids) if r is not None and r.metadata.get("pinned") is True and _may_show(r)]
        if ids
        else []
    )
    return sorted(found, key=lambda r: (r.created_at, r.id))[:count]


SAFETY_READ = 10
"""Newest memories per safety word looked at by :func:`safety_memories` (and the marked ones: at most 50)."""


def safety_memories(layer: LayerParts, scope: Scope, question: str, count: int = SAFETY_SHOWN) -> list[Record]:
    """The user's safety facts (:mod:`~kioko_core.recall.safety`) that ``question`` bears on, oldest first (one postings
    call and one get, never a scan). Those indexed under :data:`~kioko_core.recall.safety.SAFETY_TERM` when written, and
    those written before that a few words of :data:`~kioko_core.recall.safety.READ_TERMS` find, recognised here."""
    if count <= 0 or not question.strip():
        return []
    postings = layer.index.lookup(scope, [SAFETY_TERM, *READ_TERMS], 50)[2]
    marked = postings.get(SAFETY_TERM, [])
    ids = list(dict.fromkeys([*marked, *(i for t in READ_TERMS for i in postings.get(t, [])[:SAFETY_READ])]))
    found = [r for r in layer.store.get(scope, ids) if r is not None and _may_show(r)] if ids else []
    known = set(marked)
    chosen = [
        r for r in found if (r.id in known or is_safety_relevant(r.kind, r.content)) and bears_on(r.content, question)
    ]
    return sorted(chosen, key=lambda r: (r.created_at, r.id))[:count]


def _newest(layer: LayerParts, scope: Scope, kind: str, count: int) -> list[Record]:
    """The newest ``count`` memories of ``kind`` the context may show (a replaced decision is not in force)."""
    term = KIND_TERM + kind
    ids = layer.index.lookup(scope, [term], 4 * count + 8)[2].get(term, [])
    found = [r for r in layer.store.get(scope, ids) if r is not None and _may_show(r)] if ids else []
    return sorted(found, key=lambda r: (-r.created_at, r.id))[:count]


def problem_memories(layer: LayerParts, scope: Scope, session_id: str, since: float) -> list[Record]:
    """Episodes and facts of a session written since ``since`` with a problem cue (for feedback)."""
    ids = layer.index.lookup(scope, ["s:" + session_id], 30)[2].get("s:" + session_id, [])
    found = [r for r in layer.store.get(scope, ids) if r is not None] if ids else []
    return [
        r
        for r in found
        if r.kind in (Episodes.kind, Facts.kind) and r.created_at >= since and has_problem_cue(r.content)
    ]


__all__ = ["Context", "RecalledMemory", "recall", "retrieve", "idf", "Filter", "goal_line"]
