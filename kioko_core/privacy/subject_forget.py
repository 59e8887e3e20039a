"""``forget_about(subject)``: every memory that names a subject goes, with what Kioko keeps about it elsewhere.

"Forget everything about Krutika" is a forget of a subject, not of one memory: every memory of the scope
that *names* it (holds each of the subject's words: :func:`names`), the profile slots, instructions and
scratchpad slots that name it, the entity graph's triples of the entities it names (history included), and,
through the layer's hooks, what the intelligence keeps of conversations (the session summaries' points and
the turns waiting in session logs that name it). Each memory goes through :meth:`MemoryLayer.delete`, so
its links, its triples, what maintenance derived from it and the process's caches go as a delete takes
them (docs/privacy.md).

Words are compared as the index stems them ("peanuts" is "peanut"); two stems of five letters or more
where one begins the other are the same word ("allergi" in "allergy", "allerg" in "allergic").

A memory that speaks of the subject only by a pronoun goes too when the pronoun can only be the subject's
(:func:`pronoun_followers`): it was written in the same session after a memory naming the subject, with no
other name in between ("My sister Dana is a nurse." ... "She works night shifts." ... "She runs."). A
memory that names someone else ("Sam said she ...") ends the chain, and "they"/"their" next to "User" is
the user (the router writes "I" as "User ... their"), so it never counts. A place or an organisation said again
as "there" is such a pronoun too ("I've got an interview with Halden." ... "The recruiter there is Bea
Lindqvist."), the "there" of existence ("There is a new café") is not. "We" is the user and the subject only in the
memory right after one saying the user with them ("User is in a double act with Kez." / "we're called Two Pints
Short.") The summary points and waiting
turns that say what such a memory says go with it.
"""

from __future__ import annotations

import re
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Protocol

from kioko_core.errors import InvalidRecordError
from kioko_core.layer.hooks import LayerHooks
from kioko_core.layer.parts import LayerParts
from kioko_core.layer.scoped import SESSIONS_AGENT
from kioko_core.reading.analysis import analyze
from kioko_core.store import Filter, Record, Scope

if TYPE_CHECKING:
    from kioko_core.graph.entities import Triple


