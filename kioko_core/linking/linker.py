"""The write path's linker: anchor, candidates, evidence, combine, gate, type, store (spec section 3)."""

from __future__ import annotations

import time
from dataclasses import dataclass, fields, replace
from typing import Any, Mapping

import numpy as np

from kioko_core.embedding.embedders import Embedder, OfflineEmbedder
from kioko_core.graph.entities import GRAPH_AGENT, EntityGraph
from kioko_core.kinds.registry import prior  # noqa: F401  (the priors were read from here)
from kioko_core.linking import links
from kioko_core.linking.index import IndexCache, nominates, one_read, own_copy
from kioko_core.linking.scoring import (  # noqa: F401
    TWO_HOURS,
    Evaluated,
    Evidence,
    Side,
    Stats,
    explain_chosen,
    explanation,
    link_type,
    score_candidates,
    score_pair,
    vote,
    vote_rows,
)
from kioko_core.linking.scoring import (
    LinkScore as LinkScore,  # read through this module too (kioko.remote.client, the service)
)
from kioko_core.privacy.secrets import get_logger
from kioko_core.reading.analysis import Analysis, analyze

# what a memory is indexed under is the reading's (the draft's terms); read through this module too
from kioko_core.reading.query_and_draft import CONTENT_TERM as CONTENT_TERM
from kioko_core.reading.query_and_draft import KIND_TERM as KIND_TERM
from kioko_core.reading.query_and_draft import PIN_TERM as PIN_TERM
from kioko_core.reading.query_and_draft import SESSION_TERM as SESSION_TERM
from kioko_core.reading.query_and_draft import content_term as content_term
from kioko_core.reading.query_and_draft import index_terms as index_terms
from kioko_core.reading.query_and_draft import pin_terms as pin_terms
from kioko_core.store import (
    ConflictError,
    IdTaken,
    InvalidRecordError,
    Op,
    Record,
    Scope,
    Store,
    Upsert,
    check_record,
    cosines,
    record_copy,
)

log = get_logger("kioko.linker")

TURN_WEIGHT = 0.35
"""The weight of a link to the turn before (when the pair's own evidence scores lower)."""
TURN_BEFORE_WHY = "the turn before it in the same session"
"""How a turn-before link's ``why`` starts: recall tells it from the other links of a session by it."""


@dataclass
class LinkerConfig:
    """The spec's constants (section 10), by their names."""

    threshold: float = 0.35
    max_new: int = 5
    max_degree: int = 12
    candidates: int = 24
    half_life_days: float = 180.0
    min_weight: float = 0.1
    h: float = 0.3
    """The ranker's min_vector_only: the similarity scale of the sem signal."""
    session_candidates: int = 30
    top_terms: int = 12
    postings_limit: int = 200
    """Newest ids read per voting term: bounds the votes a common-but-not-hub term casts."""
    shared_candidates: int = 12
    cache_ttl: float = 600.0
    restart: float = 0.5
    iterations: int = 20
    fanout: int = 8
    max_nodes: int = 40
    cross_new: int = 0
    """Up to this many more links, on top of ``max_new``, to memories of other sessions whose evidence passes
    the gate with a score of at least ``cross_threshold`` (the second half of a multi-hop answer sits in
    another session and scores lower than the same session's turns). Off by default: on the LoCoMo
    development split 3 (with ``max_degree=18``) raised multi-hop R@10 at links=3 by 0.03 / 0.01 (parts A / B)
    but lowered open-domain (A) or single-hop (B) by 0.02 / 0.01 (docs/recall.md)."""
    cross_threshold: float = 0.25
    link_turns: bool = True
    """Link an event to the event just before it in its session (a conversation's previous turn)."""

    @classmethod
    def build(cls, options: dict[str, Any] | None = None, **more: Any) -> LinkerConfig:
        values = {**(options or {}), **more}
        known = {f.name for f in fields(cls)}
        unknown = set(values) - known
        if unknown:
            raise TypeError(f"unknown linker option(s) {sorted(unknown)}; known: {sorted(known)}")
        return cls(**values)


# --------------------------------------------------------------------------- the linker


@dataclass
class Plan:
    """What one write will store: the records to upsert (with the versions they were read at) and the links."""

    ops: list[Op]
    links: list[links.MemoryLink]
    dropped: int = 0


