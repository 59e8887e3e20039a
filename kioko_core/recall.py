"""recall(): hybrid retrieval fused with RRF, spreading activation over the links, and the context text."""

from __future__ import annotations

import heapq
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import links as L
from .activation import gather, spread
from .index import idf, nominates, term_weight
from .linker import KIND_TERM
from .store import Filter, Record, Scope, check_scope
from .text import analyze, has_problem_cue

if TYPE_CHECKING:
    from .layer import MemoryLayer

RRF_K = 60
DEFAULT_LINKS = 3
MAX_LINK_LINES = 6
LINES_PER_MEMORY = 2
GOAL_QUESTION = re.compile(r"\bgoals?\b|\bfocus on\b|\bpriorit", re.IGNORECASE)

# Which section of the context each kind goes to, and the sections' order and titles.
SECTIONS = [
    ("memories", "Relevant memories:"),
    ("decisions", "Decisions in force:"),
    ("procedures", "Procedures that may apply:"),
    ("skills", "Skills:"),
    ("lessons", "Lessons from earlier attempts:"),
    ("goals", "Open goals:"),
]
SECTION_OF = {"decision": "decisions", "procedural": "procedures", "skill": "skills", "strategy": "lessons",
              "goal": "goals"}
RELATIONS_FIRST = {"derived_from": 1}  # provenance after relations
AUTHOR_ORDER = {"auto": 0, "llm": 0, "structure": 1, "feedback": 2, "manual": 3}


@dataclass
class RecalledMemory:
    """A memory in a context: the record, its fused score, and why it is there (``signals``)."""

    record: Record
    score: float
    signals: dict[str, float] = field(default_factory=dict)
    section: str = "memories"

    def __getattr__(self, name: str) -> Any:
        return getattr(self.record, name)  # id, content, kind, metadata ... read through


@dataclass
class Context:
    """What recall returns: the text for the agent, the memories with their signals, and the links shown."""

    query: str
    text: str
    memories: list[RecalledMemory]
    links: list[L.MemoryLink]

    def __str__(self) -> str:
        return self.text


@dataclass
class RecallConfig:
    candidates: int = 20
    """Per signal: how many candidates knn, BM25 and the entity graph each nominate."""
    limit: int = 8
    """How many retrieved memories the context shows."""
    min_vector_only: float = 0.3
    """h: a memory only the vector search found must be at least this similar."""
    goals: int = 10


def _rank(scores: dict[str, float]) -> dict[str, int]:
    ordered = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return {key: rank for rank, (key, _) in enumerate(ordered, 1)}


