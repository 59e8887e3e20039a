"""A text read once: the question of a recall (:class:`Query`) and the memory being written (:class:`Draft`).

Reading a text is :func:`~kioko_core.reading.analysis.analyze` (entities, salient terms, word stems) with the names the
user's entity graph knows in it (:meth:`~kioko_core.graph.entities.EntityGraph.match_entities`, one postings call).
Recall and a write each read their text once, at their top, and hand what they read down:

- ``MemoryLayer.recall`` builds the :class:`Query`; the planner (the ``relational`` intent), retrieval (the
  lexical terms, the query vector, whether it asks about goals) and the context's sections (the relations
  of what it names) take it instead of reading the question again.
- ``MemoryLayer.add`` / ``add_many`` / ``update`` read the content with :func:`read_content`; the embedder
  (:func:`embed_read`) and the linker take that one analysis, and the :class:`Draft` (the record and its
  analysis) is what the layer writes.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from kioko_core.reading.analysis import Analysis, analyze
from kioko_core.recall.safety import SAFETY_TERM, is_safety_relevant

if TYPE_CHECKING:
    import numpy as np

    from kioko_core.embedding.embedders import Embedder
    from kioko_core.store import Record

WHEN_QUESTION = re.compile(
    r"\bwhen\b|\b(?:what|which) (?:date|day|year|month|week|time)\b|\bhow long\b|\bhow many (?:days|weeks|months|"
    r"years)\b|\b(?:last|this|next) (?:week|weekend|month|year|summer|winter|spring|fall|autumn)\b|\bago\b|"
    r"\b(?:19|20)\d\d\b|\b(?:january|february|march|april|june|july|august|september|october|november|december)\b|"
    r"\b(?:in|of|early|late|mid) may\b",
    re.IGNORECASE,
)
"""A question about when something happened, or about a time it names ("in May", "in 2022", "last week"):
the context then dates the events it shows (:func:`~kioko_core.recall.hybrid.dated`)."""
ASKS_WHEN = re.compile(
    r"\bwhen\b|\b(?:what|which) (?:date|day|year|month|week|time)\b|\bhow long\b|\bhow many (?:days|weeks|months|"
    r"years)\b",
    re.IGNORECASE,
)
"""A question that asks for a time ("when did ...", "how long ...", "what year ..."), not one that only names a
time ("what did she do in May?"): retrieval then prefers the memories that tell a time (:data:`TELLS_TIME`)."""
TELLS_TIME = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|recently|ago|since|"
    r"(?:last|this|next) (?:week|weekend|month|year|night|time|morning|summer|winter|spring|fall|autumn)|"
    r"(?:a|one|two|three|four|five|few|couple of) (?:days|weeks|months|years)|"
    r"(?:on|this|last|next) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"january|february|march|april|june|july|august|september|october|november|december|(?:19|20)\d\d)\b",
    re.IGNORECASE,
)
"""A memory's text that tells when something happened: a day relative to when it was said ("yesterday", "last
week", "two weeks ago", "on Sunday"), a month or a year. ("May" is left out: the verb is far more common.)"""
GOAL_QUESTION = re.compile(r"\bgoals?\b|\bfocus on\b|\bpriorit", re.IGNORECASE)
"""A question about goals or priorities: retrieval starts from the open goals, and every open goal is named."""


class NameMatcher(Protocol):
    """What finds the names a user's entity graph knows in a text (:class:`~kioko_core.graph.entities.EntityGraph`)."""

    def match_entities(self, text: str, *, user_id: str) -> list[str]: ...


