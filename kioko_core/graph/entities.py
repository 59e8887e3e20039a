"""The entity graph: who and what is related to what, per user, with temporal validity.

A fact is a :class:`Triple` ``(subject, relation, object)``, e.g. ``(Kioko) -uses-> (pgvector)``. Triples
are ordinary records of the :class:`~kioko_core.store.Store` protocol, kept in the user's graph scope
``Scope(user_id, GRAPH_AGENT)``, apart from every memory scope. They are never linked themselves; the
linker reads them as evidence (entity matching in step 1, the bridge signal in step 3 of the spec).

Validity is bi-temporal in the Zep/Graphiti sense: a triple holds from ``valid_from`` until ``valid_to``
(None: still holds). Contradicting a single-valued relation ("Kumar reports to Ravi" after "Kumar reports
to Krutika") closes the old triple instead of deleting it, so reads answer for now by default and for
any earlier date with ``as_of``. Every triple records its provenance in ``source``.

Cost. Every read is one :meth:`Store.postings` call plus one :meth:`Store.get` (``path`` does that once
per level); ``add`` and ``invalidate`` add one :meth:`Store.update_many`. Nothing here ever calls
:meth:`Store.scan`, so the linker's write path does not grow with the graph. Each postings call asks for
at most :data:`POSTINGS_LIMIT` ids per term, newest first: an entity with more triples than that (history
included) is read truncated to its newest ones.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from kioko_core.linking.index import IndexCache, one_read
from kioko_core.privacy.held_texts import forget_texts
from kioko_core.privacy.secrets import DropSecrets
from kioko_core.reading.analysis import TRAILING_PUNCTUATION, entity_key
from kioko_core.store import (
    ConflictError,
    Delete,
    InvalidRecordError,
    Record,
    Scope,
    ScopeGenerations,
    Store,
    Upsert,
    check_scope,
)

GRAPH_AGENT = "@graph"
"""Agent id of the graph scope: the triples of user U live in ``Scope(U, GRAPH_AGENT)``.

Keeping them out of every memory scope means they never count in a memory scope's postings ``n`` and
never show up among its records. The name is reserved: no real agent may be called ``"@graph"``.
"""

TRIPLE_KIND = "triple"
"""``Record.kind`` of a stored triple."""

SINGLE_VALUED: frozenset[str] = frozenset(
    {
        # people and organisations: one place, one employer, one manager, one role at a time
        "reports_to",
        "works_at",
        "works_for",
        "employed_by",
        "managed_by",
        "led_by",
        "owned_by",
        "assigned_to",
        "role",
        "title",
        "married_to",
        "lives_in",
        "born_in",
        "born_on",
        "age",
        # things: one location, one state, one current version
        "located_in",
        "based_in",
        "headquartered_in",
        "status",
        "state",
        "priority",
        "version",
        "current_version",
        "deadline",
        "due_date",
        "timezone",
    }
)
"""Relations where a subject has one object at a time, so a new object replaces (invalidates) the old.

Every other relation is multi-valued (``Kioko uses pgvector`` and ``Kioko uses Qdrant`` both hold)
unless :meth:`EntityGraph.add` is called with ``single_valued=True``. Names are in normalised form
(see :func:`relation_key`).
"""

POSTINGS_LIMIT = 500
"""Ids asked per term in one postings call; an entity with more triples is read truncated (newest kept)."""

MAX_NGRAM_WORDS = 4
"""Longest entity name, in words, that :meth:`EntityGraph.match_entities` can find in a text."""

MAX_MATCH_TERMS = 5000
"""Distinct word n-grams one match_entities call asks about; a longer text is matched on its beginning."""

GRAPH_CACHED_TERMS = 20_000
"""Per user, the graph's read cache keeps the counts of this many n-grams, the least recently asked dropped first:
every n-gram of every text matched is asked (most of them no entity), and they stayed until the graph changed."""

GRAPH_SWEEP_SECONDS = 1.0
"""How often a read of the graph also checks the other users' cached graphs for other processes' writes."""

PATH_FRONTIER = 1000
"""Entities :meth:`EntityGraph.path` expands per level at most, so a walk through hubs stays bounded."""

_WRITE_ATTEMPTS = 5
"""Tries of a write that lost a race with another writer (ConflictError) before giving up."""

_SECRETS = DropSecrets()

_POSSESSIVE = ("'s", "’s")


# --------------------------------------------------------------------------- keys


def relation_key(relation: str) -> str:
    """A relation in lower snake_case: ``"reports to"``, ``"Reports-To"``, ``"reportsTo"`` -> ``"reports_to"``."""
    split_camel = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", str(relation).strip())
    return re.sub(r"\W+", "_", split_camel.lower()).strip("_")


def _display_name(name: str) -> str:
    """A name as shown in lines: the caller's spelling, whitespace collapsed."""
    return " ".join(str(name).split())


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:32]