def retrieve(layer: MemoryLayer, scope: Scope, query: str, config: RecallConfig,
             session_id: str | None = None) -> tuple[dict[str, float], dict[str, dict[str, float]], dict[str, Record], list[Record]]:
    """Candidates from knn, BM25 and the entity graph, fused with RRF; recency breaks near-ties.

    Returns (fused score per id, signals per id, the records loaded, open goals).
    """
    known = layer.entities.match_entities(query, user_id=scope.user_id)
    analysis = analyze(query, known)
    related = layer.entities.related_entities(analysis.entities, user_id=scope.user_id) if analysis.entities else {}
    graph_terms = ["e:" + o for rels in related.values() for o, _ in rels if o not in analysis.entities]
    goal_term = KIND_TERM + "goal"
    n, df, postings = layer.index.lookup(scope, analysis.terms + graph_terms + [goal_term],
                                         layer.linker.config.postings_limit)

    lexical: dict[str, float] = {}
    for term in analysis.terms:
        if not nominates(df.get(term, 0), n):
            continue
        weight = term_weight(term, df.get(term, 0), n)
        for memory_id in postings.get(term, []):
            lexical[memory_id] = lexical.get(memory_id, 0.0) + weight
    entity: dict[str, float] = {}
    for term in [t for t in analysis.terms if t.startswith("e:")] + graph_terms:
        for memory_id in postings.get(term, [])[: config.candidates]:
            entity[memory_id] = entity.get(memory_id, 0.0) + (1.0 if term in analysis.terms else 0.5)
    dense: dict[str, float] = {}
    if n:
        for hit in layer.store.knn(scope, layer.embedder.embed(query), config.candidates):
            dense[hit.id] = hit.score

    lexical = dict(heapq.nsmallest(config.candidates, lexical.items(), key=lambda kv: (-kv[1], kv[0])))
    dense = {i: v for i, v in dense.items() if v >= config.min_vector_only or i in lexical or i in entity}
    fused: dict[str, float] = {}
    signals: dict[str, dict[str, float]] = {}
    for name, scores in (("bm25", lexical), ("dense", dense), ("entity", entity)):
        for memory_id, rank in _rank(scores).items():
            fused[memory_id] = fused.get(memory_id, 0.0) + 1.0 / (RRF_K + rank)
            signals.setdefault(memory_id, {})[name] = round(scores[memory_id], 4)

    # load only the best of the fused list (and the open goals): a recall reads a bounded number of records
    ranked = sorted(fused, key=lambda i: (-fused[i], i))
    goal_ids = postings.get(goal_term, [])[: config.goals]
    records: dict[str, Record] = {}
    shortlist = max(2 * config.limit, 16)
    wanted = ranked[:shortlist] + [g for g in goal_ids if g not in fused]
    records.update({r.id: r for r in layer.store.get(scope, wanted) if r is not None} if wanted else {})
    shown = [i for i in ranked[:shortlist] if i in records and _may_show(records[i])]
    if len(shown) < config.limit and len(ranked) > shortlist:
        more = ranked[shortlist:shortlist + 4 * config.limit]
        records.update({r.id: r for r in layer.store.get(scope, more) if r is not None})
        shown += [i for i in more if i in records and _may_show(records[i])]
    goals = [records[i] for i in goal_ids if i in records and records[i].metadata.get("status", "open") == "open"]

    # recency only orders what the other signals found: it never nominates on its own
    newest = _rank({i: records[i].created_at for i in shown})
    kept = {i: fused[i] + 0.1 / (RRF_K + newest[i]) for i in shown}
    for memory_id, score in kept.items():
        signals[memory_id]["rrf"] = round(score, 6)
    return kept, {i: signals[i] for i in kept}, records, goals


def _may_show(record: Record) -> bool:
    """Same filters as retrieval: not superseded, a memory (not bookkeeping), not working memory."""
    return record.kind in L.LINKABLE_KINDS and not record.metadata.get("superseded_by")


def recall(layer: MemoryLayer, query: str, *, user_id: str, agent_id: str | None = None,
           session_id: str | None = None, links: int | None = None, limit: int | None = None,
           include_shared: bool = False) -> Context:
    """The context for ``query``: retrieved memories, the ones their links bring, and how they connect."""
    scope = check_scope((user_id, agent_id))
    config = RecallConfig(limit=limit or RecallConfig.limit)
    linker_config = layer.linker.config
    expand = DEFAULT_LINKS if links is None else max(0, int(links))
    now = time.time()
    fused, signals, records, goals = retrieve(layer, scope, query, config, session_id)
    if include_shared and scope.user_id != L.SHARED_USER:
        shared = retrieve(layer, Scope(L.SHARED_USER, None), query, config, session_id)
        for memory_id, score in shared[0].items():
            fused[memory_id] = fused.get(memory_id, 0.0) + score
            signals.setdefault(memory_id, {}).update(shared[1][memory_id], shared=1.0)
        records.update(shared[2])
    chosen = sorted(fused, key=lambda i: (-fused[i], i))[: config.limit]
    recalled = {i: RecalledMemory(records[i], fused[i], signals[i], SECTION_OF.get(records[i].kind, "memories"))
                for i in chosen}
    about_goals = bool(GOAL_QUESTION.search(query))
    query_words = set(analyze(query).terms)
    named_goals = [g for g in goals if about_goals or query_words & set(g.terms)]
    brought: set[str] = set()

    seeds = [records[i] for i in chosen] + [g for g in named_goals if g.id not in recalled]
    hood = None
    if expand > 0 and seeds and any(L.link_entries(s) for s in seeds):
        hood = gather(layer.store, scope, seeds, fanout=linker_config.fanout, max_nodes=linker_config.max_nodes,
                      min_weight=linker_config.min_weight, half_life_days=linker_config.half_life_days, now=now,
                      include_shared=include_shared)
        seed_scores = {i: fused.get(i, min(fused.values(), default=1.0)) for i in (s.id for s in seeds)}
        activation = spread(hood, seed_scores, linker_config.restart, linker_config.iterations)
        strongest_seed = max((activation[i] for i in seed_scores if i in activation), default=0.0) or 1.0
        shown_goals = {g.id for g in goals}
        others = [i for i in activation if i not in seed_scores and i not in shown_goals
                  and _may_show(hood.records[i]) and activation[i] > 0]
        others.sort(key=lambda i: (-activation[i], i))
        for memory_id in others[:expand]:
            record = hood.records[memory_id]
            recalled[memory_id] = RecalledMemory(record, 0.0, {"linked": round(activation[memory_id] / strongest_seed, 4)},
                                                 SECTION_OF.get(record.kind, "memories"))
            brought.add(memory_id)

    for goal in goals:
        if goal.id not in recalled:
            recalled[goal.id] = RecalledMemory(goal, 0.0, {"goal": 1.0}, "goals")
    always = {g.id for g in goals} - ({g.id for g in named_goals} if named_goals else set())
    shown_links = _links_section(layer, recalled, brought, always, hood, now)
    text = _render(recalled, shown_links)
    return Context(query=query, text=text, memories=list(recalled.values()), links=shown_links)


