"""The context's size budget: what a recall's text may spend, in tokens, and what gives way first.

A context is blocks (a title and its lines: "Relevant memories:", "- ..."). :func:`fit` keeps, in the order
of :data:`PRIORITY`, every line that still fits the budget, and renders the kept ones in the context's own
order (the profile and instructions first, so a prompt cache keeps them). A line longer than a quarter of
the budget (:func:`line_cap`) is cut to it with a visible marker, never dropped whole for its length alone:
one 100 KB memory gives a bounded context that shows its start and says how much was left out. A line that
no longer fits is cut to the room left when that is at least :data:`MIN_LINE_TOKENS`, else dropped; later,
shorter lines may still fit.

Tokens are counted with an approximation, not a model's tokenizer: ``ceil(characters / 4)``
(:func:`count_tokens`), the usual figure for English text with the GPT-style tokenizers (about four
characters a token). It costs nothing, needs no package, and is the same on every machine; the count of
each piece is rounded up, so the whole text never counts more than the pieces it was made of.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from kioko_core.errors import InvalidRecordError

DEFAULT_BUDGET = 2000
"""Tokens a context may take unless told otherwise (``RecallConfig.budget``): about 8,000 characters, room
for the profile, the instructions, ten memories of a few sentences and their links, and a small part of an
8k-token prompt."""
CHARS_PER_TOKEN = 4
MIN_LINE_TOKENS = 24
"""A line cut to fit the room left keeps at least this much of itself (less says nothing), else it is dropped."""
PRIORITY = (
    "instructions",
    "safety",
    "profile",
    "working",
    "memories",
    "decisions",
    "procedures",
    "goals",
    "pinned",
    "lessons",
    "skills",
    "graph",
    "links",
)
"""What a tight budget keeps first: how to answer, the safety-relevant facts, who the user is, the session's
task, then what the question retrieved, best section first; the links between memories last (they repeat
memories already shown)."""
CUT_MARK = " [... cut: {more:,} more characters]"
"""Ends a line cut for the budget: the reader sees the memory goes on (its full text is in ``ctx.memories``)."""


@dataclass
class Line:
    """One line of a block: its text, the memory it shows (None for a relation), the memories it needs."""

    text: str
    memory_id: str | None = None
    needs: tuple[str, ...] = ()
    """A link line names two memories: it is dropped when either of them is."""


@dataclass
class Block:
    section: str
    title: str
    lines: list[Line] = field(default_factory=list)


@dataclass
class Fitted:
    """The rendered text, its token count, and the memories the budget cut or left out."""

    text: str
    tokens: int
    cut: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def count_tokens(text: str) -> int:
    """Tokens ``text`` is counted as: ``ceil(len(text) / 4)`` (see the module's docstring)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def check_budget(budget: object, what: str = "budget") -> int | None:
    """``budget`` as recall takes it: a whole number of tokens >= 1, or None (no budget)."""
    if budget is None:
        return None
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise InvalidRecordError(
            f"{what} must be a whole number of tokens >= 1 (or None for no budget), got {budget!r}"
        )
    return budget


def line_cap(budget: int) -> int:
    """The most one line may take: a quarter of the budget (at least :data:`MIN_LINE_TOKENS`)."""
    return max(MIN_LINE_TOKENS, budget // 4)


def cut(text: str, tokens: int) -> str:
    """``text`` shortened so that ``"\\n- " + result`` counts at most ``tokens``, ending with :data:`CUT_MARK`
    (at a word's end when one is near)."""
    room = tokens * CHARS_PER_TOKEN - len("\n- ")
    keep = max(0, room - len(CUT_MARK.format(more=len(text))))
    while True:
        head = text[:keep]
        space = head.rfind(" ")
        if space > keep * 0.8:
            head = head[:space]
        head = head.rstrip()
        shortened = head + CUT_MARK.format(more=len(text) - len(head))
        if count_tokens("\n- " + shortened) <= tokens or not head:
            return shortened
        keep -= CHARS_PER_TOKEN


def render(blocks: list[Block]) -> str:
    return "\n\n".join(b.title + "\n" + "\n".join(f"- {line.text}" for line in b.lines) for b in blocks if b.lines)


def fit(blocks: list[Block], budget: int | None) -> Fitted:
    """The blocks' text within ``budget`` tokens (None: all of it), lines kept in :data:`PRIORITY` order."""
    if budget is None:
        text = render(blocks)
        return Fitted(text, count_tokens(text))
    rank = {name: position for position, name in enumerate(PRIORITY)}
    cap = line_cap(budget)
    used = 0
    kept: dict[int, list[Line]] = {}
    result = Fitted("", 0)
    # each block is charged its title and the blank line before it; each line "\n- " and its text
    for number in sorted(range(len(blocks)), key=lambda n: (rank.get(blocks[n].section, len(rank)), n)):
        block = blocks[number]
        title = count_tokens(block.title + "\n\n")
        for line in block.lines:
            if any(needed in result.dropped for needed in line.needs):
                continue
            opening = 0 if number in kept else title
            text = line.text
            if count_tokens("\n- " + text) > cap:
                text = cut(text, cap)
            room = budget - used - opening
            if count_tokens("\n- " + text) > room:
                if room < MIN_LINE_TOKENS:
                    if line.memory_id is not None:
                        result.dropped.append(line.memory_id)
                    continue
                text = cut(text, room)
            if text != line.text and line.memory_id is not None:
                result.cut.append(line.memory_id)
            used += opening + count_tokens("\n- " + text)
            kept.setdefault(number, []).append(Line(text, line.memory_id, line.needs))
    shown = [Block(b.section, b.title, kept[n]) for n, b in enumerate(blocks) if n in kept]
    result.text = render(shown)
    result.tokens = count_tokens(result.text)
    return result


__all__ = [
    "CUT_MARK",
    "DEFAULT_BUDGET",
    "PRIORITY",
    "Block",
    "Fitted",
    "Line",
    "check_budget",
    "count_tokens",
    "cut",
    "fit",
    "line_cap",
]
