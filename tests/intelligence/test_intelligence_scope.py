"""manage / learn / record_turn go through the layer's scope rules: scoped views and reserved names."""

from __future__ import annotations

import pytest

import kioko
from kioko_core.store import InvalidRecordError


def test_a_scoped_view_manages_for_its_own_user() -> None:
    memory = kioko.intelligent("memory://")
    view = memory.scoped(user_id="kumar")
    view.manage("I live in Pune and I work on the Kioko memory layer.")
    view.record_turn("We decided to use pgvector because we already run Postgres.", "Noted.")
    assert list(memory.memories(user_id="kumar"))
    assert not list(memory.memories(user_id="other"))


@pytest.mark.parametrize("call", ["manage", "learn", "record_turn"])
def test_reserved_scope_names_are_refused(call: str) -> None:
    memory = kioko.intelligent("memory://")
    argument = [{"role": "user", "content": "I live in Pune."}] if call == "learn" else "I live in Pune."
    with pytest.raises(InvalidRecordError):
        getattr(memory, call)(argument, user_id="kumar", agent_id="@graph")
