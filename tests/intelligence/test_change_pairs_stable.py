"""A profile slot or an instruction as the older side of a change shown at recall (#33,
kioko_intelligence.change_pairs): the "About the user" and "Instructions" sections are shown unsearched, so a
later change-cued memory the question brings ("User is a captain now.") sat beside the stale slot ("User's job
title is first officer."). When the question is about that slot or instruction, the newer is shown with
"(was: <the slot's line>)" and the line leaves its section for that context only; nothing is written.

Real layers on memory:// and SQLite files, driven through the agent loop (recall, record_turn, end_session).
"""

from __future__ import annotations

from functools import partial

import pytest
from sessions_support import lines_with, play_sessions, semantic_layer

import kioko
from kioko_core.recall.context_text import RecalledMemory
from kioko_core.recall.sections import is_replaced
from kioko_core.recall.shown_changes import show_changes
from kioko_core.store import Record, Scope
from kioko_intelligence.change_pairs import SLOT_ASKED, changed_pairs

U = {"user_id": "ines"}


@pytest.fixture(params=["memory", "sqlite"])
def memory(request, tmp_path):
    with semantic_layer(request.param, tmp_path) as layer:
        yield layer


_turns = partial(play_sessions, user_id=U["user_id"])
_lines = lines_with


# --- what failed before: the slot's old value was shown as current beside the change


def _pilot(memory, newer: str, *more: tuple[str, str, str]) -> None:
    """The slots and the newer memory stored as they are (the router's and the write-time rules' reading of the
    turns aside: recall's rule alone)."""
    for content, slot, value in (("User's job title is first officer.", "job_title", "first officer"), *more):
        memory.add(
            content,
            memory_type="profile",
            metadata={"slot": slot, "value": value},
            session_id="s1",
            created_at=1_700_000_000,
            **U,
        )
    memory.add(newer, session_id="s2", created_at=1_700_100_000, **U)


def test_a_newer_rank_replaces_the_job_title_slot_in_the_context(memory) -> None:
    _pilot(memory, "User is a captain now.")
    text = memory.recall("What's my rank?", session_id="p", **U).text
    [line] = _lines(text, "captain")
    assert "(was: User's job title is first officer)" in line
    assert _lines(text, "first officer") == [line]  # the slot's line only inside the note
    # a display policy: the slot stays in force in the store, and another question shows it
    [slot] = [r for r in memory.store.scan(Scope(U["user_id"], None)) if r.kind == "profile"]
    assert slot.content == "User's job title is first officer." and not is_replaced(slot)
    assert _lines(memory.recall("What's for dinner?", session_id="p", **U).text, "first officer")


def test_a_newer_home_replaces_the_location_slot(memory) -> None:
    memory.add(
        "User's location is Lyon.",
        memory_type="profile",
        metadata={"slot": "location", "value": "Lyon"},
        session_id="s1",
        created_at=1_700_000_000,
        **U,
    )
    memory.add(
        "I habit in Grenoble, near the mountains, since September, it is more calm.",
        session_id="s2",
        created_at=1_700_100_000,
        **U,
    )
    text = memory.recall("Where do I live?", session_id="p", **U).text
    [line] = _lines(text, "Grenoble")
    assert "(was: User's location is Lyon)" in line
    assert _lines(text, "Lyon") == [line]
    assert "About the user:" not in text


def test_a_newer_word_to_the_assistant_replaces_the_instruction_it_changes(memory) -> None:
    # stored as the memories they are (the router's own reading of the turn aside): recall's rule alone
    memory.add("Keep your answers short.", memory_type="instruction", session_id="s1", created_at=1_700_000_000, **U)
    memory.add(
        "Your answers can be as long as you like now, my exams are over.",
        session_id="s2",
        created_at=1_700_100_000,
        **U,
    )
    text = memory.recall("How long should your answers be?", session_id="p", **U).text
    [line] = _lines(text, "as long as you like")
    assert "(was: Keep your answers short)" in line
    assert "Instructions:" not in text
    # an instruction the question does not share a word with stays
    assert "Instructions:\n- Keep your answers short." in memory.recall("What do I like?", session_id="p", **U).text


# --- what it must leave alone


def test_a_slot_the_question_is_not_about_stays(memory) -> None:
    _pilot(memory, "User is a captain now.", ("User's location is Leeds.", "location", "Leeds"))
    text = memory.recall("Where do I live?", session_id="p", **U).text
    assert "(was:" not in text
    assert "- User's job title is first officer." in text
    assert "- User's location is Leeds." in text


