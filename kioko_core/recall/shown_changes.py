"""A newer memory shown in place of an older one it changes, for one question: a display policy, never a write.

Two memories a question found may both answer it, the older one stating a value the newer one changed ("The
company has about 40 employees." and, a session later, "we're 65 people now."). When the router did not join
them when the newer was written (it was not sure they are one slot), the context would list both as current.
Recall may be handed a reader of such pairs (:data:`ChangeReader`: the intelligence's, through
:meth:`~kioko_core.layer.hooks.LayerHooks.shown_changes`, which reads the words that say a change): for each
pair it names, the newer memory is shown with "(was: <older>)", at least as high as the older one ranked, and
the older leaves this context. Nothing is written: both memories stay in force in the store, and another
question (one the newer does not answer) shows the older as before. The core alone reads no pairs.

The older side may also be a profile slot or an instruction, which every context shows (``stable``: "User's
location is Lyon." beside a later "I habit in Grenoble since September"): the reader is handed them with the
searched memories (section ``"profile"`` or ``"instructions"``), and a pair naming one takes that line out of its
section for this context only, its text in the newer memory's note.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kioko_core.recall.context_text import RecalledMemory

ChangeReader = Callable[[str, Sequence[RecalledMemory]], dict[str, str]]
"""(question, the context's memories) -> {newer id: older id}: which memory to show in place of which."""


def show_changes(
    question: str,
    recalled: dict[str, RecalledMemory],
    reader: ChangeReader | None,
    stable: dict[str, RecalledMemory] | None = None,
) -> list[str]:
    """Apply ``reader``'s pairs to ``recalled`` (id -> memory, changed in place) and return the ids that left.

    ``stable`` (id -> a profile slot or instruction the context shows, changed in place too) may hold the older
    side of a pair, never the newer: such a line leaves ``stable`` (the caller leaves it out of its section).

    A pair is applied only when both memories are in ``recalled``, neither already shows a "(was: ...)" note
    (its own, stored, or one of this recall) and the older is not the newer of another pair applied: one note
    a memory, the oldest of a chain of three stays out of the notes (it is left in the context)."""
    stable = {} if stable is None else stable
    if reader is None or not recalled or len(recalled) + len(stable) < 2:
        return []
    pairs = reader(question, [*recalled.values(), *stable.values()])
    gone: list[str] = []
    noted: set[str] = set()
    for new_id, old_id in pairs.items():
        new = recalled.get(new_id)
        held = recalled if old_id in recalled else stable
        old = held.get(old_id)
        if new is None or old is None or new_id == old_id or new_id in gone or old_id in noted:
            continue
        if new.was or new.record.metadata.get("was"):
            continue
        new.was = old.record.content
        if held is recalled:
            new.score = max(new.score, old.score)
        new.signals = {**new.signals, "was": 1.0}
        del held[old_id]
        gone.append(old_id)
        noted.add(new_id)
    return gone


__all__ = ["ChangeReader", "show_changes"]
