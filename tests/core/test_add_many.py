"""add_many: a batch import that stores and links like add() one by one, or stores nothing."""

from __future__ import annotations

import pytest

import kioko
from kioko_core.linking import links
from kioko_core.store import InvalidRecordError


def test_add_many_stores_in_order_and_links_like_add():
    batch = kioko.connect("memory://", auto_link=True)
    one_by_one = kioko.connect("memory://", auto_link=True)
    items = [
        {"content": "Line 3 keeps faulting with error E-217.", "session_id": "s1", "created_at": 1000.0},
        {"content": "Found it: the encoder cable on line 3 was loose.", "session_id": "s1", "created_at": 1060.0},
        "The canteen serves curry on Fridays.",
    ]
    stored = batch.add_many(items, user_id="u")
    for item in items:
        one_by_one.add(**({"content": item} if isinstance(item, str) else item), user_id="u")
    assert [r.content for r in stored] == [i if isinstance(i, str) else i["content"] for i in items]
    assert stored[0].session_id == "s1"
    assert stored[0].created_at == 1000.0
    got = {r.content: sorted((e["type"]) for e in links.link_entries(r)) for r in batch.memories(user_id="u")}
    want = {r.content: sorted((e["type"]) for e in links.link_entries(r)) for r in one_by_one.memories(user_id="u")}
    assert got == want
    assert got["Found it: the encoder cable on line 3 was loose."]  # linked to the fault before it


@pytest.mark.parametrize(
    "bad", [[""], [42], [{"content": "x", "colour": "red"}], [{"content": "x", "memory_type": "nope"}]]
)
def test_add_many_checks_every_item_before_writing(bad):
    layer = kioko.connect("memory://", auto_link=True)
    with pytest.raises(InvalidRecordError):
        layer.add_many(["A good memory about the Kioko release.", *bad], user_id="u")
    assert list(layer.memories(user_id="u")) == []


def test_adding_the_same_memory_again_returns_the_stored_one(make_layer_url="memory://"):
    layer = kioko.connect(make_layer_url, auto_link=True)
    first = layer.add("Line 3 keeps faulting with error E-217.", user_id="u", memory_type="episodic", session_id="s1")
    again = layer.add("Line 3  keeps faulting with error E-217. ", user_id="u", memory_type="episodic", session_id="s1")
    assert again.id == first.id
    assert len(list(layer.memories(user_id="u"))) == 1
    assert not any(e["id"] == first.id for e in links.link_entries(layer.get(first.id, user_id="u")))
    # another scope, kind or session is another memory
    assert (
        layer.add("Line 3 keeps faulting with error E-217.", user_id="v", memory_type="episodic", session_id="s1").id
        != first.id
    )
    assert (
        layer.add("Line 3 keeps faulting with error E-217.", user_id="u", memory_type="episodic", session_id="s2").id
        != first.id
    )
    assert layer.add("Line 3 keeps faulting with error E-217.", user_id="u", memory_type="factual").id != first.id
    batch = layer.add_many(
        ["The canteen serves curry on Fridays.", "The canteen serves curry on Fridays."], user_id="w"
    )
    assert batch[0].id == batch[1].id
    assert len(list(layer.memories(user_id="w"))) == 1
