"""A change the router did not join, shown as one at recall (#33, kioko_intelligence.change_pairs): two memories a
question finds both answer it, the newer said later and says a change, so the newer is shown with "(was: ...)" and
the older leaves that context. Nothing is written: both stay in force in the store.

Real layers on memory:// and SQLite files, driven through the agent loop (recall, record_turn, end_session).
"""

from __future__ import annotations

from functools import partial

import pytest
from sessions_support import play_sessions

import kioko
from kioko_core.recall.context_text import RecalledMemory
from kioko_core.recall.sections import is_replaced
from kioko_core.recall.shown_changes import show_changes
from kioko_core.store import Record, Scope
from kioko_intelligence.change_pairs import ABOUT_BEFORE, change_answers, changed_pairs, says_change

U = {"user_id": "ines"}


@pytest.fixture(params=["memory", "sqlite"])
def memory(request, tmp_path):
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'changes.db'}"
    with kioko.intelligent(url) as layer:
        yield layer


_turns = partial(play_sessions, user_id=U["user_id"])


def _lines(text: str, word: str) -> list[str]:
    return [line for line in text.splitlines() if word in line]


# --- what failed before: the old value was listed as current beside the new one


def test_a_newer_count_said_with_now_is_shown_with_the_older_as_was(memory) -> None:
    _turns(memory, [["The company has about 40 employees."], ["we're 65 people now."]])
    text = memory.recall("How many people work at the company?", session_id="p", **U).text
    [line] = _lines(text, "65")
    assert "(was: The company has about 40 employees)" in line
    assert _lines(text, "40") == [line]  # the old value only inside the note
    assert text.index("65") < text.index("40")
    # a display policy: nothing is superseded or marked in the store
    stored = [r for r in memory.store.scan(Scope(U["user_id"], None)) if "40" in r.content or "65" in r.content]
    assert sorted(r.content.lower() for r in stored) == ["the company has about 40 employees.", "we're 65 people now."]
    assert not any(is_replaced(r) for r in stored)


def test_a_newer_habit_said_with_took_over_replaces_the_older_in_the_context(memory) -> None:
    _turns(
        memory,
        [
            ["lofi beats on the lab speaker while the gels run, non negotiable"],
            ["wojtek took over the lab speaker w his polish hip hop and ngl i'm hooked, it's all i play now"],
        ],
    )
    text = memory.recall("what do I listen to in the lab?", session_id="p", **U).text
    [line] = _lines(text, "Wojtek")
    assert "(was: Lofi beats" in line
    assert _lines(text, "Lofi") == [line]  # nor through a link line


# --- what it must leave alone


def test_an_added_second_thing_is_not_a_change(memory) -> None:
    # stored as the two memories they are (the router's own reading of the turn aside): recall's rule alone
    memory.add("User coaches the under-11s on Saturdays.", session_id="s1", **U)
    memory.add("User coaches the under-14s now as well, on Sunday mornings.", session_id="s2", **U)
    for question in ("When do I coach the under-11s?", "Which teams do I coach?"):
        text = memory.recall(question, session_id="p", **U).text
        assert "(was:" not in text
        assert _lines(text, "under-11s") and _lines(text, "under-14s")


def test_a_question_about_before_shows_both(memory) -> None:
    _turns(memory, [["The company has about 40 employees."], ["we're 65 people now."]])
    text = memory.recall("How many people did the company have before?", session_id="p", **U).text
    assert "(was:" not in text
    assert _lines(text, "40") and _lines(text, "65")


def test_one_turns_two_clauses_change_nothing_of_each_other(memory) -> None:
    _turns(memory, [["My work phone is an iPhone and my work email is sam@oldco.com."]])
    memory.record_turn("New job means a new work email, sam@newco.io, and they gave me a Pixel.", session_id="s2", **U)
    text = memory.recall("What work phone do I have?", session_id="p", **U).text
    assert "(was: They gave me a Pixel" not in text


def test_a_newer_memory_whose_change_is_in_another_clause_is_not_paired(memory) -> None:
    _turns(
        memory,
        [["I've got a border collie called Nell."], ["Moved base to Exeter this month, and Nell's had three pups."]],
    )
    text = memory.recall("What's the news with Nell?", session_id="p", **U).text
    assert "(was:" not in text
    assert "border collie" in text


