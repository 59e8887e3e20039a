"""A list of old values names each of its things, and a single-valued category is replaced beside them
(kioko_intelligence/slot_reading.py ``old_values``, kioko_intelligence/slots.py).

"I'm vegetarian. Eggs and cheese are fine though", then "I went fully vegan in January, so no eggs or dairy anymore":
"eggs or dairy" was one old value no memory held, so "Eggs and cheese are fine" stayed in the context; naming it
alone would then have left the vegetarian memory (the diet category) in force. Real layers; no mocks.
"""

from __future__ import annotations

import kioko
from kioko_intelligence.slot_reading import old_values


def test_each_thing_of_a_list_is_an_old_value() -> None:
    assert {"eggs", "dairy"} <= set(old_values("I went fully vegan, so no eggs or dairy anymore."))


def _in_force(memory: kioko.Memory) -> list[str]:
    return [
        r.content
        for r in memory.memories(user_id="u")
        if not r.metadata.get("superseded_by") and not r.metadata.get("conflicted_by")
    ]


def test_a_list_and_the_category_are_both_replaced() -> None:
    with kioko.intelligent("memory://") as memory:
        memory.record_turn("I'm vegetarian, have been since uni. Eggs and cheese are fine though.", user_id="u")
        memory.record_turn("I went fully vegan in January, so no eggs or dairy anymore.", user_id="u")
        held = _in_force(memory)
        assert any("vegan" in c for c in held)
        assert not any("Eggs and cheese" in c or "vegetarian" in c for c in held)


def test_one_value_is_not_split() -> None:
    assert old_values("I'm done with Neovim, too much config.") == ["Neovim"]