def _links_section(layer: MemoryLayer, recalled: dict[str, RecalledMemory], brought: set[str],
                   always: set[str], hood: Any, now: float) -> list[L.MemoryLink]:
    """Links among the context's memories, in the spec's order, at most 6, at most 2 per memory while others wait."""
    found: dict[tuple[str, str], L.MemoryLink] = {}
    for memory_id, memory in recalled.items():
        for entry in L.link_entries(memory.record):
            other = entry["id"]
            if other not in recalled or other == memory_id:
                continue
            if memory_id in always and other in always:
                continue  # goals and their sub-goals explain nothing unless the question is about them
            key = (min(memory_id, other), max(memory_id, other))
            if key not in found:
                found[key] = L.MemoryLink.from_entry(memory.record, entry, recalled[other].record)
    half_life = layer.linker.config.half_life_days

    def order(link: L.MemoryLink) -> tuple:
        brings = 0 if (link.source in brought or link.target in brought) else 1
        return (brings, RELATIONS_FIRST.get(link.type, 0), AUTHOR_ORDER.get(link.by, 0), -link.faded(now, half_life),
                link.source, link.target)

    ranked = sorted(found.values(), key=order)
    chosen: list[L.MemoryLink] = []
    uses: dict[str, int] = {}
    for link in ranked:
        if len(chosen) < MAX_LINK_LINES and uses.get(link.source, 0) < LINES_PER_MEMORY \
                and uses.get(link.target, 0) < LINES_PER_MEMORY:
            chosen.append(link)
            uses[link.source] = uses.get(link.source, 0) + 1
            uses[link.target] = uses.get(link.target, 0) + 1
    for link in ranked:  # nothing else is waiting: the remaining slots go to the ones held back
        if len(chosen) >= MAX_LINK_LINES:
            break
        if link not in chosen:
            chosen.append(link)
    return sorted(chosen, key=order)


def _render(recalled: dict[str, RecalledMemory], shown_links: list[L.MemoryLink]) -> str:
    blocks: list[str] = []
    for section, title in SECTIONS:
        members = [m for m in recalled.values() if m.section == section]
        members.sort(key=lambda m: (-m.score, -m.signals.get("linked", 0.0), m.record.created_at))
        if members:
            blocks.append(title + "\n" + "\n".join(f"- {m.record.content}" for m in members))
    if shown_links:
        blocks.append("How these memories connect:\n" + "\n".join(f"- {link.line()}" for link in shown_links))
    return "\n\n".join(blocks)


def problem_memories(layer: MemoryLayer, scope: Scope, session_id: str, since: float) -> list[Record]:
    """Episodes and facts of a session written since ``since`` with a problem cue (for feedback)."""
    ids = layer.index.lookup(scope, ["s:" + session_id], 30)[2].get("s:" + session_id, [])
    found = [r for r in layer.store.get(scope, ids) if r is not None] if ids else []
    return [r for r in found if r.kind in ("episodic", "factual") and r.created_at >= since
            and has_problem_cue(r.content)]


__all__ = ["Context", "RecalledMemory", "recall", "retrieve", "idf", "Filter"]