class Query(str):
    """A question as recall reads it, once: the text itself, with what every part of recall reads from it.

    It is a ``str`` (the question's text), so a planner or hook written for the text keeps working and may
    read the question as it likes; Kioko's own parts read the fields instead of the text again:

    - ``user_id``: whose entity graph ``known`` comes from;
    - ``known``: the keys of the entities that graph knows which the question names, in order of mention;
    - ``analysis``: :func:`~kioko_core.reading.analysis.analyze` of the question with those names;
    - ``about_goals`` / ``about_when``: whether it asks about goals (:data:`GOAL_QUESTION`) or about a time
      (:data:`WHEN_QUESTION`); ``asks_when``: whether it asks for a time (:data:`ASKS_WHEN`).

    Build one with :meth:`read` (or :meth:`of`, which keeps a Query already read for the same user). The
    query's vector is made on first use by :meth:`vector` and kept (retrieval of a second scope reuses it).
    """

    user_id: str
    known: tuple[str, ...]
    analysis: Analysis
    about_goals: bool
    about_when: bool
    asks_when: bool
    _vector: tuple[Any, np.ndarray] | None

    def __new__(cls, text: str, *, user_id: str, known: tuple[str, ...], analysis: Analysis) -> Query:
        query = super().__new__(cls, text)
        query.user_id = user_id
        query.known = known
        query.analysis = analysis
        query.about_goals = GOAL_QUESTION.search(text) is not None
        query.about_when = WHEN_QUESTION.search(text) is not None
        query.asks_when = ASKS_WHEN.search(text) is not None
        query._vector = None
        return query

    @property
    def text(self) -> str:
        """The question as a plain ``str``."""
        return str.__str__(self)

    @classmethod
    def read(cls, text: str, user_id: str, entities: NameMatcher | None) -> Query:
        """Read ``text`` for ``user_id``: one match against their entity graph, one analysis."""
        known = tuple(entities.match_entities(text, user_id=user_id)) if entities is not None and text else ()
        return cls(text, user_id=user_id, known=known, analysis=analyze(text, known))

    @classmethod
    def of(cls, query: str, user_id: str, entities: NameMatcher | None) -> Query:
        """``query`` itself when it is a Query read for ``user_id``; else the question read for that user.

        For another user (the shared knowledge base's scope) only the names are matched again: when their
        graph knows the same names the analysis is kept, when it knows none of them the analysis of the text
        alone is taken from it (:meth:`~kioko_core.reading.analysis.Analysis.alone`); only other names known make a new
        analysis (they make other terms).
        """
        if isinstance(query, Query):
            if query.user_id == user_id:
                return query
            known = tuple(entities.match_entities(query.text, user_id=user_id)) if entities is not None else ()
            if known == query.known:
                analysis = query.analysis
            else:
                analysis = query.analysis.alone() if not known else analyze(query.text, known)
            other = cls(query.text, user_id=user_id, known=known, analysis=analysis)
            other._vector = query._vector
            return other
        return cls.read(query, user_id, entities)

    def vector(self, embedder: Embedder) -> np.ndarray:
        """The question's vector by ``embedder``, made once (from the analysis when the embedder reads one)."""
        if self._vector is None or self._vector[0] is not embedder:
            self._vector = (embedder, embed_read(embedder, self.text, self.analysis))
        return self._vector[1]

    def __reduce__(self) -> tuple[Any, ...]:
        return (str, (self.text,))  # pickled (a process pool, a cache) as the text it is

    def __repr__(self) -> str:
        return f"Query({self.text!r}, user_id={self.user_id!r}, known={list(self.known)!r})"


def names_known(entities: NameMatcher | None, query: str, user_id: str) -> list[str]:
    """The entity keys ``user_id``'s graph knows that ``query`` names: a :class:`Query`'s own when it was read
    for that user, else one match."""
    if isinstance(query, Query) and query.user_id == user_id:
        return list(query.known)
    if entities is None or not query:
        return []
    return entities.match_entities(query, user_id=user_id)


# --------------------------------------------------------------------------- the write path


SESSION_TERM = "s:"
KIND_TERM = "k:"
CONTENT_TERM = "h:"
PIN_TERM = "x:pinned"
"""The term a pinned memory is indexed under, so the pinned section is one postings call, never a scan."""


@dataclass(frozen=True)
class Draft:
    """A memory about to be written, read once: the record (its embedding made from ``analysis`` when the
    embedder reads one) and the analysis the linker and the index take (None: not read, because the kind is
    not linked and the embedder did not need it).

    ``indexed``: the record already carries its index terms and the entities of ``analysis`` (a draft
    :meth:`read` made); otherwise the write adds them."""

    record: Record
    analysis: Analysis | None = None
    indexed: bool = False

    @classmethod
    def read(
        cls,
        fields: dict[str, Any],
        *,
        names: NameMatcher | None,
        embedder: Embedder,
        linked: bool,
        embedding: Any = None,
    ) -> Draft:
        """A new memory's draft, its text read once: ``fields`` are the :class:`~kioko_core.store.Record`'s
        (``content``, ``user_id``, ``kind`` ...); ``linked`` for a kind that is linked and indexed (it is read
        with the names ``names`` knows for the user, indexed under its terms and given its entities), and
        ``embedding`` a vector given (else one is made, from the reading when the embedder reads one).

        A :class:`pydantic.ValidationError` (or TypeError) of a malformed field is the caller's to word."""
        from kioko_core.store import Record, record_copy

        content, user_id = fields["content"], fields["user_id"]
        analysis: Analysis | None = None
        if linked:
            analysis = analyze(content, _names(names, content, user_id))
        elif embedding is None and reads_analysis(embedder):
            analysis = analyze(content)
        vector = embed_read(embedder, content, analysis) if embedding is None else embedding
        record = Record(**fields, embedding=vector, system={} if linked else None)
        if analysis is None or not linked:
            return cls(record, analysis)
        terms = index_terms(analysis.terms, record)
        system = {"entities": list(analysis.entities)}
        return cls(record_copy(record, {"terms": terms, "system": system}), analysis, indexed=True)