def _entity_term(key: str) -> str:
    return "e:" + key


def _slot_term(subject_key: str, relation: str) -> str:
    """Term shared by every triple of one (subject, relation): where a single-valued change looks."""
    return "slot:" + _digest(relation, subject_key)


def _source_term(source: str) -> str:
    """Term of every triple one source asserted: where forgetting a memory finds the facts it brought."""
    return "src:" + _digest(source)


def _triple_term(subject_key: str, relation: str, object_key: str) -> str:
    """Term shared by every version of one (subject, relation, object): where idempotency looks."""
    return "triple:" + _digest(relation, subject_key, object_key)


# --------------------------------------------------------------------------- the value


class Triple(BaseModel):
    """One fact of a user's entity graph, valid from ``valid_from`` until ``valid_to`` (None: still valid)."""

    # built at first use, not at import: building it here loads pydantic's plugins (a scan of every installed
    # distribution's entry points) in every process that merely opens a layer
    model_config = ConfigDict(frozen=True, defer_build=True)

    id: str
    subject: str
    """The subject as first written ("Kioko"); ``subject_key`` is what identifies it."""
    relation: str
    """Lower snake_case ("reports_to")."""
    object: str
    subject_key: str
    object_key: str
    valid_from: float
    valid_to: float | None = None
    source: str | None = None
    """Provenance: who or what asserted the fact (a memory id, ``"manual"``, a model ...)."""
    created_at: float

    def line(self) -> str:
        """The triple as a sentence: ``"Kioko uses pgvector"``, ``"Kumar reports to Krutika"``."""
        return f"{self.subject} {self.relation.replace('_', ' ')} {self.object}"

    def valid_at(self, t: float) -> bool:
        """True if the fact held at time ``t``: ``valid_from <= t < valid_to`` (no ``valid_to``: open-ended)."""
        return self.valid_from <= t and (self.valid_to is None or t < self.valid_to)

    def other(self, key: str) -> str:
        """The key at the other end of the triple from ``key`` (the subject's for the object and vice versa)."""
        return self.object_key if key == self.subject_key else self.subject_key

    def to_record(self, user_id: str) -> Record:
        """The record that stores this triple in ``user_id``'s graph scope."""
        return Record(
            id=self.id,
            user_id=user_id,
            agent_id=GRAPH_AGENT,
            kind=TRIPLE_KIND,
            content=self.line(),
            metadata={
                "subject": self.subject,
                "relation": self.relation,
                "object": self.object,
                "subject_key": self.subject_key,
                "object_key": self.object_key,
                "valid_from": self.valid_from,
                "valid_to": self.valid_to,
                "source": self.source,
            },
            terms=[
                _entity_term(self.subject_key),
                _entity_term(self.object_key),
                "r:" + self.relation,
                _slot_term(self.subject_key, self.relation),
                _triple_term(self.subject_key, self.relation, self.object_key),
                *([_source_term(self.source)] if self.source else []),
            ],
            created_at=self.created_at,
            updated_at=time.time(),
        )

    @classmethod
    def from_record(cls, record: Record) -> Triple | None:
        """The triple a record stores, or None when the record is not a well-formed triple."""
        if record.kind != TRIPLE_KIND:
            return None
        meta = record.metadata
        try:
            return cls(
                id=record.id,
                subject=meta["subject"],
                relation=meta["relation"],
                object=meta["object"],
                subject_key=meta["subject_key"],
                object_key=meta["object_key"],
                valid_from=meta["valid_from"],
                valid_to=meta.get("valid_to"),
                source=meta.get("source"),
                created_at=record.created_at,
            )
        except (KeyError, TypeError, ValueError):
            # someone else's record in the graph scope: not ours to interpret, so it is not a fact
            return None