class _OwnLinks:
    """The adjacency list of the memory being written, changed in place while its links are planned.

    The memory's record is built once, from :meth:`system`, when the plan is complete, rather than copied at
    every link put or dropped (as a neighbour is: each neighbour is a record of its own in the batch). The
    operations are :func:`~kioko_core.linking.links.put_link`'s, ``drop_link``'s and ``entry_for``'s."""

    def __init__(self, memory_id: str, system: dict[str, Any]) -> None:
        self.id = memory_id
        self._system = system
        self.entries = links.entries_in(system)
        unlinked = system.get("unlinked")
        self._unlinked = {i for i in unlinked if isinstance(i, str)} if isinstance(unlinked, list) else set()
        self._changed = False

    def put(self, link: links.MemoryLink) -> None:
        other = link.target if self.id == link.source else link.source
        self.entries = [e for e in self.entries if e["id"] != other] + [link.entry(self.id)]
        self._changed = True

    def drop(self, other_id: str) -> None:
        self.entries = [e for e in self.entries if e["id"] != other_id]
        self._changed = True

    def entry_for(self, other_id: str) -> dict[str, Any] | None:
        return next((e for e in self.entries if e["id"] == other_id), None)

    def was_unlinked(self, other_id: str) -> bool:
        return other_id in self._unlinked

    def system(self, **fields: Any) -> dict[str, Any]:
        """The memory's bookkeeping with its links as planned and ``fields`` set."""
        system = dict(self._system)
        if self._changed:
            system["links"] = self.entries
        system.update(fields)
        return system


_SHARED_SCOPE = Scope(links.SHARED_USER, None)


def _scope_of(record: Record) -> Scope:
    """``record.scope``, built here: the plan takes the scope once instead of asking the record each time."""
    return Scope(record.user_id, record.agent_id)