def _names(names: NameMatcher | None, content: str, user_id: str) -> list[str]:
    """The entity keys the user's graph knows that ``content`` names; none when the graph cannot answer (linking
    never breaks a write: the text is then read without the graph's names)."""
    if names is None:
        return []
    try:
        return names.match_entities(content, user_id=user_id)
    except Exception:
        from kioko_core.privacy.secrets import get_logger

        get_logger("kioko.linker").exception("the entity graph could not match entities; analysing without its names")
        return []


class ContentReader(Protocol):
    """What reads a memory's content with the user's names (:meth:`~kioko_core.linking.linker.MemoryLinker.analyze`)."""

    def analyze(self, content: str, user_id: str) -> Analysis: ...


def reads_analysis(embedder: Embedder) -> bool:
    """Whether ``embedder`` makes a vector from an :class:`~kioko_core.reading.analysis.Analysis` (``embed_analysis``)."""
    return callable(getattr(embedder, "embed_analysis", None))


def read_content(
    linker: ContentReader, embedder: Embedder, content: str, user_id: str, *, linked: bool, embedded: bool
) -> Analysis | None:
    """The one analysis a write needs: with the user's names for a linked kind (the linker reads it), the text
    alone when only the embedder reads it (``embedded`` False: no vector given), None when nothing does."""
    if linked:
        return linker.analyze(content, user_id)
    if not embedded and reads_analysis(embedder):
        return analyze(content)
    return None


def embed_read(embedder: Embedder, text: str, analysis: Analysis | None) -> np.ndarray:
    """``text``'s vector: from ``analysis`` when the embedder reads one (the offline embedder), else ``embed``."""
    if analysis is not None:
        from_analysis = getattr(embedder, "embed_analysis", None)
        if callable(from_analysis):
            vector: np.ndarray = from_analysis(analysis)
            return vector
    return embedder.embed(text)


def index_terms(salient: list[str], record: Record) -> list[str]:
    """What a memory is indexed under: its salient terms, its session, its kind (for recency lists) and
    its content key (to find an exact copy without a scan); a pinned memory also under :data:`PIN_TERM`, a
    safety-relevant fact of the user (an allergy, an access need ...) under :data:`~kioko_core.recall.safety.SAFETY_TERM`;
    one the router saw name a thing of a known category ("Pixel 8": a phone) also under the category's words
    (``metadata.about``), so "what phone do I have?" finds it."""
    extra = [SESSION_TERM + record.session_id] if record.session_id else []
    about = record.metadata.get("about")
    if isinstance(about, list):
        extra += [t for noun in about if isinstance(noun, str) for t in analyze(noun).terms if t.startswith("t:")]
    if record.metadata.get("pinned") is True:
        extra.append(PIN_TERM)
    if is_safety_relevant(record.kind, record.content):
        extra.append(SAFETY_TERM)
    return list(salient) + extra + [KIND_TERM + record.kind, content_term(record.content)]


def pin_terms(record: Record) -> list[str]:
    """The record's terms with :data:`PIN_TERM` as its metadata says (a memory that is not indexed has none)."""
    terms = [t for t in record.terms if t != PIN_TERM]
    if terms and record.metadata.get("pinned") is True:
        terms.append(PIN_TERM)
    return terms


def content_term(content: str) -> str:
    """``h:`` and a digest of the content with its whitespace collapsed: the same text, the same term."""
    digest = hashlib.blake2b(" ".join(content.split()).encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
    return CONTENT_TERM + digest


__all__ = [
    "ASKS_WHEN",
    "CONTENT_TERM",
    "KIND_TERM",
    "PIN_TERM",
    "SESSION_TERM",
    "TELLS_TIME",
    "Draft",
    "GOAL_QUESTION",
    "Query",
    "WHEN_QUESTION",
    "content_term",
    "embed_read",
    "index_terms",
    "names_known",
    "pin_terms",
    "read_content",
    "reads_analysis",
]