# --------------------------------------------------------------------------- the graph


class EntityGraph:
    """A user's triples over any :class:`Store`; every method is scoped by ``user_id``."""

    def __init__(self, store: Store) -> None:
        """Read and write triples through ``store``'s protocol methods only (never ``scan``)."""
        self.store = store
        # every linked write reads the triples of the entities it names (the bridges); on a store that counts
        # its writes per scope they are kept between reads, and dropped at the first read after the graph
        # changed (a write through any layer or process moves the graph scope's count); another user's graph
        # that another process changed (a triple deleted, a user forgotten) is dropped at the first read of
        # any graph GRAPH_SWEEP_SECONDS after the last check, so a deleted fact does not stay in this process
        self._read_cache = (
            IndexCache(store, sweep_every=GRAPH_SWEEP_SECONDS, max_terms=GRAPH_CACHED_TERMS)
            if isinstance(store, ScopeGenerations)
            else None
        )

    def __repr__(self) -> str:
        return f"EntityGraph(store={self.store!r})"

    # -- writes

    def add(
        self,
        subject: str,
        relation: str,
        object: str,
        *,
        user_id: str,
        single_valued: bool | None = None,
        valid_from: float | None = None,
        source: str | None = None,
    ) -> Triple:
        """Record that ``subject relation object`` holds from ``valid_from`` (default: now) and return it.

        Idempotent: while the same triple is valid, adding it again returns the stored one unchanged.
        The relation is normalised to lower snake_case (``"reports to"`` -> ``"reports_to"``).

        For a single-valued relation (``single_valued``, or when None the relation is in
        :data:`SINGLE_VALUED`), the subject's currently valid triple of that relation with another object
        is closed: its ``valid_to`` becomes the new ``valid_from``, in the same ``update_many`` that writes
        the new triple, guarded by the old record's version. A back-dated value (``valid_from`` before the
        current one's) is stored closed at the current value's start instead; closed history is never
        rewritten. Re-adding a fact after it was invalidated creates a new triple, so history keeps both.

        Raises :class:`InvalidRecordError` for an empty subject, relation, object or user_id, and
        :class:`ConflictError` if concurrent writers kept changing the same facts for every retry.
        """
        scope = _graph_scope(user_id)
        # a fact's names are stored text too, and "has password" + "hunter2" only says it read together
        _SECRETS.enforce(f"{subject} {relation}: {object}", None, subject, relation, object, source)
        subject_name, object_name = _required_name("subject", subject), _required_name("object", object)
        given_relation, relation = relation, relation_key(relation) if isinstance(relation, str) else ""
        if not relation:
            raise InvalidRecordError(f"relation must be a name with a letter or digit, got {given_relation!r}")
        subject_key, object_key = entity_key(subject_name), entity_key(object_name)
        single = relation in SINGLE_VALUED if single_valued is None else bool(single_valued)
        start = _time_or_now("valid_from", valid_from)
        lookup = _slot_term(subject_key, relation) if single else _triple_term(subject_key, relation, object_key)
        # the id names the slot (single-valued) or the fact (multi-valued) plus a generation, so two
        # writers racing to the same slot or fact pick the same id and one of them gets a ConflictError
        namespace = _digest(scope.user_id, subject_key, relation, "\x00" if single else object_key)

        for attempt in range(_WRITE_ATTEMPTS):
            stored = self._lookup(scope, lookup)
            open_now = [
                (r, t)
                for r, t in stored
                if t.valid_to is None and t.subject_key == subject_key and t.relation == relation
            ]
            for _, triple in open_now:
                if triple.object_key == object_key:
                    return triple
            replaced = [(r, t) for r, t in open_now if single]
            later = [t.valid_from for _, t in replaced if t.valid_from > start]
            new = Triple(
                id=f"t{namespace}-{_next_generation(namespace, stored)}",
                subject=subject_name,
                relation=relation,
                object=object_name,
                subject_key=subject_key,
                object_key=object_key,
                valid_from=start,
                valid_to=min(later) if later else None,
                source=source,
                created_at=time.time(),
            )
            ops = [Upsert(record=new.to_record(scope.user_id), expected_version=0)]
            for record, triple in replaced:
                if triple.valid_from <= start:
                    ops.append(Upsert(record=_close(triple, start, scope.user_id), expected_version=record.version))
            try:
                written = self.store.update_many(ops)
            except ConflictError as exc:
                if attempt == _WRITE_ATTEMPTS - 1:
                    raise ConflictError(
                        f"could not add {new.line()!r}: other writers changed the same facts "
                        f"{_WRITE_ATTEMPTS} times in a row; try again"
                    ) from exc
                continue
            return _as_triple(written[0])
        raise AssertionError("unreachable: the loop returns or raises")

    def invalidate(self, triple_id: str, *, user_id: str, at: float | None = None) -> Triple | None:
        """Close triple ``triple_id`` at ``at`` (default: now) and return it; the record is kept as history.

        Returns None when the user's graph has no such triple. A triple that is already closed is
        returned unchanged. ``at`` must not be before the triple's ``valid_from``
        (:class:`InvalidRecordError`); ``at=triple.valid_from`` retracts a fact that never held.
        """
        scope = _graph_scope(user_id)
        end = _time_or_now("at", at)
        if not isinstance(triple_id, str) or not triple_id:
            raise InvalidRecordError(f"triple_id must be a non-empty string, got {triple_id!r}")
        for attempt in range(_WRITE_ATTEMPTS):
            record = self.store.get(scope, [triple_id])[0]
            triple = Triple.from_record(record) if record is not None else None
            if record is None or triple is None:
                return None
            if triple.valid_to is not None:
                return triple
            if end < triple.valid_from:
                raise InvalidRecordError(
                    f"cannot invalidate {triple.line()!r} at {end}, before it became valid at "
                    f"{triple.valid_from}; pass at={triple.valid_from} to retract it"
                )
            try:
                written = self.store.update_many(
                    [Upsert(record=_close(triple, end, scope.user_id), expected_version=record.version)]
                )
            except ConflictError as exc:
                if attempt == _WRITE_ATTEMPTS - 1:
                    raise ConflictError(
                        f"could not invalidate {triple_id!r}: it kept changing underneath; try again"
                    ) from exc
                continue
            return _as_triple(written[0])
        raise AssertionError("unreachable: the loop returns or raises")

    def forget_source(self, source: str, *, user_id: str) -> int:
        """Delete every triple ``source`` asserted (history included), e.g. the facts a deleted memory brought;
        how many. Unlike :meth:`invalidate` nothing is kept: forgetting leaves no history behind.

        Triples are found by their source term, which triples stored before Kioko kept one do not have.
        """
        scope = _graph_scope(user_id)
        term = _source_term(source)
        removed = 0
        while True:
            ids = self.store.postings(scope, [term], POSTINGS_LIMIT).ids.get(term, [])
            gone = (
                [r for r in self.store.get(scope, ids) if r is not None and r.metadata.get("source") == source]
                if ids
                else []
            )
            if not gone:
                break
            self.store.update_many([Delete(id=r.id, scope=scope) for r in gone])
            removed += len(gone)
        if removed:
            self.forget_cached(user_id)
        return removed

    def delete(self, triple_id: str, *, user_id: str) -> Triple | None:
        """Delete triple ``triple_id`` from the user's graph and return it; None when there is no such triple.

        Unlike :meth:`invalidate`, nothing is kept: the fact leaves no history (a triple's other versions,
        closed or open, are other triples: :meth:`relations` with ``include_invalid`` lists them). For a
        fact no memory asserted (the router's relations, manual ones), which deleting a memory cannot find.
        """
        scope = _graph_scope(user_id)
        if not isinstance(triple_id, str) or not triple_id:
            raise InvalidRecordError(f"triple_id must be a non-empty string, got {triple_id!r}")
        record = self.store.get(scope, [triple_id])[0]
        triple = Triple.from_record(record) if record is not None else None
        if record is None or triple is None:
            return None
        self.store.update_many([Delete(id=triple_id, scope=scope)])
        self.forget_cached(user_id)
        return triple

    def forget_entity(self, entity: str, *, user_id: str) -> int:
        """Delete every triple naming ``entity`` (subject or object, history included); how many.

        Afterwards the graph neither knows the name (:meth:`match_entities`) nor relates anything to it.
        """
        key = _required_key("entity", entity)
        scope = _graph_scope(user_id)
        term = _entity_term(key)
        removed = 0
        while True:
            ids = self.store.postings(scope, [term], POSTINGS_LIMIT).ids.get(term, [])
            gone = [
                r
                for r in (self.store.get(scope, ids) if ids else [])
                if r is not None and (t := Triple.from_record(r)) is not None and key in (t.subject_key, t.object_key)
            ]
            if not gone:
                break
            self.store.update_many([Delete(id=r.id, scope=scope) for r in gone])
            removed += len(gone)
        if removed:
            self.forget_cached(user_id)
        return removed

    def forget_cached(self, user_id: str) -> None:
        """Drop what this process keeps of the user's graph (their triples were deleted), and the caches
        keyed by text, which may hold the triples' words."""
        if self._read_cache is not None:
            self._read_cache.invalidate(_graph_scope(user_id))
        forget_texts()

    # -- reads

    def relations(
        self, entity: str, *, user_id: str, as_of: float | None = None, include_invalid: bool = False
    ) -> list[Triple]:
        """Triples with ``entity`` as subject or object that held at ``as_of`` (default: now), oldest first.

        With ``include_invalid`` every triple of the entity is returned, history included, whatever
        ``as_of`` says. One postings call and one get.
        """
        key = _required_key("entity", entity)
        scope = _graph_scope(user_id)
        moment = _time_or_now("as_of", as_of)
        found = self._triples_of(scope, [key])[key]
        chosen = [t for t in found if include_invalid or t.valid_at(moment)]
        return sorted(chosen, key=lambda t: (t.valid_from, t.created_at, t.id))

    def neighbors(self, entity: str, *, user_id: str, as_of: float | None = None) -> list[str]:
        """Names of the entities one valid relation away from ``entity`` (as first written), each once."""
        key = _required_key("entity", entity)
        names: dict[str, str] = {}
        for triple in self.relations(entity, user_id=user_id, as_of=as_of):
            other = triple.other(key)
            if other != key:
                names.setdefault(other, triple.object if other == triple.object_key else triple.subject)
        return list(names.values())

    def path(self, a: str, b: str, *, user_id: str, max_depth: int = 3, as_of: float | None = None) -> list[Triple]:
        """The shortest chain of valid triples from ``a`` to ``b`` (breadth first, either direction).

        Returns the triples in order from ``a``'s end, or ``[]`` when there is no chain of at most
        ``max_depth`` triples (and when ``a`` and ``b`` are the same entity). One postings call and one
        get per level; each level expands at most :data:`PATH_FRONTIER` entities.
        """
        start, goal = _required_key("a", a), _required_key("b", b)
        scope = _graph_scope(user_id)
        moment = _time_or_now("as_of", as_of)
        if not isinstance(max_depth, int) or isinstance(max_depth, bool) or max_depth < 0:
            raise InvalidRecordError(f"max_depth must be a non-negative integer, got {max_depth!r}")
        if start == goal:
            return []
        came_from: dict[str, tuple[str, Triple]] = {}
        visited, frontier = {start}, [start]
        for _ in range(max_depth):
            adjacent = self._valid_neighbours(scope, frontier[:PATH_FRONTIER], moment)
            next_frontier: list[str] = []
            for key in frontier[:PATH_FRONTIER]:
                for other, triple in adjacent[key]:
                    if other in visited:
                        continue
                    visited.add(other)
                    came_from[other] = (key, triple)
                    if other == goal:
                        return _chain(came_from, start, goal)
                    next_frontier.append(other)
            if not next_frontier:
                break
            frontier = next_frontier
        return []

    def match_entities(self, text: str, *, user_id: str) -> list[str]:
        """Keys of the entities this user's graph knows that ``text`` mentions, in order of first mention.

        Candidates are the text's word n-grams of 1 to :data:`MAX_NGRAM_WORDS` words (whole words,
        case-insensitive, surrounding punctuation and a possessive ``'s`` ignored), so ``pgvector``
        matches "we chose pgvector." but not "pgvectorx". Where matches overlap, the longest wins
        ("rockwell automation" over "rockwell" inside it). An entity is known while any of its triples
        is stored, history included: its name stays recognisable after the fact changed.

        At most one postings call (none for the n-grams the graph's read cache already counted, or a graph that
        holds nothing), no get; a text with more than :data:`MAX_MATCH_TERMS` distinct n-grams is matched on its
        beginning.
        """
        scope = _graph_scope(user_id)
        spans = _candidate_spans(str(text))
        if not spans:
            return []
        terms = [_entity_term(k) for k in spans]
        cache = self._read_cache
        if cache is None:
            known = self.store.postings(scope, terms, 0).df  # counts only, no ids
        else:
            with one_read():  # the emptiness check and the count are one read of the graph's generation
                if cache.lookup(scope, (), 0)[0] == 0:
                    return []  # a graph that holds nothing (as the cache knows it at that generation): no read
                known = cache.lookup(scope, terms, 0)[1]
        matches = [
            (start, end, key)
            for key, places in spans.items()
            if known.get(_entity_term(key), 0) > 0
            for start, end in places
        ]
        return _longest_matches(matches)

    def related_entities(
        self, keys: Iterable[str], *, user_id: str, as_of: float | None = None
    ) -> dict[str, list[tuple[str, Triple]]]:
        """For each entity key, the ``(other_key, triple)`` pairs of its triples valid at ``as_of`` (default now).

        This is the bridge signal's input: an entity of one memory related to an entity of another.
        Every asked key is in the answer (an empty list when the graph relates it to nothing); keys are
        normalised with :func:`entity_key`; a triple from an entity to itself relates nothing. One
        postings call and one get, whatever the number of keys.
        """
        scope = _graph_scope(user_id)
        asked = list(dict.fromkeys(k for k in (entity_key(key) for key in keys) if k))
        moment = _time_or_now("as_of", as_of)
        return self._valid_neighbours(scope, asked, moment) if asked else {}

    def known(self, *, user_id: str) -> int:
        """How many triples the user's graph holds, history included (the graph scope's postings ``n``)."""
        return self.store.postings(_graph_scope(user_id), [], 1).n

    # -- helpers

    def _lookup(self, scope: Scope, term: str) -> list[tuple[Record, Triple]]:
        """The stored triples holding ``term``, with their records (for versions): one postings, one get."""
        ids = self.store.postings(scope, [term], POSTINGS_LIMIT).ids.get(term, [])
        if not ids:
            return []
        found = []
        for record in self.store.get(scope, ids):
            triple = Triple.from_record(record) if record is not None else None
            if record is not None and triple is not None:
                found.append((record, triple))
        return found

    def _triples_of(self, scope: Scope, keys: Sequence[str]) -> dict[str, list[Triple]]:
        """Every stored triple (history included) of each entity key, newest first: one postings, one get."""
        terms = [_entity_term(k) for k in keys]
        cache = self._read_cache
        ids_by_term = (
            cache.lookup(scope, terms, POSTINGS_LIMIT)[2]
            if cache is not None
            else self.store.postings(scope, terms, POSTINGS_LIMIT).ids
        )
        wanted = list(dict.fromkeys(i for term in terms for i in ids_by_term.get(term, [])))
        records: list[Record | None] = []
        if wanted:
            records = (
                list(cache.records(scope, wanted).values()) if cache is not None else self.store.get(scope, wanted)
            )
        by_id = {r.id: t for r in records if r is not None and (t := Triple.from_record(r)) is not None}
        return {
            key: [
                by_id[i]
                for i in ids_by_term.get(_entity_term(key), [])
                if i in by_id and key in (by_id[i].subject_key, by_id[i].object_key)
            ]
            for key in keys
        }

    def _valid_neighbours(
        self, scope: Scope, keys: Sequence[str], moment: float
    ) -> dict[str, list[tuple[str, Triple]]]:
        """Per key, ``(other_key, triple)`` for its triples valid at ``moment``, self-loops left out."""
        return {
            key: [(t.other(key), t) for t in triples if t.valid_at(moment) and t.other(key) != key]
            for key, triples in self._triples_of(scope, keys).items()
        }