class MemoryLinker:
    """Links each new memory to the memories it belongs with, using nothing but the Store protocol."""

    hands_out_written = True
    """Whether the record a write stores goes to the caller (``add`` returns it): the caller then gets a copy of it. A
    batch's linker (:mod:`kioko_core.layer.bulk`), whose caller is handed copies, hands out the record itself."""

    def __init__(
        self,
        store: Store,
        *,
        embedder: Embedder | None = None,
        graph: EntityGraph | None = None,
        index: IndexCache | None = None,
        config: LinkerConfig | None = None,
        **options: Any,
    ) -> None:
        self.store = store
        self.config = config or LinkerConfig.build(options)
        self.embedder = embedder or OfflineEmbedder(getattr(store, "dim", 256))
        self.graph = graph or EntityGraph(store)
        self.index = index or IndexCache(store, ttl=self.config.cache_ttl)

    # -- step 1

    def analyze(self, content: str, user_id: str) -> Analysis:
        """Entities and salient terms of ``content``, with the names this user's entity graph knows.

        Runs before the write is stored, so an entity graph that cannot answer must not fail it (linking
        never breaks a write): the text is then analysed without the graph's names.
        """
        try:
            known = self.graph.match_entities(content, user_id=user_id)
        except Exception:
            log.exception("the entity graph could not match entities; analysing without its names")
            known = []
        return analyze(content, known)

    # -- steps 2-7

    def plan(
        self,
        record: Record,
        analysis: Analysis,
        previous: Record | None = None,
        now: float | None = None,
        unwritten: Mapping[str, Record] | None = None,
    ) -> Plan:
        """Links for ``record`` (new, or ``previous`` re-derived) and the ops that store them in one batch.

        ``unwritten``: records of the scope as a caller will store them but has not yet (connect's batch of
        relinks); they are read from there instead of the store, so the plan sees them as written.
        """
        now = time.time() if now is None else now
        scope = _scope_of(record)
        m = Side.of(record, analysis)
        config = self.config
        bridges = self.graph.related_entities(m.entities, user_id=record.user_id) if m.entities else {}
        bridged_terms = ["e:" + other for rels in bridges.values() for other, _ in rels if other not in m.entities]
        session_term = [SESSION_TERM + record.session_id] if record.session_id else []
        looked = self.index.lookup_rows(scope, m.terms + bridged_terms + session_term, config.postings_limit)
        n, df, postings = looked.n, looked.df, looked.ids
        old_terms = set(previous.terms) if previous is not None else set()
        # statistics as they will be once this write lands
        if previous is None or not previous.terms:
            n += 1 if m.terms else 0
        for term in m.terms:
            df[term] = df.get(term, 0) - (term in old_terms) + 1
        stats = Stats(n=n, df=df, bridges=bridges)

        ranked_terms = sorted(m.terms, key=lambda t: (-stats.w(t), t))[: config.top_terms]
        nominated = vote_rows(ranked_terms + bridged_terms, looked, stats, config.candidates, record.id)
        if session_term:
            nominated += [i for i in postings.get(session_term[0], [])[: config.session_candidates] if i != record.id]
        if record.embedding is not None and (self.store.capabilities.native_knn or not self.embedder.lexical):
            nominated += [
                hit.id for hit in self.store.knn(scope, record.embedding, config.candidates) if hit.id != record.id
            ]
        structural = structural_targets(record)
        old_auto = (
            [e["id"] for e in links.link_entries(previous) if e.get("by") in links.CAPPED_AUTHORS and not e.get("from")]
            if previous is not None
            else []
        )
        wanted = list(dict.fromkeys(nominated + [t for t, _ in structural] + old_auto))
        loaded = self._records(scope, wanted, unwritten) if wanted else {}

        candidates = [loaded[i] for i in dict.fromkeys(nominated) if i in loaded and _may_link(record, loaded[i])]
        head = None
        if record.metadata.get("superseded_by"):
            # history: what the algorithm finds for a replaced decision goes to the newest decision in its chain
            head, chain = self._newest_decision(record, unwritten)
            candidates = [c for c in candidates if head is not None and c.id not in chain]
            if head is not None:
                loaded[head.id] = head
        sides = [Side.of_stored(c) for c in candidates]
        if candidates:
            # a candidate's own terms are weighed only for its total weight, which the share signal reads only when
            # it shares a term with the memory: the others (most of a session's turns) need none of theirs counted.
            # A bridge's hub test reads the memory's and the bridged terms, counted above; with bridges every
            # candidate's terms are counted all the same, as before.
            mine = m.term_set
            weighed = sides if bridges else [side for side in sides if not mine.isdisjoint(side.term_set)]
            extra = set().union(*[side.term_set for side in weighed]).difference(df)
            if extra:
                df.update(self.index.counts(scope, extra)[1])
        stats.weigh()
        cosines_found = self._cosines(record.embedding, candidates)
        # the candidates that may be linked scored in one call, the others when asked for (the turn before)
        floor = min(config.threshold, config.cross_threshold) if config.cross_new > 0 else config.threshold
        evaluated = Evaluated(
            m, sides, cosines_found, stats, config, self.embedder.lexical, analysis.place_terms, floor
        )
        found = [(c, evaluated.get(c.id)) for c in candidates]
        scored = [(c, ev) for c, ev in found if ev is not None and ev.evidence and ev.score >= config.threshold]
        if (
            record.user_id != links.SHARED_USER
            and config.shared_candidates > 0
            and not record.metadata.get("superseded_by")
        ):
            scored += self._shared(m, record, analysis, bridges)
        scored.sort(key=lambda pair: (-pair[1].score, pair[0].id))
        chosen = scored[: config.max_new]
        if config.cross_new > 0:
            chosen += self._across(record, candidates, chosen, evaluated)
        turn_before = self._turn_before(record, candidates, chosen, evaluated)
        if turn_before is not None:
            chosen.append(turn_before)
        explain_chosen(m, [ev for _, ev in chosen], stats)  # explanations only for the links that are made
        return self._store_plan(record, scope, previous, chosen, structural, loaded, now, head, unwritten)

    def _records(self, scope: Scope, ids: list[str], unwritten: Mapping[str, Record] | None) -> dict[str, Record]:
        """The records of ``scope`` among ``ids``: unwritten ones as the caller holds them, the others cached."""
        if not unwritten:
            return self.index.records(scope, ids)
        found = self.index.records(scope, [i for i in ids if i not in unwritten])
        found.update((i, unwritten[i]) for i in ids if i in unwritten)
        return found

    def _record(self, scope: Scope, record_id: str, unwritten: Mapping[str, Record] | None) -> Record | None:
        """One record of ``scope`` from the store (or as the caller holds it unwritten); None if missing."""
        if unwritten and record_id in unwritten:
            return unwritten[record_id]
        return _first(self.store.get(scope, [record_id]))

    def _far_ends(
        self,
        record_id: str,
        scope: Scope,
        me: _OwnLinks,
        updated: Mapping[str, Record],
        loaded: Mapping[str, Record],
        now: float,
        unwritten: Mapping[str, Record] | None,
        capped: Mapping[str, tuple[Record, list[str]]],
    ) -> dict[str, Record]:
        """The memories at the far end of every link the degree cap may drop, in one read, as the candidates
        are read (the index cache, whose records are the store's at its generation): a linked write drops one
        most of the time. Read one at a time, a write made as many reads as the cap dropped links to memories
        it had not loaded, a number set by which neighbours were full, i.e. by how the random ids broke ties:
        a write's store calls were then not bounded. The ids asked are a superset of those the cap drops (a
        record that loses a link before its own cap is checked drops a subset of these). A cached copy older
        than the store's is a conflict at the write (its expected version), which re-plans with the cache
        emptied, as for any candidate."""
        config = self.config
        losers = [dropped for _, dropped in capped.values()]
        losers.append(links.weakest_of(me.entries, config.max_degree, now, config.half_life_days))
        wanted = {
            loser
            for dropped in losers
            for loser in dropped
            if loser not in updated and loser not in loaded and loser != record_id
        }
        return self._records(scope, sorted(wanted), unwritten) if wanted else {}

    def _capped(self, updated: Mapping[str, Record], now: float) -> dict[str, tuple[Record, list[str]]]:
        """Each changed neighbour (as it is now) and the ids the degree cap drops from it: computed once, for
        :meth:`_far_ends` and the cap itself (which recomputes only a neighbour a drop changed in between)."""
        config = self.config
        return {
            owner_id: (owner, links.weakest_capped(owner, config.max_degree, now, config.half_life_days))
            for owner_id, owner in updated.items()
        }

    def _across(
        self,
        record: Record,
        candidates: list[Record],
        chosen: list[tuple[Record, Evidence]],
        evaluated: dict[str, Evidence],
    ) -> list[tuple[Record, Evidence]]:
        """Up to ``cross_new`` more links to memories of other sessions, with evidence and a lower score."""
        taken = {c.id for c, _ in chosen}
        found = [
            (c, evaluated[c.id])
            for c in candidates
            if c.id not in taken
            and c.id in evaluated
            and (not record.session_id or c.session_id != record.session_id)
            and evaluated[c.id].evidence
            and evaluated[c.id].score >= self.config.cross_threshold
        ]
        found.sort(key=lambda pair: (-pair[1].score, pair[0].id))
        return found[: self.config.cross_new]

    def _turn_before(
        self,
        record: Record,
        candidates: list[Record],
        chosen: list[tuple[Record, Evidence]],
        evaluated: dict[str, Evidence],
    ) -> tuple[Record, Evidence] | None:
        """The event just before this one in its session, linked ``follows`` even without shared words.

        In a conversation a turn is read with the turn before it: "Yes, last Sunday!" answers the
        question it follows. Both must be events of one session, at most two hours apart; the link is
        the weakest kind (weight 0.35, unless the evidence scored higher), so the degree cap drops it first.
        """
        if record.kind != "episodic" or not record.session_id or not self.config.link_turns:
            return None
        earlier = [
            c
            for c in candidates
            if c.kind == "episodic"
            and c.session_id == record.session_id
            and c.created_at <= record.created_at
            and record.created_at - c.created_at <= TWO_HOURS
        ]
        if not earlier:
            return None
        before = max(earlier, key=lambda c: (c.created_at, c.id))
        if any(c.id == before.id for c, _ in chosen):
            return None
        ev = replace(evaluated[before.id])  # scored with the other candidates already: a copy to change
        ev.score = max(ev.score, TURN_WEIGHT)
        if ev.type != "resolves":  # a fix keeps its direction; anything else follows the turn before
            ev.type, ev.source_is_first = "follows", True
        ev.evidence = True
        minutes = round((record.created_at - before.created_at) / 60)
        ev.why = f"{TURN_BEFORE_WHY}, {minutes} min apart"
        ev._context = ()
        return before, ev

    @staticmethod
    def _cosines(embedding: np.ndarray | None, candidates: list[Record]) -> list[float | None]:
        """Each candidate's cosine with ``embedding`` (None where either has none), in one product."""
        if embedding is None:
            return [None] * len(candidates)
        vectors_of = [c.embedding for c in candidates]
        shape = embedding.shape
        if all(v is not None and v.shape == shape for v in vectors_of):  # every candidate has one (the common case)
            return cosines(embedding, vectors_of)  # type: ignore[arg-type,return-value]
        ids: list[str] = []
        vectors: list[np.ndarray] = []
        for candidate in candidates:
            if candidate.embedding is not None and candidate.embedding.shape == embedding.shape:
                ids.append(candidate.id)
                vectors.append(candidate.embedding)
        found = dict(zip(ids, cosines(embedding, vectors)))
        return [found.get(c.id) for c in candidates]

    def _newest_decision(
        self, record: Record, unwritten: Mapping[str, Record] | None = None, hops: int = 8
    ) -> tuple[Record | None, set[str]]:
        """The newest decision in a chain of replacements (None if the chain breaks), and every id on it."""
        chain = {record.id}
        current = record
        for _ in range(hops):
            following = current.metadata.get("superseded_by")
            if not isinstance(following, str) or following in chain:
                break
            found = self._record(record.scope, following, unwritten)
            if found is None:
                return None, chain
            chain.add(found.id)
            current = found
        return (current if current.id != record.id and not current.metadata.get("superseded_by") else None), chain

    def _shared(
        self, m: Side, record: Record, analysis: Analysis, bridges: dict[str, list[tuple[str, Any]]]
    ) -> list[tuple[Record, Evidence]]:
        """Up to 12 candidates from the shared knowledge base, scored with its own statistics."""
        config = self.config
        shared_scope = Scope(links.SHARED_USER, None)
        n, df, postings = self.index.lookup(shared_scope, m.terms, config.postings_limit)
        if n == 0:
            return []
        stats = Stats(n=n, df=dict(df), bridges=bridges)
        ranked_terms = sorted(m.terms, key=lambda t: (-stats.w(t), t))[: config.top_terms]
        top = [
            i
            for i, _ in vote(
                ranked_terms,
                postings,
                stats.w,
                config.shared_candidates,
                nominates=lambda t: nominates(df.get(t, 0), n),
            )
        ]
        found = (
            [
                r
                for r in self.store.get(shared_scope, top)
                if r is not None and r.kind in links.LINKABLE_KINDS and not r.metadata.get("superseded_by")
            ]
            if top
            else []
        )
        extra = {t for c in found for t in c.terms if t.startswith(("e:", "t:")) and t not in stats.df}
        if extra:
            stats.df.update(self.index.counts(shared_scope, extra)[1])
        scored = []
        sides = [Side.of(candidate) for candidate in found]
        no_cosines = [None] * len(found)  # score_pair computes each (the shared memories are not in the product)
        evidence = score_candidates(m, sides, no_cosines, stats, config, self.embedder.lexical, analysis.place_terms)
        for candidate, ev in zip(found, evidence):
            if ev.evidence and ev.score >= config.threshold:
                ev._stats = stats
                scored.append((candidate, ev))
        return scored

    def _store_plan(
        self,
        record: Record,
        scope: Scope,
        previous: Record | None,
        chosen: list[tuple[Record, Evidence]],
        structural: list[tuple[str, str]],
        loaded: dict[str, Record],
        now: float,
        head: Record | None = None,
        unwritten: Mapping[str, Record] | None = None,
    ) -> Plan:
        """Step 7: both adjacency lists, the degree cap, one batch of versioned upserts.

        The new memory's own links are gathered in an :class:`_OwnLinks` and its record is built once, at the
        end; the neighbours are changed copy by copy (each is a record of its own in the batch)."""
        updated: dict[str, Record] = {}
        system = record.system if record.system is not None else links.bookkeeping(record)
        me = _OwnLinks(record.id, system)
        made: list[links.MemoryLink] = []
        # a re-derive drops the memory's own automatic links first (taken-over ones stay)
        if previous is not None:
            for entry in links.link_entries(previous):
                if entry.get("by") in links.CAPPED_AUTHORS and not entry.get("from"):
                    me.drop(entry["id"])
                    other = updated.get(entry["id"]) or loaded.get(entry["id"])
                    if other is not None:
                        updated[other.id] = links.drop_link(other, record.id)
        for target_id, link_kind in structural:
            partner = updated.get(target_id) or loaded.get(target_id)
            if partner is None:
                continue
            link = links.MemoryLink(
                source=record.id,
                target=target_id,
                type=link_kind,
                weight=1.0,
                by="structure",
                why=_structuralexplanation(link_kind),
                at=now,
                seen=now,
            )
            me.put(link)
            updated[target_id] = links.put_link(partner, link)
            made.append(link)
        for candidate, ev in chosen:
            if candidate.scope != scope:
                # the shared knowledge base: stored on the user's memory only, never on shared data
                link = _auto_link(record.id, candidate.id, ev, now, shared=True)
                me.put(link)
                made.append(link)
                continue
            current = updated.get(candidate.id) or candidate
            if head is not None:
                owner = updated.get(head.id) or head
                if links.entry_for(owner, candidate.id) is not None or links.was_unlinked(owner, candidate.id):
                    continue  # the newest decision already has (or a person removed) a link to this memory
                link = _auto_link(head.id, candidate.id, ev, now, taken_from=record.id)
                updated[head.id], updated[candidate.id] = links.put_link(owner, link), links.put_link(current, link)
                made.append(link)
                continue
            existing = links.entry_for(current, record.id)
            if existing is not None and links.author_rank(existing.get("by", "auto")) < links.author_rank("auto"):
                continue  # a stronger author already joins them
            if me.was_unlinked(candidate.id) or links.was_unlinked(current, record.id):
                continue  # a person removed this link: the algorithm does not bring it back
            link = _auto_link(record.id, candidate.id, ev, now)
            me.put(link)
            updated[candidate.id] = links.put_link(current, link)
            made.append(link)
        for target_id, link_kind in structural:
            if link_kind == "supersedes" and (updated.get(target_id) or loaded.get(target_id)) is not None:
                self._take_over(me, scope, target_id, updated, loaded, now, unwritten)
        dropped = 0
        capped = self._capped(updated, now)
        far_ends = self._far_ends(record.id, scope, me, updated, loaded, now, unwritten, capped)
        for other_id in list(updated):
            owner, losers = capped[other_id]
            if owner is not updated[other_id]:  # a drop of an earlier neighbour's changed this one since
                losers = links.weakest_capped(
                    updated[other_id], self.config.max_degree, now, self.config.half_life_days
                )
            for loser in losers:
                updated[other_id] = links.drop_link(updated[other_id], loser)
                if loser == record.id:
                    me.drop(other_id)
                    made = [k for k in made if {k.source, k.target} != {record.id, other_id}]
                else:
                    far = updated.get(loser) or loaded.get(loser) or far_ends.get(loser)
                    if far is not None:
                        updated[loser] = links.drop_link(far, other_id)
                dropped += 1
        # the memory being written is capped too: max_new may exceed a small max_degree, and a takeover
        # brings the replaced decision's links on top of the new ones
        for loser in links.weakest_of(me.entries, self.config.max_degree, now, self.config.half_life_days):
            me.drop(loser)
            made = [k for k in made if {k.source, k.target} != {record.id, loser}]
            far = updated.get(loser) or loaded.get(loser) or far_ends.get(loser)
            if far is not None and far.scope == scope:  # a shared memory holds no half to drop
                updated[loser] = links.drop_link(far, record.id)
            dropped += 1
        entities = [t[2:] for t in record.terms if t.startswith("e:")]
        written = record_copy(record, {"system": me.system(entities=entities, linked_at=now)})
        ops: list[Op] = [Upsert(record=written, expected_version=previous.version if previous is not None else 0)]
        for other in updated.values():
            ops.append(Upsert(record=other, expected_version=other.version))
        return Plan(ops=ops, links=made, dropped=dropped)

    def _take_over(
        self,
        me: _OwnLinks,
        scope: Scope,
        old_id: str,
        updated: dict[str, Record],
        loaded: dict[str, Record],
        now: float,
        unwritten: Mapping[str, Record] | None = None,
    ) -> None:
        """Section 5: the new decision takes over the replaced one's links at 90 % of their weight.

        Links the algorithm made move (the old decision keeps only its supersedes link); links a person
        or feedback made stay on the old decision and are copied. Where the new decision already links
        that memory, the old link just goes. Happens once: the old decision is marked superseded_by.
        """
        old = updated.get(old_id) or loaded[old_id]
        if old.metadata.get("superseded_by"):
            return
        entries = [e for e in links.link_entries(old) if e["id"] != me.id and e.get("by") != "structure"]
        missing = [e["id"] for e in entries if e["id"] not in updated and e["id"] not in loaded]
        if missing:
            if unwritten:
                loaded.update(self._records(scope, missing, unwritten))
            else:
                loaded.update({r.id: r for r in self.store.get(scope, missing) if r is not None})
        for entry in entries:
            other = updated.get(entry["id"]) or loaded.get(entry["id"])
            moves = entry.get("by") in links.CAPPED_AUTHORS
            if moves:
                old = links.drop_link(old, entry["id"])
                if other is not None:
                    other = links.drop_link(other, old_id)
            if other is None or me.entry_for(other.id) is not None:
                if other is not None:
                    updated[other.id] = other
                continue
            outgoing = entry.get("dir") == "out"
            link = links.MemoryLink(
                source=me.id if outgoing else other.id,
                target=other.id if outgoing else me.id,
                type=entry.get("type", "related_to"),
                weight=round(0.9 * float(entry.get("w", 0)), 4),
                why=f"taken over from the decision it replaced ({entry.get('why', '')})",
                by=entry.get("by", "auto"),
                at=now,
                seen=float(entry.get("seen", now)),
                taken_from=old_id,
            )
            me.put(link)
            updated[other.id] = links.put_link(other, link)
        metadata = dict(old.metadata)
        metadata["superseded_by"] = me.id
        updated[old_id] = old.model_copy(update={"metadata": metadata})

    def write(
        self,
        record: Record,
        analysis: Analysis,
        previous: Record | None = None,
        attempts: int = 4,
        report: bool = False,
    ) -> Any:
        """Store ``record`` with its links; retry on a concurrent writer; never lose the write itself."""
        for attempt in range(attempts):
            try:
                with one_read():  # the plan's lookups of a scope (its terms, its candidates' terms) read one generation
                    # the scopes a plan looks up (the user's, their entity graph's, the shared knowledge base's) in
                    # one read where the store can: three reads a write otherwise
                    self.index.read_ahead([_scope_of(record), Scope(record.user_id, GRAPH_AGENT), _SHARED_SCOPE])
                    plan = self.plan(record, analysis, previous)
                stored = self.store.update_many(plan.ops)
            except IdTaken:
                raise  # the memory's own id is taken: planning the links again cannot change that
            except ConflictError:
                # a record read from the cache may have been older than the store's (another thread's write)
                self.index.forget_records(_scope_of(record))
                if previous is not None:
                    # ``record`` was built from ``previous``: re-planning it would write a stale copy back
                    # over the other writer's change, so the caller starts again from a fresh read
                    raise
                if attempt + 1 == attempts:
                    break
                continue
            except InvalidRecordError:
                # a memory the store refuses (a NUL in its text ...) is the caller's typed error, not a failed
                # linking: refused here, before it is logged as one
                check_record(record, self.store.dim)
                log.exception("linking %s failed; storing it without links", record.id)
                break
            except Exception:  # linking never breaks a write
                log.exception("linking %s failed; storing it without links", record.id)
                break
            else:
                handed = self._note_writes(plan.ops, stored, previous)
                return (handed, plan.links, plan.dropped) if report else (handed, plan.links)
        # unlinked, but never over a memory that is not the one read: a new memory's id must still be free,
        # an update's memory still at the version read (a stale copy never replaces another writer's change)
        stored = self.store.update_many(
            [Upsert(record=record, expected_version=(0 if previous is None else previous.version))]
        )
        self.index.record_write(record.scope, record.id, previous.terms if previous else [], record.terms)
        return (stored[0], [], 0) if report else (stored[0], [])

    def _note_writes(self, ops: list[Op], stored: list[Record | None], previous: Record | None) -> Record | None:
        """Tell the index cache what the batch wrote; the record to hand the caller (the memory as written)."""
        first = ops[0].record  # type: ignore[union-attr]
        scope, terms, old_terms = _scope_of(first), first.terms, previous.terms if previous is not None else []
        neighbours = [r for r in stored[1:] if r is not None]
        written = stored[0] if stored else None
        if written is not None and len(neighbours) == len(ops) - 1:
            # the neighbours and the memory as written go to the cache (the next write in its session nominates it),
            # the caller gets a copy: a record the layer handed out knows its fields' objects, so a link to it later
            # writes only its entries (a cached copy was rewritten whole: a quarter of a linked write's neighbours)
            self.index.record_written_with(scope, first.id, old_terms, terms, [*neighbours, written])
            return own_copy(written) if self.hands_out_written else written
        # not what a linker's batch returns: keep nothing of it
        self.index.record_write(scope, first.id, old_terms, terms)
        return written

    # -- explain

    def explain(self, a: Record, b: Record) -> LinkScore:
        """Score a pair from scratch (fresh analysis, the store's current statistics)."""
        first = self.analyze(a.content, a.user_id)
        second = self.analyze(b.content, b.user_id)
        left, right = Side.of(a, first), Side.of(b, second)
        bridges = self.graph.related_entities(left.entities, user_id=a.user_id) if left.entities else {}
        bridged = ["e:" + o for rels in bridges.values() for o, _ in rels]
        terms = list(dict.fromkeys(left.terms + right.terms + bridged))
        result = self.store.postings(a.scope, terms, 0)
        stats = Stats(n=result.n, df=dict(result.df), bridges=bridges)
        ev = score_pair(left, right, stats, self.config, self.embedder.lexical, first.place_terms | second.place_terms)
        linked = ev.evidence and ev.score >= self.config.threshold and _may_link(a, b)
        source, target = (a.id, b.id) if ev.source_is_first else (b.id, a.id)
        return LinkScore(
            score=round(ev.score, 3),
            linked=linked,
            type=ev.type,
            why=ev.why,
            signals=ev.signals(),
            source=source,
            target=target,
        )


