"""What every builder of the offline router reads a turn with: the ops gathered so far, and the goals and
decisions a mention names, found through the term index (a turn must not cost more as the store grows)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from kioko_core.linking.linker import KIND_TERM
from kioko_core.reading.analysis import STOP_WORDS, entity_key
from kioko_core.store import Record, Scope, check_scope
from kioko_intelligence.language import (
    content_words,
    importance,
)
from kioko_intelligence.ops import KIND_OF_MEMORY, MemoryOp
from kioko_intelligence.turn import Turn

if TYPE_CHECKING:
    from kioko_core.layer.memory_layer import MemoryLayer

RELATED_LIMIT = 10
POSTINGS_LIMIT = 500
"""Goals and decisions are looked up by the index while their words are rarer than this in the scope."""
QUERY_CHARS = 1000
"""How much of a statement looks for related memories: the start says what it is about."""


NAME_WORDS = 3
"""Longest name, in words, looked up among the user's known names."""
NAME_LOOKUPS = 200
"""Spans of a turn asked about at most (one postings call): a longer turn is looked up by its beginning."""
_CASELESS_WORD = re.compile(r"[a-z0-9][a-z0-9&'’.-]*")


def known_names(memory: MemoryLayer, scope: Scope, text: str) -> list[str]:
    """The names ``text`` (a turn written without case) holds that the user's stored memories hold as names
    (entity terms of the index: a word written with a capital where no sentence starts, "Max", "GitHub
    Actions"), each in capitals ("max" -> "Max"): :func:`~kioko_intelligence.casing.recase` puts them back.
    One postings call (counts only), whatever the size of the store."""
    words = [m.group().rstrip(".'’") for m in _CASELESS_WORD.finditer(text)]
    spans: list[str] = []
    for start in range(len(words)):
        for width in range(1, NAME_WORDS + 1):
            piece = words[start : start + width]
            if len(piece) < width or piece[0] in STOP_WORDS or piece[-1] in STOP_WORDS:
                continue
            key = entity_key(" ".join(piece).removesuffix("'s").removesuffix("’s"))
            if len(key) >= 2 and key not in spans:
                spans.append(key)
    spans = spans[:NAME_LOOKUPS]
    if not spans:
        return []
    held = memory.store.postings(scope, ["e:" + key for key in spans], 0).df
    return [" ".join(w[:1].upper() + w[1:] for w in key.split()) for key in spans if held.get("e:" + key, 0) > 0]


class TurnReading:
    """One turn being read: the ops so far and what was looked up (open goals, decisions) for it."""

    def __init__(self, memory: MemoryLayer, turn: Turn, graph: bool) -> None:
        self.memory = memory
        self.turn = turn
        self.scope: Scope = check_scope((turn.user_id, turn.agent_id))
        self.who = {"user_id": turn.user_id, "agent_id": turn.agent_id}
        self.ops: list[MemoryOp] = []
        self._whole: dict[str, list[str]] = {}
        """Terms whose every posting this turn has read (their lists were longer than :data:`POSTINGS_LIMIT`)."""
        self._relations: list[tuple[str, str]] = []
        """(relation, value) of profile slots, added after the turn's other ops as the spec lists them."""
        self.graph = graph
        """Whether relations between named entities are written too (the router's choice, else the layer's)."""

    def add(
        self,
        op: str,
        *,
        reason: str,
        text_for_importance: str = "",
        target: str | None = None,
        confidence: float = 0.9,
        **fields: Any,
    ) -> MemoryOp:
        kind = op.split(".", 1)[0]
        made = MemoryOp(
            op=op,
            target=target,
            fields={k: v for k, v in fields.items() if v is not None},
            reason=reason,
            confidence=confidence,
            importance=importance(kind, text_for_importance) if text_for_importance else None,
        )
        if not any(o.op == made.op and o.target == made.target and o.fields == made.fields for o in self.ops):
            self.ops.append(made)
        return made

    def open_goals(self, mention: str, every: bool = False) -> list[Record]:
        """Open goals that share a word (``every``: all words) with ``mention``, oldest first."""
        return [g for g in self.by_words("goal", mention, every) if g.metadata.get("status", "open") == "open"]

    def current_decisions(self, mention: str) -> list[Record]:
        """Decisions in force that share a word with ``mention``, oldest first."""
        return [d for d in self.by_words("decision", mention) if not d.metadata.get("superseded_by")]

    def by_words(self, kind: str, mention: str, every: bool = False) -> list[Record]:
        """Memories of ``kind`` holding a content word of ``mention``, found through the term index.

        A turn must not cost more as the store grows, so goals and decisions are not scanned: the
        postings of the kind and of the mention's words are intersected, and only the memories in the
        intersection are read. A term more frequent than :data:`POSTINGS_LIMIT` (its postings cut at the
        limit) has its whole list read - ids only, an index walk - so the intersection stays exact: reading
        every memory of the kind instead cost a turn ~0.4 s at 20,000 memories (1,073 goals).
        """
        words = [w for w in content_words(mention, keep_generic=False) if not w.isdigit()]
        if not words:
            return []
        kind_term, terms = KIND_TERM + KIND_OF_MEMORY[kind], ["t:" + w for w in words]
        postings = self.memory.store.postings(self.scope, [kind_term, *terms], POSTINGS_LIMIT)
        ids_of = dict(postings.ids)
        cut = [t for t in [kind_term, *terms] if postings.df.get(t, 0) > POSTINGS_LIMIT]
        unread = [t for t in cut if t not in self._whole]
        if unread:
            whole = self.memory.store.postings(self.scope, unread, max(postings.df[t] for t in unread))
            self._whole.update({t: whole.ids.get(t, []) for t in unread})
        ids_of.update({t: self._whole[t] for t in cut})
        holding = [set(ids_of.get(t, ())) for t in terms if postings.df.get(t, 0) or not every]
        if every:  # words the index does not keep (framing words such as "user") do not narrow it
            words_ids = set.intersection(*holding) if holding else set()
        else:
            words_ids = set().union(*holding)
        ids = set(ids_of.get(kind_term, ())) & words_ids
        records = [r for r in self.memory.store.get(self.scope, sorted(ids)) if r is not None] if ids else []
        return sorted((r for r in records if r.kind == KIND_OF_MEMORY[kind]), key=lambda r: (r.created_at, r.id))

    def related(self, text: str, limit: int = RELATED_LIMIT) -> list[Record]:
        return self.memory.search(text[:QUERY_CHARS], limit=limit, **self.who)
