"""Words of a newer statement read as they were said: a common word with an "s" is no typing slip ("I'm on lates
now" was stored as "on lattes"), and a name's possessive names that thing ("The ThinkPad's keyboard is lovely" was
read as a name of its own, another value beside "ThinkPad", and marked the memory of the new laptop and phone as
replaced). Through the agent loop (``record_turn``, the offline router, the semantic embedder) and the readers."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.slot_reading import read_slot
from kioko_intelligence.spelling import available, correct_typos

needs_words = pytest.mark.skipif(not available(), reason="the spelling extra (pyspellchecker) is not installed")


@needs_words
@pytest.mark.parametrize(
    "said",
    ["Swapped with Dave, I'm on lates now, 2 till 10.", "She meets the leads on Fridays.", "The rotas are out."],
)
def test_a_common_word_with_an_s_is_kept(said: str) -> None:
    assert correct_typos(said) == said


@needs_words
@pytest.mark.parametrize(
    ("said", "meant"), [("I swithced to Neovim", "I switched to Neovim"), ("my edtiors", "my editors")]
)
def test_a_slip_is_still_put_right(said: str, meant: str) -> None:
    assert correct_typos(said) == meant


def test_a_names_possessive_is_the_name() -> None:
    assert read_slot("The ThinkPad's keyboard is lovely.").values["name"] == {"thinkpad"}
    assert read_slot("I stayed at Kofi’s flat.").values["name"] == {"kofi"}
    assert read_slot("I use the ThinkPad daily.").values["name"] == {"thinkpad"}


def test_praise_of_a_named_thing_does_not_replace_the_memory_naming_it() -> None:
    pytest.importorskip("kioko_core.embedding.semantic")
    memory = kioko.intelligent("memory://?embedder=semantic")
    for turn in (
        "New job means a new laptop, a ThinkPad, and a new phone, an iPhone 15.",
        "The ThinkPad's keyboard is lovely.",
    ):
        memory.record_turn(turn, "Noted.", user_id="u", session_id="s1")
    marked = [
        r.content
        for r in memory.memories(user_id="u")
        if r.metadata.get("conflicted_by") or r.metadata.get("superseded_by")
    ]
    assert not marked
    assert "iPhone 15" in memory.recall("What work phone do I have?", user_id="u", session_id="s1").text


def test_a_new_value_of_a_named_thing_still_replaces() -> None:
    pytest.importorskip("kioko_core.embedding.semantic")
    memory = kioko.intelligent("memory://?embedder=semantic")
    memory.record_turn("My work laptop is a ThinkPad.", "Noted.", user_id="u", session_id="s1")
    memory.end_session("s1", user_id="u")
    memory.record_turn("My work laptop is a MacBook now.", "Noted.", user_id="u", session_id="s2")
    marked = [
        r.content
        for r in memory.memories(user_id="u")
        if r.metadata.get("conflicted_by") or r.metadata.get("superseded_by")
    ]
    assert [c for c in marked if "ThinkPad" in c]
