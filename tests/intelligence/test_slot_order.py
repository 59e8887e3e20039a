"""The slot rules read the older memories in the order they were said (kioko_intelligence/slots.py ``_holding``;
#33). Record ids are random: a rule that takes the first of several candidates (the kind an event replacing two
memories is stored as) gave a fact in one run and knowledge in the next. Real layer (memory://), no mocks."""

from __future__ import annotations

import kioko
from kioko_core.store import Scope
from kioko_intelligence.slots import _holding


def test_older_memories_come_in_the_order_they_were_said() -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        said = [
            f"The Harbour Street allotment plot {n} grows {crop}."
            for n, crop in enumerate(["leeks", "beans", "kale", "onions", "garlic", "chard", "peas", "beets"])
        ]
        for at, text in enumerate(said):  # the times given, not the clock's: one after the other
            memory.add(text, user_id="u", created_at=1_700_000_000.0 + 60 * at)
        found = _holding(memory, Scope(user_id="u"), ["t:allot"], every=False)
        assert [r.content for r in found] == said
