"""An instruction that sets the same aspect with other words supersedes the older one ("formal" -> "casual")."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.instruction_topics import aspects, changed_aspect


def test_aspects_are_read_from_the_table() -> None:
    assert aspects("Put the summary at the end of long answers.") == {
        "summary": {"summary at the end"},
        "length": {"long answers"},
    }
    assert aspects("The weather was lovely.") == {}


@pytest.mark.parametrize(
    ("old", "new", "shown"),
    [
        ("Be formal with me, please.", "A casual tone is fine from here on, no need for formality.", "casual"),
        ("Address me as Dr. Chen.", "No need for the title, just call me Wei.", "Wei"),
        ("Keep your tone formal.", "Loosen up, banter is fine.", "banter"),
        ("Give recipe quantities in cups.", "Grams only, I bought a kitchen scale.", "Grams"),
        ("Put the summary at the end of long answers.", "TL;DR on top please.", "TL;DR"),
    ],
)
def test_a_newer_instruction_on_the_same_aspect_supersedes(old: str, new: str, shown: str) -> None:
    assert changed_aspect(new, old)
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(old, "Noted.", user_id="u", session_id="s1")
        memory.record_turn(new, "Noted.", user_id="u", session_id="s2")
        current = [r.content for r in memory.memories(user_id="u") if not r.metadata.get("superseded_by")]
        assert len(current) == 1
        assert shown in current[0]


def test_adding_to_an_aspect_or_a_world_statement_changes_nothing() -> None:
    assert not changed_aspect("Use bullet points and headings.", "Use bullet points.")
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn("Keep your tone formal.", "Noted.", user_id="u", session_id="s1")
        memory.record_turn("The pub quiz had lots of banter last night.", "Noted.", user_id="u", session_id="s2")
        assert [r for r in memory.memories(user_id="u") if r.metadata.get("superseded_by")] == []


def test_pronouns_said_anew_supersede_the_stored_ones() -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn("My pronouns are she/her.", "Noted.", user_id="u", session_id="s1")
        memory.record_turn("I use they/them now.", "Noted.", user_id="u", session_id="s2")
        current = [r.content for r in memory.memories(user_id="u") if not r.metadata.get("superseded_by")]
        assert len(current) == 1
        assert "they/them" in current[0]


def test_a_length_said_in_plain_words_is_the_length_aspect() -> None:
    old = "pls keep replies super short, i'm reading you between pipetting steps"
    new = "writing up now so i've got all the time in the world, go into full detail with references"
    assert changed_aspect(new, old)
    assert not changed_aspect("Short answers, in detail when I ask.", "Keep it short and in detail when I ask.")
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(old, "Noted.", user_id="u", session_id="s1")
        memory.record_turn(new, "Noted.", user_id="u", session_id="s2")
        replaced = [r.content for r in memory.memories(user_id="u") if r.metadata.get("superseded_by")]
        assert replaced == ["Keep replies super short, I'm reading you between pipetting steps."]
