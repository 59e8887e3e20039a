"""A metadata-only update that changes a memory's terms (a pin) drops that memory alone from the index cache's
records (issue 34): the batch wrote that record only, so the others cached stay as the store holds them, and the
changed one is read afresh. Before, every such update emptied the scope's records (14 times in the agent loop's
100 turns), and the turns after it read their candidates from the store again."""

from __future__ import annotations

from pathlib import Path

import pytest

import kioko
from kioko_core.store import Scope

USER = "mirela"
NOTES = (
    "The line 3 conveyor jammed twice this morning.",
    "Line 3 keeps faulting with error E-217.",
    "Found it: the encoder cable on line 3 was loose.",
    "Pump 7 leaks coolant near the E-41 valve.",
)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_pin_drops_only_the_pinned_memory_from_the_cached_records(kind: str, tmp_path: Path) -> None:
    url = "memory://" if kind == "memory" else f"sqlite:///{tmp_path / 'pins.db'}"
    with kioko.connect(url, auto_link=True) as memory:
        written = [memory.add(text, user_id=USER, memory_type="episodic", session_id="s1") for text in NOTES]
        scope = Scope(USER, None)
        memory.index.lookup(scope, ["t:line"])
        memory.index.records(scope, [r.id for r in written])
        held = memory.index._scopes[scope].records
        assert {r.id for r in written} <= set(held)
        before = memory.store.get(scope, [written[0].id])[0]
        assert before is not None
        memory.pin(written[0].id, user_id=USER)
        pinned = memory.store.get(scope, [written[0].id])[0]
        assert pinned is not None
        assert pinned.terms != before.terms  # the pin changed the memory's terms: the case this test is about
        assert written[0].id not in held
        assert {r.id for r in written[1:]} <= set(held)
        memory.index.lookup(scope, ["t:line"])
        again = memory.index.records(scope, [written[0].id])[written[0].id]
        assert again.metadata.get("pinned") is True
        for record in written[1:]:
            stored = memory.store.get(scope, [record.id])[0]
            assert stored is not None
            assert held[record.id].model_dump(exclude={"embedding"}) == stored.model_dump(exclude={"embedding"})
