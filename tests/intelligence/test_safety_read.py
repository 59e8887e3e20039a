"""A safety fact written before the write path marked safety facts (no ``x:safety`` term) is recognised at read,
for the questions it bears on only (#33)."""

from __future__ import annotations

import kioko
from kioko_core.recall.safety import SAFETY_TERM
from kioko_core.store import Scope, Upsert

U = {"user_id": "old-timer"}


def unmark(memory: kioko.MemoryLayer, memory_id: str) -> None:
    """The memory as a store written before safety facts were marked holds it: without the safety term."""
    scope = Scope("old-timer", None)
    record = memory.store.get(scope, [memory_id])[0]
    assert record is not None
    assert SAFETY_TERM in record.terms
    bare = record.model_copy(update={"terms": [t for t in record.terms if t != SAFETY_TERM]})
    memory.store.update_many([Upsert(record=bare, expected_version=record.version)])
    memory.index.invalidate(scope)
    again = memory.store.get(scope, [memory_id])[0]
    assert again is not None
    assert SAFETY_TERM not in again.terms


def test_an_unmarked_allergy_is_shown_for_food_and_not_for_laptops() -> None:
    with kioko.intelligent("memory://") as memory:
        allergy = memory.add("User is allergic to shellfish.", memory_type="factual", **U)
        memory.add("User's laptop battery dies after two hours.", memory_type="factual", **U)
        unmark(memory, allergy.id)
        cook = memory.recall("What should I cook for my friends on Saturday?", **U).text
        battery = memory.recall("How can I make my laptop battery last longer?", **U).text
        assert "shellfish" in cook
        assert "shellfish" not in battery


def test_a_blood_thinner_is_shown_for_a_headache() -> None:
    with kioko.intelligent("memory://") as memory:
        memory.record_turn("I'm on warfarin, so I have to be careful with painkillers.", "Noted.", session_id="s1", **U)
        assert "warfarin" in memory.recall("What can I take for a headache?", **U).text
