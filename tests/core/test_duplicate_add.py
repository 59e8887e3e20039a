"""A duplicate add (same text, scope, kind and session) is checked like a first add and keeps what it brings.

Issue 23: a duplicate used to return the stored memory before any check, dropping its new metadata and
accepting metadata no first add would (a datetime, a set, an int key, NaN).
"""

from __future__ import annotations

import datetime
import math
from pathlib import Path
from typing import Any

import pytest

import kioko
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.store import InvalidRecordError

TEXT = "The Halvorsen pump on line 4 was replaced in March."
NOT_JSON: list[Any] = [
    {"when": datetime.datetime(2026, 3, 1, 9, 30)},
    {"tags": {"pump", "line-4"}},
    {7: "an int key"},
    {"score": math.nan},
]


@pytest.fixture(params=["memory", "sqlite"])
def layer(request: pytest.FixtureRequest, tmp_path: Path) -> MemoryLayer:
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'dup.db'}"
    opened = kioko.connect(url, auto_link=True)
    request.addfinalizer(opened.close)
    return opened


@pytest.mark.parametrize("bad", NOT_JSON, ids=["datetime", "set", "int-key", "nan"])
def test_a_duplicate_refuses_metadata_a_first_add_refuses(layer: MemoryLayer, bad: dict[str, Any]) -> None:
    fresh = kioko.connect("memory://")
    with pytest.raises(InvalidRecordError) as first_error:
        fresh.add(TEXT, user_id="u", metadata=bad)
    stored = layer.add(TEXT, user_id="u", metadata={"source": "ticket-4711"})
    with pytest.raises(InvalidRecordError) as again_error:
        layer.add(TEXT, user_id="u", metadata=bad)
    assert str(again_error.value) == str(first_error.value)  # the same refusal, word for word
    assert layer.get(stored.id, user_id="u").metadata == stored.metadata  # and nothing changed


def test_new_metadata_on_a_duplicate_is_merged_into_the_stored_memory(layer: MemoryLayer) -> None:
    first = layer.add(TEXT, user_id="u", metadata={"source": "call-12", "site": "Oslo"})
    again = layer.add(" ".join(TEXT.split()) + " ", user_id="u", metadata={"source": "ticket-4711", "urgent": True})
    assert again.id == first.id
    assert len(list(layer.memories(user_id="u"))) == 1
    stored = layer.get(first.id, user_id="u")
    assert stored.metadata["source"] == "ticket-4711"  # a key given wins, as update() merges
    assert stored.metadata["site"] == "Oslo"
    assert stored.metadata["urgent"] is True
    assert again.metadata == stored.metadata
    assert stored.version == first.version + 1


def test_a_duplicate_bringing_nothing_new_writes_nothing(layer: MemoryLayer) -> None:
    first = layer.add(TEXT, user_id="u", metadata={"source": "call-12"})
    for metadata in (None, {}, {"source": "call-12"}):
        assert layer.add(TEXT, user_id="u", metadata=metadata).version == first.version
    assert layer.get(first.id, user_id="u").version == first.version


def test_add_many_merges_a_repeat_and_checks_metadata_before_writing(layer: MemoryLayer) -> None:
    stored = layer.add_many(
        [{"content": TEXT, "metadata": {"a": 1}}, {"content": TEXT, "metadata": {"b": 2}}], user_id="u"
    )
    assert stored[0].id == stored[1].id
    assert {"a": 1, "b": 2}.items() <= layer.get(stored[0].id, user_id="u").metadata.items()
    with pytest.raises(InvalidRecordError, match="item 1: metadata"):
        layer.add_many(
            ["A first, good memory about the canteen.", {"content": TEXT, "metadata": NOT_JSON[0]}], user_id="w"
        )
    assert list(layer.memories(user_id="w")) == []  # the good item before the bad one was not written either
