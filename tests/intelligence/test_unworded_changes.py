"""A newer value said without a change word, shown as one change at recall (#33, kioko_intelligence.unworded_changes):
two memories a question finds, the later one near the earlier in meaning (the layer's semantic embedder) and
nothing saying they are two, so the newer is shown with "(was: ...)". Nothing is written.

Real layers on memory:// and SQLite files with the semantic embedder, driven through the agent loop.
"""

from __future__ import annotations

from functools import partial

import pytest
from sessions_support import lines_with, play_sessions, semantic_layer

import kioko
from kioko_core.recall.context_text import RecalledMemory
from kioko_core.recall.sections import is_replaced
from kioko_core.store import Record, Scope
from kioko_intelligence.change_pairs import changed_pairs
from kioko_intelligence.unworded_changes import agree, other_recurring, two_numbered

U = {"user_id": "odile"}


@pytest.fixture(params=["memory", "sqlite"])
def memory(request, tmp_path):
    with semantic_layer(request.param, tmp_path) as layer:
        yield layer


_turns = partial(play_sessions, user_id=U["user_id"])
_lines = lines_with


# --- what failed before: the old value was listed as current beside the new one, no change word said


@pytest.mark.parametrize(
    ("sessions", "question", "new", "old"),
    [
        (
            [
                ["The stock audit for the pharmacy is due at the end of the month."],
                ["Head office brought the stock audit forward to this Friday, the inspectors are coming early."],
            ],
            "When does the stock count have to be done?",
            "Friday",
            "end of the month",
        ),
        (
            [
                ["The VAT return for the bakery is due at the end of the quarter."],
                ["HMRC brought the VAT deadline forward to next Tuesday for us, some audit thing."],
            ],
            "When is the VAT return due?",
            "next Tuesday",
            "end of the quarter",
        ),
        (
            [
                ["Our book club meets at Hannah's flat."],
                ["Hannah's flat is being rewired, book club is at the library annexe for the foreseeable."],
            ],
            "Where does book club meet?",
            "library annexe",
            "meets at Hannah's flat",
        ),
        (
            [
                ["Prepping the Vantage Foods quarterly review deck for 2pm."],
                ["Vantage bumped us to Thursday, so today it's the Carraway renewal proposal."],
            ],
            "Which client am I preparing for today?",
            "Carraway",
            "quarterly review deck",
        ),
        (
            [
                ["Birth plan: water birth at the midwife-led unit, gas and air only, Dave cuts the cord."],
                ["Scan today, baby's breech and not turning. Consultant's booked a caesarean for the 3rd."],
            ],
            "How is the baby being delivered?",
            "caesarean",
            "Water birth",
        ),
        (
            [
                ["The team offsite is in Lisbon in October."],
                ["Finance vetoed Lisbon, the team offsite will be in Porto in October."],
            ],
            "Where is the team offsite?",
            "Porto",
            "The team offsite is in Lisbon",
        ),
    ],
    ids=["brought-forward", "vat-forward", "book-club", "client", "birth-plan", "vetoed"],
)
def test_a_newer_value_said_without_a_change_word_is_shown_with_the_older_as_was(
    memory, sessions, question, new, old
) -> None:
    _turns(memory, sessions)
    text = memory.recall(question, session_id="p", **U).text
    [line] = _lines(text, new)
    assert "(was:" in line and old in line.split("(was:")[1]
    assert _lines(text, old) == [line]  # the old value only inside the note
    # a display policy: nothing is superseded or marked in the store
    assert not any(is_replaced(r) for r in memory.store.scan(Scope(U["user_id"], None)))


# --- what it must leave alone