def test_the_core_layer_without_intelligence_shows_every_memory(tmp_path) -> None:
    with kioko.connect(f"sqlite:///{tmp_path / 'plain.db'}") as layer:
        layer.add("The company has about 40 employees.", session_id="s1", created_at=1_700_000_000, **U)
        layer.add("we're 65 people now.", session_id="s2", created_at=1_700_100_000, **U)
        text = layer.recall("How many people work at the company?", **U).text
    assert "(was:" not in text
    assert _lines(text, "40") and _lines(text, "65")


# --- the reading itself, on real records


def _memory(content: str, at: float, session: str, **signals: float) -> RecalledMemory:
    record = Record(id=content, user_id="u", kind="factual", content=content, session_id=session)
    record = record.model_copy(update={"created_at": at, "updated_at": at})
    return RecalledMemory(record, signals.get("rrf", 0.03), {"rrf": 0.03, **signals}, "memories")


def test_changed_pairs_reads_the_question_as_the_slots_evidence() -> None:
    old = _memory("User usually gets up at 6.", 100.0, "s1", dense=0.39)
    new = _memory("User gets up at 7:30 now that they work from home.", 200.0, "s2", dense=0.53)
    assert changed_pairs("What time do I get up?", [old, new]) == {new.record.id: old.record.id}
    # not comparable: the newer is found far more weakly
    weak = _memory("User is studying Japanese listening now.", 200.0, "s2", lexical=1.0)
    strong = _memory("The API listens on port 201.", 100.0, "s1", lexical=6.0)
    assert changed_pairs("Which port does the API listen on?", [strong, weak]) == {}
    # only through a link, or as the newest memories: not found for the question
    linked = RecalledMemory(new.record, 0.01, {"linked": 0.5}, "memories")
    assert changed_pairs("What time do I get up?", [old, linked]) == {}
    # the newer said in the same session a moment later: the same turn's clauses
    same = _memory("User gets up at 7:30 now.", 100.5, "s1", dense=0.5)
    assert changed_pairs("What time do I get up?", [old, same]) == {}
    # two older candidates: which one changed is a guess
    other = _memory("User gets up at 5 on Sundays.", 150.0, "s1", dense=0.45)
    assert changed_pairs("What time do I get up?", [old, other, new]) == {}


def test_the_cue_lexicons() -> None:
    assert says_change("we're 65 people now.")
    assert says_change("Started sixth form at Hillcrest College this sept.")
    assert says_change("New owner is a company, from this month we pay rent to them.")
    assert says_change("The varroa routine is MAQS pads in late summer, one week and done this year.")
    assert not says_change("User also coaches the under-14s now.")
    assert not says_change("Quit keto, now just eating normally, but still plenty of coffee.")
    assert not says_change("User's boat is a sloop called Kittiwake.")
    assert ABOUT_BEFORE.search("Where did I live before?")
    assert ABOUT_BEFORE.search("What did I use to drink?")
    assert not ABOUT_BEFORE.search("Where do I live?")
    asked = {"t:nell", "t:news"}
    assert not change_answers("Moved base to Exeter this month, and Nell's had three pups.", asked)
    assert change_answers("Nell moved to the farm this month, and the pups are sold.", asked)


def test_show_changes_moves_the_older_into_the_newer_note_and_keeps_one_note_a_memory() -> None:
    old = _memory("Our car is a Golf.", 100.0, "s1", lexical=2.0, rrf=0.04)
    new = _memory("Our car is a Tesla now.", 200.0, "s2", lexical=2.0, rrf=0.02)
    recalled = {old.record.id: old, new.record.id: new}
    gone = show_changes("What car do we have?", recalled, lambda q, m: {new.record.id: old.record.id})
    assert gone == [old.record.id]
    assert list(recalled) == [new.record.id]
    assert new.was == "Our car is a Golf."
    assert new.score == 0.04  # shown at least as high as the older ranked
    assert show_changes("What car do we have?", dict(recalled), None) == []