# --------------------------------------------------------------------------- private helpers


def _graph_scope(user_id: str) -> Scope:
    """The user's graph scope, or InvalidRecordError for a missing user."""
    if not isinstance(user_id, str) or not user_id:
        raise InvalidRecordError("user_id must be a non-empty string; every triple belongs to one user")
    return check_scope(Scope(user_id, GRAPH_AGENT))


def _required_name(what: str, name: Any) -> str:
    if not isinstance(name, str) or not entity_key(name):
        raise InvalidRecordError(f"{what} must be a name with a letter or digit, got {name!r}")
    return _display_name(name)


def _required_key(what: str, name: Any) -> str:
    return entity_key(_required_name(what, name))


def _time_or_now(what: str, value: float | None) -> float:
    if value is None:
        return time.time()
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidRecordError(f"{what} must be a finite timestamp (seconds since the epoch), got {value!r}")
    return float(value)


def _as_triple(record: Record | None) -> Triple:
    triple = Triple.from_record(record) if record is not None else None
    if triple is None:
        raise AssertionError("the store returned something other than the triple it was given")
    return triple


def _close(triple: Triple, end: float, user_id: str) -> Record:
    """The record of ``triple`` with its validity ending at ``end``."""
    return triple.model_copy(update={"valid_to": end}).to_record(user_id)


