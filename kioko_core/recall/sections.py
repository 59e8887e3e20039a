"""The context's sections that are not searched for: the profile, the instructions, the relations the
user's entity graph holds about what the question names, and the session's working memory.

The profile and the instructions are the stable part of every context (the same from turn to turn until
they change, so they come first). Relations come from the entity graph for the entities the question
names (``"Who is Krutika?"`` -> ``Kumar reports to Krutika``). Working memory is the session's scratchpad
(the task, the ticket, the error code), shown only to a recall that names the session.

Each section has a default cap; a plan or ``section_limits`` changes it (``{"profile": 30}`` for a
personal question, ``{"graph": 0}`` for small talk). The profile and instructions are read with one
kind-filtered scan (they are never indexed by words), the working memory with one more when there is a
session, the relations with one postings call and one get.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from kioko_core.reading.query_and_draft import names_known
from kioko_core.recall.budget import Block, Line
from kioko_core.recall.budget import render as budget_render
from kioko_core.store import Filter, Record, Scope

if TYPE_CHECKING:
    from kioko_core.graph.entities import Triple
    from kioko_core.layer.parts import LayerParts

STABLE_KINDS = frozenset({"profile", "instruction"})
DEFAULT_CAPS = {"profile": 10, "instructions": 10, "graph": 5, "working": 10}
"""How many profile slots, instructions, relations and scratchpad slots a context shows by default."""
SECTION_TITLES = {
    "profile": "About the user:",
    "instructions": "Instructions:",
    "graph": "Known relations:",
    "working": "Working memory (this session):",
}


@dataclass
class Sections:
    """What a context shows besides the searched memories."""

    profile: list[Record] = field(default_factory=list)
    instructions: list[Record] = field(default_factory=list)
    relations: list[Triple] = field(default_factory=list)
    working: list[Record] = field(default_factory=list)


def is_replaced(record: Record) -> bool:
    """Superseded, or in conflict with a newer memory that shows it in its "(was: ...)" note."""
    return bool(record.metadata.get("superseded_by") or record.metadata.get("conflicted_by"))


REPLACED_HOPS = 4
"""How many replacements :func:`in_force` follows from one memory (a value changed again and again)."""


def replacer(record: Record) -> str | None:
    """The id of the memory that replaced ``record`` (superseded it, or is in conflict with it), or None."""
    for key in ("superseded_by", "conflicted_by"):
        found = record.metadata.get(key)
        if isinstance(found, str) and found:
            return found
    return None


def in_force(
    replaced: list[Record],
    fetch: Callable[[list[str]], dict[str, Record]],
    asked: set[str],
    answered: set[str] = frozenset(),  # type: ignore[assignment]
) -> dict[str, Record]:
    """For each of the ``replaced`` memories a question found, the memory now in force in its place (old id ->
    record): its replacer, or that one's, up to :data:`REPLACED_HOPS` hops, read with ``fetch`` (ids -> records)
    once a hop. A question may share its words only with the old value ("Who is Hannah?" finds "User's
    girlfriend is Hannah.", replaced by "she's my fiancee now."): the newer memory answers it, the old one stays
    in the history. A memory whose chain ends in a missing record or a loop has none, and so does one whose
    words the question shares are all held by a memory in force it found as well (``answered``: "What car do
    we have?" finds "Our car is a grey Skoda Octavia now." itself, and needs no "The Panda's gone." for "We have
    a red Fiat Panda.").

    When the old memory joins two statements (:data:`CLAUSES`), a replacement that shares words with it
    replaced the part those words are in: when the question's words (``asked``, index terms) found in the old
    memory are all outside that part, it asked about another part, which the replacement does not answer ("Where do I live?" finds "User drives a Golf
    and lives in Bristol.", replaced by "Sold the Golf, got a Tesla."): that memory has none either."""
    current = {r.id: r for r in replaced}
    first = dict(current)
    seen = set(current)
    found: dict[str, Record] = {}
    for _ in range(REPLACED_HOPS):
        wanted = {old: nxt for old, r in current.items() if (nxt := replacer(r)) is not None}
        ids = sorted({i for i in wanted.values() if i not in seen})
        read = fetch(ids) if ids else {}
        seen.update(ids)
        current = {}
        for old, nxt in wanted.items():
            record = read.get(nxt)
            if record is None:
                continue
            if is_replaced(record):
                current[old] = record
            elif answers(first[old], record, asked, answered):
                found[old] = record
        if not current:
            break
    return found


def _words(record: Record) -> set[str]:
    return {t for t in record.terms if t.startswith("t:")}


def answers(old: Record, new: Record, asked: set[str], answered: set[str] = frozenset()) -> bool:  # type: ignore[assignment]
    """Whether ``new``, which replaced ``old``, answers what a question with the words ``asked`` found in ``old``
    and memories in force do not (``answered``) (see :func:`in_force`)."""
    matched = _words(old) & asked
    if matched and matched <= answered:
        return False
    if not matched or not CLAUSES.search(old.content):
        return True
    shared = _words(old) & _words(new)
    return not shared or bool(matched & shared)


CLAUSES = re.compile(r"\band\b|;|\balso\b|\bwhile\b|\bbut\b", re.IGNORECASE)
"""What joins two statements in one memory ("drives a Golf and lives in Bristol"): a replacement may take one."""


def with_was(record: Record, shown_was: str | None = None) -> str:
    """A memory's text, with "(was: ...)" when it may replace an older one (the router was not sure, or recall
    shows it in place of an older memory it found too: ``shown_was``, see :mod:`~kioko_core.recall.shown_changes`)."""
    was = shown_was if shown_was else record.metadata.get("was")
    if not isinstance(was, str) or not was.strip():
        return record.content
    text = record.content.rstrip()
    end = "." if text.endswith(".") else ""
    return f"{text[: len(text) - len(end)].rstrip()} (was: {was.strip().rstrip('.')}){end}"


def cap(caps: dict[str, int], section: str) -> int:
    return max(0, int(caps.get(section, DEFAULT_CAPS[section])))


def gather(layer: LayerParts, scope: Scope, query: str, session_id: str | None, caps: dict[str, int]) -> Sections:
    """The profile (by slot), instructions (oldest first), relations and working memory for one context."""
    found = Sections()
    if cap(caps, "profile") or cap(caps, "instructions"):
        # a slot value or an instruction that a newer one replaced stays in the history, not in the context
        stable = [r for r in layer.store.scan(scope, Filter(kinds=STABLE_KINDS)) if not is_replaced(r)]
        profile = sorted(
            (r for r in stable if r.kind == "profile"), key=lambda r: (str(r.metadata.get("slot", "")), r.id)
        )
        instructions = sorted((r for r in stable if r.kind == "instruction"), key=lambda r: (r.created_at, r.id))
        found.profile = profile[: cap(caps, "profile")]
        found.instructions = instructions[: cap(caps, "instructions")]
    if session_id and cap(caps, "working"):
        scratch = layer.store.scan(scope, Filter(kinds=frozenset({"working"}), session_id=session_id))
        found.working = sorted(scratch, key=lambda r: (r.created_at, r.id))[: cap(caps, "working")]
    if cap(caps, "graph") and query.strip():
        found.relations = relations_for(layer, scope.user_id, query, cap(caps, "graph"))
    return found


def relations_for(layer: LayerParts, user_id: str, query: str, count: int) -> list[Triple]:
    """The valid relations of the entities ``query`` names, in the order it names them, each once (the names a
    :class:`~kioko_core.reading.query_and_draft.Query` read for ``user_id`` holds are not matched again)."""
    entities: Any = getattr(layer, "entities", None)
    if entities is None:
        return []
    keys = names_known(entities, query, user_id)
    if not keys:
        return []
    chosen: dict[str, Triple] = {}
    related = entities.related_entities(keys, user_id=user_id)
    for key in keys:
        for _, triple in sorted(related.get(key, []), key=lambda pair: (pair[1].valid_from, pair[1].id)):
            chosen.setdefault(triple.id, triple)
    return list(chosen.values())[:count]


def blocks(sections: Sections, where: str) -> list[Block]:
    """The blocks of ``where`` (``"top"``: profile and instructions; ``"graph"``; ``"working"``), each line
    naming the memory it shows (a relation names none)."""
    parts: list[tuple[str, list[Line]]] = []
    if where == "top":
        parts = [
            ("profile", [Line(r.content, r.id) for r in sections.profile]),
            ("instructions", [Line(with_was(r), r.id) for r in sections.instructions]),
        ]
    elif where == "graph":
        parts = [("graph", [Line(t.line()) for t in sections.relations])]
    elif where == "working":
        parts = [("working", [Line(r.content, r.id) for r in sections.working])]
    return [Block(name, SECTION_TITLES[name], lines) for name, lines in parts if lines]


def render(sections: Sections, where: str) -> list[str]:
    """The blocks of ``where`` as text, without a budget."""
    return [budget_render([block]) for block in blocks(sections, where)]


__all__ = [
    "DEFAULT_CAPS",
    "SECTION_TITLES",
    "Sections",
    "blocks",
    "gather",
    "relations_for",
    "render",
    "answers",
    "in_force",
    "is_replaced",
    "replacer",
    "with_was",
]