def _first(records: list[Record | None]) -> Record | None:
    return records[0] if records else None


def _may_link(record: Record, other: Record) -> bool:
    """Same scope, a linkable kind, not history (superseded), not a chunk of the same document."""
    # the scopes compared field by field: building two Scope tuples per candidate cost more than the test
    if (
        other.id == record.id
        or other.user_id != record.user_id
        or other.agent_id != record.agent_id
        or other.kind not in links.LINKABLE_KINDS
    ):
        return False
    if other.metadata.get("superseded_by"):
        return False
    doc = record.metadata.get("document_id")
    return not (doc and doc == other.metadata.get("document_id"))


def structural_targets(record: Record) -> list[tuple[str, str]]:
    """(target id, link type) the memory's own fields name: parent goal, superseded decision, evidence."""
    return structural_targets_of(record.kind, record.metadata, record.id)


def structural_targets_of(kind: str, meta: Mapping[str, Any], record_id: str | None) -> list[tuple[str, str]]:
    """:func:`structural_targets` of a memory of ``kind`` with metadata ``meta`` (before its record is built)."""
    targets: list[tuple[str, str]] = []
    if kind == "goal" and isinstance(meta.get("parent"), str):
        targets.append((meta["parent"], "part_of"))
    if kind == "decision" and isinstance(meta.get("supersedes"), str):
        targets.append((meta["supersedes"], "supersedes"))
    for key in ("evidence", "episodes"):
        if isinstance(meta.get(key), list):
            targets += [(i, "derived_from") for i in meta[key] if isinstance(i, str)]
    return [(t, k) for t, k in dict.fromkeys(targets) if t != record_id]


def _auto_link(
    written: str, other: str, ev: Evidence, now: float, *, shared: bool = False, taken_from: str | None = None
) -> links.MemoryLink:
    """The algorithm's link between the memory ``written`` and ``other``, directed as the evidence says."""
    source, target = (written, other) if ev.source_is_first else (other, written)
    return links.MemoryLink(
        source=source,
        target=target,
        type=ev.type,
        weight=round(ev.score, 3),
        why=ev.why,
        by="auto",
        at=now,
        seen=now,
        shared=shared,
        taken_from=taken_from,
    )


def _structuralexplanation(kind: str) -> str:
    return {
        "part_of": "a sub-goal of this goal",
        "supersedes": "replaces this decision",
        "derived_from": "recorded as its evidence",
    }.get(kind, "from the memory's own fields")