@pytest.mark.parametrize(
    ("sessions", "question", "both"),
    [
        (  # another thing of its own (storeroom and studio)
            [["The server room door code is 5512."], ["The comms cupboard next to it has its own code, 7781."]],
            "What's the server room door code?",
            ("5512", "7781"),
        ),
        (  # one noun, two numbers: two lines
            [["Hold music on line 3 is broken."], ["Line 4 has a dead handset."]],
            "What's wrong with line 3?",
            ("line 3", "Line 4"),
        ),
        (  # two parts of the year
            [["We live in Bristol during the school year."], ["Summers we're at my wife's family place in Crete."]],
            "Where do we live during the school year?",
            ("Bristol", "Crete"),
        ),
        (  # a step added to steps listed after a title
            [
                ["Closing the café at night: cash up, mop the floor, set the alarm, lock the back door."],
                ["Before the alarm, the coffee machine has to go on standby or it boils dry."],
            ],
            "What's the end-of-day shutdown for the café?",
            ("cash up", "standby"),
        ),
    ],
    ids=["its-own", "two-numbers", "two-seasons", "a-step"],
)
def test_two_things_that_look_like_one_slot_both_stay(memory, sessions, question, both) -> None:
    _turns(memory, sessions)
    text = memory.recall(question, session_id="p", **U).text
    assert "(was:" not in text
    assert all(_lines(text, value) for value in both)


def test_a_topic_named_again_before_a_forget_does_not_hide_what_the_forget_takes(memory) -> None:
    _turns(
        memory,
        [
            ["The vestry key safe is 1549.", "I practise on Tuesday and Thursday evenings after Evensong."],
            ["Regarding the vestry key safe.", "The Dean was rather cross that I had put it into a computer."],
        ],
    )
    text = memory.recall("What's the key safe number?", session_id="p", **U).text
    assert "(was:" not in text


def test_with_the_offline_embedder_nothing_is_read_without_a_change_word(tmp_path) -> None:
    with kioko.intelligent(f"sqlite:///{tmp_path / 'offline.db'}?embedder=offline") as layer:
        play_sessions(
            layer,
            [
                ["The stock audit for the pharmacy is due at the end of the month."],
                ["Head office brought the stock audit forward to this Friday, the inspectors are coming early."],
            ],
            user_id=U["user_id"],
        )
        text = layer.recall("When is the stock audit due?", session_id="p", **U).text
    assert "(was:" not in text


# --- the reading itself


def _memory(content: str, at: float, session: str, section: str = "memories", **signals: float) -> RecalledMemory:
    record = Record(id=content, user_id="u", kind="factual", content=content, session_id=session)
    record = record.model_copy(update={"created_at": at, "updated_at": at})
    return RecalledMemory(record, signals.get("rrf", 0.03), {"rrf": 0.03, **signals}, section)


def _near(cosine: float):
    return lambda one, other: cosine


def test_changed_pairs_takes_a_near_newer_value_only_with_a_semantic_cosine() -> None:
    old = _memory("The grant application is due on the 28th of February.", 100.0, "s1", dense=0.6)
    new = _memory("The funder wants the grant application by Valentine's Day.", 200.0, "s2", dense=0.55)
    question = "When is the grant application due?"
    assert changed_pairs(question, [old, new], _near(0.62)) == {new.record.id: old.record.id}
    assert changed_pairs(question, [old, new], _near(0.3)) == {}  # not near enough in meaning
    assert changed_pairs(question, [old, new]) == {}  # no semantic embedder: a change word is needed
    also = _memory("The funder also wants the budget by Valentine's Day.", 200.0, "s2", dense=0.55)
    assert changed_pairs(question, [old, also], _near(0.62)) == {}


def test_the_guards_read_two_things_and_an_agreeing_value() -> None:
    assert two_numbered("Line 4 has a dead handset.", "Hold music on line 3 is broken.")
    assert not two_numbered("Line 3 has a dead handset too.", "Hold music on line 3 is broken.")
    assert other_recurring("Summers we're in Crete.", "We live in Bristol during the school year.")
    assert not other_recurring("We're in Crete now.", "We live in Bristol during the school year.")
    assert agree("Stock: roast the bones, simmer 2 hours, strain.", "Pressure cooker from now on, 2 hours does it.")
    assert not agree("The gas certs are due by 14 October.", "The gas certs are due by 30 September.")
