"""The public surface of ``kioko``: its errors, and what a developer holds (layer, scoped views, managers)."""

from __future__ import annotations

import pytest

import kioko
from kioko_core import errors


PUBLIC_ERRORS = ("KiokoError", "StoreError", "ConflictError", "InvalidRecordError", "ConnectionLostError",
                 "UnknownStoreError", "MissingExtraError", "MemoryNotFound", "KindMismatch", "LinkConflict",
                 "SecretDropped")


@pytest.mark.parametrize("name", PUBLIC_ERRORS)
def test_every_public_error_is_exported_from_kioko_and_is_the_core_class(name: str) -> None:
    """``kioko.X`` is ``kioko_core.errors.X`` (one class, whichever module raised it) and derives from KiokoError."""
    exported = getattr(kioko, name)
    assert exported is getattr(errors, name)
    assert issubclass(exported, kioko.KiokoError)
    assert name in kioko.__all__


def test_the_store_protocol_module_re_exports_the_same_error_classes() -> None:
    """Drivers import errors from kioko_core.store; they are the very classes the layer raises."""
    from kioko_core import store

    for name in ("KiokoError", "StoreError", "ConflictError", "InvalidRecordError", "ConnectionLostError",
                 "UnknownStoreError", "MissingExtraError"):
        assert getattr(store, name) is getattr(errors, name)


def test_memory_not_found_names_the_id_and_reads_as_a_sentence() -> None:
    """MemoryNotFound is a KeyError for dict-like code, but its message is not shown in quotes."""
    error = kioko.MemoryNotFound("m1", "kumar")
    assert isinstance(error, KeyError) and error.memory_id == "m1"
    assert str(error) == "no memory 'm1' for user 'kumar'"


def test_a_missing_memory_raises_the_exported_class() -> None:
    with kioko.connect("memory://") as memory:
        with pytest.raises(kioko.MemoryNotFound):
            memory.get("nope", user_id="kumar")
        with pytest.raises(kioko.SecretDropped):
            memory.add("my password is hunter2", user_id="kumar")
