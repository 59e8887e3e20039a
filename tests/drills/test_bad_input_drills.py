"""Bad-input drill: every malformed argument to the layer gets a typed error (a KiokoError) or is accepted,
the same way on every store, and a refused call leaves the store as it was.

The reference outcome is the in-memory store's; each matrix store must give the same one, so "change
nothing but the URL" holds for mistakes too.
"""

from __future__ import annotations

import pytest
from drill_tables import BAD_INPUTS, GOOD, outcome, stored_state
from linking_support import layer, linking_stores, make_layer, matrix_store, store, user  # noqa: F401

from kioko_backends.memory import MemoryStore
from kioko_core.layer.memory_layer import MemoryLayer

pytestmark = pytest.mark.drill


def test_every_bad_input_gets_the_same_typed_answer_on_every_store(layer: MemoryLayer, user: str) -> None:  # noqa: F811
    """For each of the table's calls: a KiokoError or acceptance, as on memory://; refused calls change nothing."""
    reference = MemoryLayer(MemoryStore(), auto_link=True)
    existing = layer.add(GOOD, user_id=user).id
    reference_existing = reference.add(GOOD, user_id=user).id
    differ: dict[str, tuple[str, str]] = {}
    untyped: dict[str, str] = {}
    changed: list[str] = []
    for name, call in BAD_INPUTS.items():
        expected = outcome(reference, user, reference_existing, call)
        before = stored_state(layer, user)
        got = outcome(layer, user, existing, call)
        if got != expected:
            differ[name] = (got, expected)
        if got.startswith("untyped"):
            untyped[name] = got
        if got != "accepted" and stored_state(layer, user) != before:
            changed.append(name)
    assert untyped == {}, "errors that are not a KiokoError"
    assert differ == {}, "outcome on this store vs memory://"
    assert changed == [], "refused, yet the store changed"
