"""``forget_about(subject)``: every memory that names a subject goes, with what Kioko keeps about it elsewhere.

"Forget everything about Krutika" is a forget of a subject, not of one memory: every memory of the scope
that *names* it (holds each of the subject's words: :func:`names`), the profile slots, instructions and
scratchpad slots that name it, the entity graph's triples of the entities it names (history included), and,
through the layer's hooks, what the intelligence keeps of conversations (the session summaries' points and
the turns waiting in session logs that name it). Each memory goes through :meth:`MemoryLayer.delete`, so
its links, its triples, what maintenance derived from it and the process's caches go as a delete takes
them (docs/privacy.md).

Words are compared as the index stems them ("peanuts" is "peanut"); two stems of five letters or more
where one begins the other are the same word ("allergi" in "allergy", "allerg" in "allergic"). A memory
that speaks of the subject only by a pronoun ("she moved to Berlin") does not name it and stays: telling
who "she" is needs a model.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol

from kioko_core.errors import InvalidRecordError
from kioko_core.layer.hooks import LayerHooks
from kioko_core.layer.parts import LayerParts
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


def _namer(words: list[str]) -> Callable[[str], bool]:
    return lambda text: names(text, words)


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
    # a session's summary is rewritten without what names the subject (by the hooks), not deleted whole
    summaries = [r for r in found if r.kind == "summary" and r.metadata.get("session_summary")]
    result.memories = [r for r in found if r not in summaries]
    keys = entity_keys(layer, scope, subject)
    seen: set[str] = set()
    for key in keys:
        for triple in layer.entities.relations(key, user_id=scope.user_id, include_invalid=True):
            if triple.id not in seen:
                seen.add(triple.id)
                result.relations.append(triple)
    if dry_run:
        result.traces = layer.hooks.forget_subject(layer, scope, _namer(words), summaries, dry_run=True)
        return result
    with layer._purging_once():
        for record in result.memories:
            layer.delete(record.id, user_id=scope.user_id, agent_id=scope.agent_id)
        for key in keys:
            layer.entities.forget_entity(key, user_id=scope.user_id)
        # after the deletes: what their own traces left (a summary point naming the subject that no deleted
        # memory carried, a turn of another session's log)
        result.traces = layer.hooks.forget_subject(layer, scope, _namer(words), summaries, dry_run=False)
    return result


__all__ = ["SubjectForget", "forget_about", "memories_naming", "names", "subject_words"]
