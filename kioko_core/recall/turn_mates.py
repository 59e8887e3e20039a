"""The other memories of a turn whose memory a question found: one turn, routed into several memories, said one thing.

A turn the router splits into clauses stores each as its own memory ("Our head of design overruled me in the
all-hands." and "Everyone moves to Penpot from Monday, licence costs apparently."). A question finds the clause that
shares its words or meaning ("Which tool do the designers hand work over in?" finds neither word of the second),
and the clause holding the answer, often the newer value, stays out of the context. Recall may be handed a reader of
turn-mates (:data:`TurnMates`: the intelligence's, which numbers the turns it routes): the memories said in the same
turn as one of the context's best found memories come into the context right after it, with its signals and
``"turn"`` (so a change reader reads them as found for the question, see :mod:`~kioko_core.recall.shown_changes`).
The core alone numbers no turns and brings none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kioko_core.kinds.registry import section_of
from kioko_core.recall.context_text import RecalledMemory
from kioko_core.recall.owned import owned
from kioko_core.store import Record, Scope

TurnMates = Callable[[Scope, Sequence[Record]], dict[str, list[Record]]]
"""(scope, records) -> {record id: the other memories said in that record's turn}."""
PARTNERS = 3
"""The best found memories whose turn-mates come along (a turn-mate of a weak match is noise)."""
PER_PARTNER = 2
"""At most this many turn-mates of one memory."""
SEARCHED = frozenset({"memories", "decisions", "procedures", "skills", "lessons"})
"""The sections whose memories the question's search found: their turn-mates come (a goal, a pin, a safety fact
shown for another reason bring none)."""


def bring_turn_mates(
    recalled: dict[str, RecalledMemory],
    brought: set[str],
    reader: TurnMates | None,
    scope: Scope,
    may_show: Callable[[Record], bool],
) -> dict[str, str]:
    """Add to ``recalled`` (id -> memory, in place) the turn-mates ``reader`` names of its :data:`PARTNERS` best
    searched memories (not those only a link ``brought``), each one ``may_show``; return {added id: its partner's}."""
    if reader is None:
        return {}
    partners = [
        m
        for m in sorted(recalled.values(), key=lambda m: (-m.score, m.record.id))
        if m.section in SEARCHED and m.record.id not in brought and ("lexical" in m.signals or "dense" in m.signals)
    ][:PARTNERS]
    if not partners:
        return {}
    mates = reader(scope, [m.record for m in partners])
    added: dict[str, str] = {}
    for partner in partners:
        for record in mates.get(partner.record.id, [])[:PER_PARTNER]:
            if record.id in recalled or not may_show(record):
                continue
            # just below its partner: shown next to the clause that found it, never above
            recalled[record.id] = RecalledMemory(
                owned(record), partner.score * 0.999, {**partner.signals, "turn": 1.0}, section_of(record.kind)
            )
            added[record.id] = partner.record.id
    return added


def drop_mates_of(recalled: dict[str, RecalledMemory], added: dict[str, str], gone: set[str]) -> list[str]:
    """Take out of ``recalled`` the turn-mates ``added`` brought (id -> partner id) whose partner left the context
    (``gone``: shown as an older value, see :mod:`~kioko_core.recall.shown_changes`), unless one is itself shown in
    place of another: "I fold it onto the train." came with "User's bike is a Brompton." and says the same old bike.
    Returns the ids taken out."""
    dropped = [
        mate for mate, partner in added.items() if partner in gone and mate in recalled and recalled[mate].was is None
    ]
    for mate in dropped:
        del recalled[mate]
    return dropped


__all__ = ["PARTNERS", "PER_PARTNER", "TurnMates", "bring_turn_mates", "drop_mates_of"]