class ForgettingLayer(LayerParts, Protocol):
    """What forgetting a subject uses of the layer: its parts, its hooks, its delete and its one purge."""

    hooks: LayerHooks

    def delete(self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> bool: ...

    def _purging_once(self, maintaining: bool = False) -> AbstractContextManager[None]: ...


UNINDEXED_KINDS = frozenset({"profile", "instruction", "working"})
"""Kinds never indexed by words (read with one kind-filtered scan): the profile, instructions, the scratchpad."""
SAME_STEM = 5
MAX_SUBJECT_CHARS = 200


@dataclass
class SubjectForget:
    """What ``forget_about`` removed (or, in a dry run, would remove)."""

    subject: str
    dry_run: bool
    memories: list[Record] = field(default_factory=list)
    """Every memory that names the subject: deleted (a dry run: would be)."""
    relations: list[Triple] = field(default_factory=list)
    """The entity graph's triples of the entities the subject names (history included)."""
    traces: list[str] = field(default_factory=list)
    """What else goes, as the intelligence's hooks describe it ("2 turns waiting in the log of session s1")."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject,
            "dry_run": self.dry_run,
            "memories": [{"id": r.id, "kind": r.kind, "content": r.content} for r in self.memories],
            "relations": [t.line() for t in self.relations],
            "traces": list(self.traces),
            "deleted": 0 if self.dry_run else len(self.memories),
        }


def subject_words(subject: object) -> list[str]:
    """The subject's words as the index keeps them (``t:`` terms); InvalidRecordError when it names nothing."""
    if not isinstance(subject, str) or not subject.strip():
        raise InvalidRecordError("forget_about needs a subject: a name or a few words, e.g. 'Krutika'")
    if len(subject) > MAX_SUBJECT_CHARS:
        raise InvalidRecordError(f"a subject to forget is at most {MAX_SUBJECT_CHARS} characters")
    words = list(dict.fromkeys(t for t in analyze(subject, []).terms if t.startswith("t:")))
    named = [w for w in words if w not in _GENERIC]
    words = named or words  # "Project Falcon" is Falcon; "the project" alone is still a subject
    if not words:
        raise InvalidRecordError(
            f"{subject!r} names nothing to forget (only common words); name the person, place or thing"
        )
    return words


GENERIC_WORDS = (
    "project",
    "team",
    "company",
    "deal",
    "client",
    "customer",
    "product",
    "app",
    "account",
    "meeting",
    "plan",
    "thing",
    "stuff",
    "topic",
    "person",
    "guy",
    "colleague",
    "friend",
    "codename",
    "initiative",
    "program",
)
"""Words that say what kind of thing a subject is, not which: "everything about Project Falcon" is about every
memory naming Falcon ("The Falcon deal closes in Q3"), not only those that also say "project"."""
_GENERIC = frozenset(t for word in GENERIC_WORDS for t in analyze(word, []).terms if t.startswith("t:"))


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    short, long = sorted((a[2:], b[2:]), key=len)
    return len(short) >= SAME_STEM and long.startswith(short)


def names(text: str, words: list[str]) -> bool:
    """Whether ``text`` holds every one of the subject's ``words`` (see the module's docstring)."""
    held = [t for t in analyze(text, []).terms if t.startswith("t:")]
    return all(any(_same(word, have) for have in held) for word in words)


def _namer(words: list[str], followers: list[Record] | None = None) -> Callable[[str], bool]:
    said = [set(_terms(r.content)) for r in followers or []]
    said = [terms for terms in said if len(terms) >= 2]

    def namer(text: str) -> bool:
        if names(text, words):
            return True
        held = set(_terms(text))
        return any(terms <= held for terms in said)

    return namer


def _terms(text: str) -> list[str]:
    return [t for t in analyze(text, []).terms if t.startswith("t:")]


_HE_SHE = re.compile(r"\b(?:he|she|him|her|his|hers|he's|she's|himself|herself)\b", re.IGNORECASE)
_THEY = re.compile(r"\b(?:they|them|their|theirs|they're|themselves)\b", re.IGNORECASE)
_USER = re.compile(r"\bUser(?:'s)?\b")
_NAME = re.compile(r"(?<![.!?:]\s)(?<!^)\b[A-Z][a-z][\w'-]*")
_NOT_NAMES = frozenset(
    """User I January February March April May June July August September October November December Monday Tuesday
    Wednesday Thursday Friday Saturday Sunday Summary""".split()
)
CHAIN = 8
"""How many memories after the last one naming the subject a pronoun may still point back to it."""


_THERE = re.compile(
    r"(?<![.!?,;:]\s)(?<!^)(?<!\band\s)(?<!\bbut\s)(?<!\bso\s)(?<!\bthat\s)(?<!\bwhere\s)(?<!\bif\s)"
    r"\bthere\b(?!\s+(?:is|are|was|were|'s|'re|has|have|had|will|would|must|might|may|seems?|"
    r"used\s+to)\s+(?:a|an|no|some|any|many|much|lots|loads|plenty|nothing|something|one|two|three|several|more|"
    r"too|been|never|always|still|often|usually)\b)",
    re.IGNORECASE,
)
_THERE_AFTER_NOUN = re.compile(r"\b(?:the|our|my|his|her|their|user's)\s+(?:[\w-]+\s+){0,2}?[\w-]+\s+there\b", re.I)
"""A place said again as "there" (:data:`_THERE` after a verb, "User has been there twice"; this after a noun, "The
recruiter there is a woman called Bea", "User's old supervisor there was Keith"), not the "there" of existence
("There is a new café", "there were no seats", "User thinks there is a problem")."""


_WE = re.compile(r"^(?:we|we're|we've|we'd|we'll|our|us)\b", re.IGNORECASE)
_WITH_USER = re.compile(
    r"^User\b.*\b(?:with|alongside)\b|^User\s+and\b|\band\s+(?:User|I|me)\b|^(?:me|I)\s+and\b", re.IGNORECASE
)
"""A memory saying the user together with someone ("User is in a double act with Kez", "Me and Tom run a stall"):
the memory written right after it that opens with "we" ("we're called Two Pints Short") speaks of the two of them."""


def _pronoun(text: str) -> bool:
    """A third person that is not the user ("she", "his"; "they" only in a memory not about "User")."""
    return bool(_HE_SHE.search(text) or (_THEY.search(text) and not _USER.search(text)))


_OPENERS = frozenset("the a an our my their his her its this that these those user user's".split())
"""A memory's first word that names no one: before a place said again as "there" ("The recruiter there ...",
"User's old supervisor there ...") it does not end the chain."""


def _place_again(text: str) -> bool:
    """A place or an organisation said again as "there" (:data:`_THERE`, :data:`_THERE_AFTER_NOUN`)."""
    return bool(_THERE.search(text) or _THERE_AFTER_NOUN.search(text))


def _other_name(text: str, words: list[str]) -> bool:
    """Whether ``text`` names someone or something by a capitalised name that is not the subject's."""
    for found in _NAME.finditer(text):
        if found.group(0) not in _NOT_NAMES and not names(found.group(0), words):
            return True
    first = text.split(" ", 1)[0].strip(",.:;").removesuffix("'s")  # "User's job title is baker": the user
    return bool(first[:1].isupper() and first not in _NOT_NAMES and not _pronoun(first) and not names(first, words))


def _written_at(record: Record) -> tuple[float, str]:
    """When a memory was written: its linking time (an episode's ``created_at`` is when it happened, "today")."""
    linked = (record.system or {}).get("linked_at")
    return (float(linked) if isinstance(linked, (int, float)) else record.created_at, record.id)


def name_words(subject: str, words: list[str]) -> list[str]:
    """The words of the subject's proper name, when it has one beside other words ("the Globex pitch" -> globex);
    else none."""
    names_in = [w for w in re.findall(r"[A-Za-z][\w'-]*", subject) if w[:1].isupper()]
    found = [t for t in subject_words(" ".join(names_in))] if names_in else []
    found = [t for t in found if t in words]
    return found if found and len(found) < len(words) else []


def pronoun_followers(
    layer: ForgettingLayer, scope: Scope, words: list[str], named: list[Record], short: list[str] | None = None
) -> list[Record]:
    """The memories that speak of the subject only by a pronoun (see the module's docstring), or, in a session
    that named the whole subject, by its proper name alone (``short``: "The Globex buyer said ..." after "We're
    pitching to Globex"). The sessions of ``named`` are read (one scan of each session's memories, a handful),
    and, while a chain is open at a session's end, the sessions begun after it in turn (:func:`sessions_after`):
    "She got promoted to head nurse" opening the session after "My sister Dana is a nurse" is Dana's, as long
    as no other name came between. Oldest first."""
    followers: dict[str, Record] = {}
    named_ids = {r.id for r in named}
    sessions = list(dict.fromkeys(r.session_id for r in named if r.session_id and r.kind != "summary"))
    since: int | None = None  # memories since the last one naming the subject; None: no chain
    joint = False  # the last memory naming the subject says the user with it ("in a double act with Kez")
    ahead = set(sessions)
    for session in sessions_after(layer, scope, sessions):
        own = session in ahead  # the name alone stands for the subject only in a session that named it whole
        if own:
            ahead.discard(session)
            since = None  # a session naming the subject reads its own chain from its start
        records = sorted(
            (r for r in layer.store.scan(scope, Filter(session_id=session)) if r.kind not in ("summary", "working")),
            key=_written_at,
        )
        for record in records:
            if record.id in named_ids or names(record.content, words):
                since = 0
                joint = _WITH_USER.search(record.content) is not None
                continue
            if short and own and names(record.content, short):
                followers[record.id] = record
                since = 0
                continue
            if since is None:
                continue
            since += 1
            # "we're called Two Pints Short" right after "User is in a double act with Kez": the user and the subject
            we = since == 1 and joint and _WE.match(record.content) is not None
            pronoun = _pronoun(record.content) or we
            first = record.content.split(" ", 1)[0]
            place = not pronoun and _place_again(record.content)  # "User's old supervisor there was Keith"
            starts_with_other = not we and not (place and first.lower() in _OPENERS) and _other_name(first, words)
            if (pronoun or place) and not starts_with_other and since <= CHAIN:
                followers[record.id] = record
            elif _other_name(record.content, words) or since > CHAIN:
                since = None
        if since is None and not ahead:
            break  # no chain open, and no session naming the subject left to read
    return sorted(followers.values(), key=lambda r: (r.created_at, r.id))


def sessions_after(layer: ForgettingLayer, scope: Scope, sessions: list[str]) -> Iterator[str]:
    """``sessions`` and every session of the scope begun after the first of them, in the order they began (the
    session logs the intelligence keeps say when: one scan of the user's few session records). Without logs,
    ``sessions`` alone."""
    if not sessions:
        return
    began: dict[str, float] = {}
    for log in layer.store.scan(Scope(scope.user_id, SESSIONS_AGENT)):
        if log.session_id and log.metadata.get("agent_id") == scope.agent_id:
            began[log.session_id] = min(log.created_at, began.get(log.session_id, log.created_at))
    start = min((began[s] for s in sessions if s in began), default=None)
    later = sorted((t, s) for s, t in began.items() if s not in sessions and start is not None and t > start)
    ordered = sorted(((began.get(s, 0.0), s) for s in sessions), key=lambda pair: pair[0])
    for _, session in sorted(ordered + later):
        yield session


def memories_naming(layer: ForgettingLayer, scope: Scope, words: list[str]) -> list[Record]:
    """The scope's memories that name the subject: the indexed ones from the postings of its words (never a
    scan), the profile, instructions and scratchpad from one kind-filtered scan. Oldest first."""
    df = layer.store.postings(scope, words, 0).df
    most = max(df.values(), default=0)
    ids: set[str] = set()
    if most:
        for found in layer.store.postings(scope, words, most).ids.values():
            ids.update(found)
    records = [r for r in layer.store.get(scope, sorted(ids)) if r is not None] if ids else []
    records += list(layer.store.scan(scope, Filter(kinds=UNINDEXED_KINDS)))
    chosen = {r.id: r for r in records if names(r.content, words)}
    return sorted(chosen.values(), key=lambda r: (r.created_at, r.id))


def entity_keys(layer: ForgettingLayer, scope: Scope, subject: str) -> list[str]:
    """The entities of the user's graph the subject names (``Krutika`` -> ``krutika``)."""
    if scope.agent_id is not None:
        return []  # the entity graph is the user's own, not an agent's
    return list(dict.fromkeys(layer.entities.match_entities(subject, user_id=scope.user_id)))


def forget_about(layer: ForgettingLayer, scope: Scope, subject: str, *, dry_run: bool = False) -> SubjectForget:
    """See the module's docstring; one purge of the store's files at the end."""
    words = subject_words(subject)
    result = SubjectForget(subject=subject, dry_run=dry_run)
    found = memories_naming(layer, scope, words)
    followers = pronoun_followers(layer, scope, words, found, name_words(subject, words))
    namer = _namer(words, followers)
    # a session's summary is rewritten without what names the subject (by the hooks), not deleted whole
    summaries = [r for r in found if r.kind == "summary" and r.metadata.get("session_summary")]
    summaries += [r for r in _summaries_of(layer, scope, followers) if r not in summaries and _says(r, namer)]
    result.memories = [r for r in found if r not in summaries] + followers
    keys = entity_keys(layer, scope, subject)
    seen: set[str] = set()
    for key in keys:
        for triple in layer.entities.relations(key, user_id=scope.user_id, include_invalid=True):
            if triple.id not in seen:
                seen.add(triple.id)
                result.relations.append(triple)
    if dry_run:
        result.traces = layer.hooks.forget_subject(layer, scope, namer, summaries, dry_run=True)
        return result
    with layer._purging_once():
        for record in result.memories:
            layer.delete(record.id, user_id=scope.user_id, agent_id=scope.agent_id)
        for key in keys:
            layer.entities.forget_entity(key, user_id=scope.user_id)
        # after the deletes: what their own traces left (a summary point naming the subject that no deleted
        # memory carried, a turn of another session's log)
        result.traces = layer.hooks.forget_subject(layer, scope, namer, summaries, dry_run=False)
    return result


def _summaries_of(layer: ForgettingLayer, scope: Scope, records: list[Record]) -> list[Record]:
    """The session summaries of the sessions ``records`` were written in."""
    found: list[Record] = []
    for session in dict.fromkeys(r.session_id for r in records if r.session_id):
        found += [
            r
            for r in layer.store.scan(scope, Filter(kinds=frozenset({"summary"}), session_id=session))
            if r.metadata.get("session_summary")
        ]
    return found


def _says(summary: Record, namer: Callable[[str], bool]) -> bool:
    return any(isinstance(p, str) and namer(p) for p in summary.metadata.get("points", [])) or namer(summary.content)


__all__ = ["SubjectForget", "forget_about", "memories_naming", "names", "pronoun_followers", "subject_words"]