def _next_generation(namespace: str, stored: Sequence[tuple[Record, Triple]]) -> int:
    """One more than the newest generation of ``namespace`` among the stored triples (0 for the first)."""
    prefix = f"t{namespace}-"
    generations = [
        int(r.id[len(prefix) :]) for r, _ in stored if r.id.startswith(prefix) and r.id[len(prefix) :].isdigit()
    ]
    return max(generations, default=-1) + 1


def _chain(came_from: dict[str, tuple[str, Triple]], start: str, goal: str) -> list[Triple]:
    chain: list[Triple] = []
    key = goal
    while key != start:
        key, triple = came_from[key]
        chain.append(triple)
    return chain[::-1]


def _candidate_spans(text: str) -> dict[str, list[tuple[int, int]]]:
    """Entity keys the text could mention, each with the word spans ``[start, end)`` that spell it."""
    words = text.split()
    spans: dict[str, list[tuple[int, int]]] = {}
    for start in range(len(words)):
        for end in range(start + 1, min(start + MAX_NGRAM_WORDS, len(words)) + 1):
            key = entity_key(" ".join(words[start:end]))
            for variant in (key, *(key[:-2] for p in _POSSESSIVE if key.endswith(p))):
                variant = variant.rstrip(TRAILING_PUNCTUATION)
                if not variant:
                    continue
                if variant not in spans and len(spans) >= MAX_MATCH_TERMS:
                    return spans
                spans.setdefault(variant, []).append((start, end))
    return spans


def _longest_matches(matches: list[tuple[int, int, str]]) -> list[str]:
    """Keys of the matches left when longer spans take their words first, in order of first mention."""
    taken: set[int] = set()
    kept: list[tuple[int, str]] = []
    for start, end, key in sorted(matches, key=lambda m: (m[0] - m[1], m[0])):
        if taken.isdisjoint(range(start, end)):
            taken.update(range(start, end))
            kept.append((start, key))
    return list(dict.fromkeys(key for _, key in sorted(kept)))