@pytest.mark.parametrize(
    "newer",
    [
        "User's sister is a captain now.",  # someone else's
        "User is also a flight instructor now.",  # added beside, not instead
        "User is a first officer now, on the A320.",  # the slot's value again
    ],
)
def test_someone_elses_change_an_added_one_or_the_same_value_leaves_the_slot(memory, newer: str) -> None:
    _pilot(memory, newer)
    text = memory.recall("What's my rank?", session_id="p", **U).text
    assert "(was:" not in text
    assert "- User's job title is first officer." in text


def test_a_question_about_before_shows_the_slot(memory) -> None:
    _pilot(memory, "User is a captain now.")
    text = memory.recall("What was my rank before?", session_id="p", **U).text
    assert "(was:" not in text
    assert "- User's job title is first officer." in text


def test_the_lexical_embedder_pairs_no_slot_with_a_memory_only_the_newest_brought() -> None:
    with kioko.intelligent("memory://?embedder=offline") as layer:
        _pilot(layer, "User is a captain now.")
        text = layer.recall("What's my rank?", session_id="p", **U).text
    assert "(was:" not in text
    assert "- User's job title is first officer." in text


def test_the_core_layer_without_intelligence_shows_the_instructions(tmp_path) -> None:
    with kioko.connect(f"sqlite:///{tmp_path / 'plain.db'}") as layer:
        layer.add("Keep your answers short.", memory_type="instruction", session_id="s1", created_at=1_700_000_000, **U)
        layer.add(
            "Your answers can be as long as you like now, my exams are over.",
            session_id="s2",
            created_at=1_700_100_000,
            **U,
        )
        text = layer.recall("How long should your answers be?", **U).text
    assert "(was:" not in text


# --- the reading itself, on real records


def _memory(content: str, at: float, section: str, slot: str = "", **signals: float) -> RecalledMemory:
    kind = {"profile": "profile", "instructions": "instruction"}.get(section, "factual")
    metadata = {"slot": slot} if slot else {}
    record = Record(id=content, user_id="u", kind=kind, content=content, session_id=f"s{int(at)}", metadata=metadata)
    record = record.model_copy(update={"created_at": at, "updated_at": at})
    return RecalledMemory(record, 0.0, dict(signals), section)


def test_a_memory_only_the_newest_brought_needs_a_semantic_embedder_and_the_slots_shape() -> None:
    slot = _memory("User's job title is first officer.", 100.0, "profile", "job_title", profile=1.0)
    captain = _memory("User is a captain now.", 200.0, "memories", recent=1.0)
    near = lambda one, other: 0.5  # noqa: E731
    assert changed_pairs("What's my rank?", [slot, captain], near) == {captain.record.id: slot.record.id}
    assert changed_pairs("What's my rank?", [slot, captain], None) == {}  # a lexical embedder: no evidence
    assert changed_pairs("What's my rank?", [slot, captain], lambda one, other: 0.1) == {}  # not near
    diet = _memory("I started a new diet now.", 200.0, "memories", recent=1.0)
    assert changed_pairs("What's my rank?", [slot, diet], near) == {}  # no job said
    two = _memory("User is a senior captain now.", 300.0, "memories", recent=1.0)
    assert changed_pairs("What's my rank?", [slot, captain, two], near) == {}  # two newer: which one is a guess
    assert changed_pairs("What's my name?", [slot, captain], near) == {}  # not about the slot


def test_slot_questions() -> None:
    assert SLOT_ASKED["location"].search("Where do I live?")
    assert SLOT_ASKED["job_title"].search("What's my rank?")
    assert SLOT_ASKED["manager"].search("Who's my boss?")
    assert SLOT_ASKED["manager"].search("who do I report to these days")
    assert not SLOT_ASKED["name"].search("What's my dog's name?")
    assert not SLOT_ASKED["location"].search("Where does my sister live?")


def test_show_changes_takes_a_stable_line_out_and_never_a_searched_one_in() -> None:
    slot = _memory("User's location is Lyon.", 100.0, "profile", "location", profile=1.0)
    new = _memory("We're in Grenoble now.", 200.0, "memories", rrf=0.03, dense=0.4)
    recalled, stable = {new.record.id: new}, {slot.record.id: slot}
    gone = show_changes("Where do I live?", recalled, lambda q, m: {new.record.id: slot.record.id}, stable)
    assert gone == [slot.record.id] and stable == {} and list(recalled) == [new.record.id]
    assert new.was == "User's location is Lyon." and new.score == 0.0
    # a stable line is never the newer side
    recalled, stable = {new.record.id: new}, {slot.record.id: slot}
    new.was = None
    assert show_changes("Where do I live?", recalled, lambda q, m: {slot.record.id: new.record.id}, stable) == []
