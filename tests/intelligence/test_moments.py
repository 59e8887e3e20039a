"""Passing states of the moment store nothing (#33, :mod:`kioko_intelligence.moments`): how something is right now
("My coffee's gone cold again." was a fact, "The M62 is gridlocked this morning." an episode, "Stood at the bus stop
waiting for my son." knowledge). What lasts, said in the same shape, is read as usual: a span ("My knee's been bad
since the op"), a state other than a mood ("I'm single again"), someone else ("Mum's in hospital again"), a plan, a
date, a lasting number.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn).
"""

from __future__ import annotations

import pytest

from kioko_intelligence.language import gate
from kioko_intelligence.moments import is_passing_state

U = {"user_id": "wren", "session_id": "s1"}

PASSING = [
    # a thing of the user's, dated to now by "again", a time of the day, a cause just past, a hurry or a pause
    "My coffee's gone cold again.",
    "The kettle's just boiled, hang on.",
    "My laptop's on 5%, so quick one.",
    "My head is mush after that staff meeting.",
    "The wifi's being slow again.",
    # the world around the user, this morning, and the weather
    "The M62 is gridlocked this morning.",
    "It's bucketing down out there.",
    # the user's mood with its effect or its time, or with what has not happened since a moment of today
    "I'm shattered, been up since five.",
    "Really hungry, haven't had a bite since breakfast.",
    "Too tired, I can hardly keep my eyes open.",
    "I'm utterly done with today.",
    # the user's posture, said without a subject
    "Stood at the bus stop waiting for my son.",
    "Queuing at the post office, bear with me.",
    # how the day goes beside a state of the body
    "Rough shift, my back is killing me.",
    # the body today, the user's time right now, waiting minutes, a state dated by what the user was doing
    "Honestly my eyes are sore tonight.",
    "I've got ten minutes before my next patient.",
    "Been on hold with the council for 25 minutes.",
    "Ugh, my soup's gone cold while I was on the phone.",
    # a place passed, the weather of "in here", two states joined by "and", a feeling compared with earlier
    "The bus is stuck outside Rochdale again.",
    "The radiator's off and it's freezing in here.",
    "Feeling a bit better than this morning.",
    # a thing judged for today, a hurry, a sound of exasperation, last night's sleep, a mood's effect today
    "Yo my laptop is at 4%, gotta be quick.",
    "My signal is so patchy today.",
    "My coffee's gone lukewarm, ugh.",
    "I'm so sleepy, barely slept last night.",
    "Honestly I can't focus today.",
    # a mishap beside the name the user calls themselves for it
    "I'm such a wally, forgot my lanyard again.",
    "Typical me, missed the bus again.",
    # marks of the moment only: a greeting, an apology for silence, how the week went, thanks to the assistant
    "Evening, been a hectic week.",
    "Sorry I've been quiet, mad couple of weeks.",
    "Cheers for last time, legend.",
]
LASTING = [
    "My knee's been bad since the op.",  # a span
    "I'm vegetarian.",  # no state of now
    "My car's in the garage till Friday.",  # a span: working memory
    "My back's been killing me for weeks.",
    "I'm single again.",  # the user's state, not a mood
    "I'm vegan now.",
    "Mum's in hospital again.",  # someone else
    "My daughter is off school today with a cold.",
    "Sarah is off sick today.",
    "I'm rubbish at maths.",  # a mood word with more after it
    "I'm tired of my job at Tesco.",
    "It's my birthday today!",  # an occasion
    "Our new kitchen is finally finished this morning.",  # a change said done
    "My laptop is a 2019 MacBook Pro.",  # a lasting number
    "My blood pressure is 150 over 95 this morning.",
    "Sitting my driving test on Friday.",  # a date
    "Stuck on chapter three of the thesis.",  # a task, not a posture
    "My task right now is to clean up the old S3 buckets.",  # a plan
    "The boiler's broken again and the plumber comes Tuesday.",
    "I left my keys at the gym again.",  # an event, not a state (not handled: a mishap of the moment)
    "My back is being scanned today.",  # an appointment
    "I've got two weeks before my next exam.",  # weeks, not minutes
    "Been waiting for my visa for 3 months.",
    "Feeling much better since the surgery.",
    "My husband's stuck outside Leeds again.",  # someone else
    "My car's in the garage and it's costing a fortune.",
    "Oh and the trams are great.",  # a bare interjection dates nothing
    "The clinic is shut today.",  # a fact of the day, not a judgement of it
    "I'm an idiot, I left my job.",  # a mishap that lasts
    "Silly me, forgot my mum's birthday.",  # someone else
    "I'm hopeless, I forgot my passport and missed the flight to Rome.",
    "Sorry, been a hectic week, we moved house.",  # news beside the marks
    "Morning, I'm in Leeds this week.",
]


@pytest.mark.parametrize("text", PASSING)
def test_a_passing_state_is_recognised_and_gated(text: str) -> None:
    assert is_passing_state(text)
    assert gate(text) == "small talk"


@pytest.mark.parametrize("text", LASTING)
def test_what_lasts_is_no_passing_state(text: str) -> None:
    assert not is_passing_state(text)


@pytest.mark.parametrize("text", PASSING)
def test_a_passing_state_stores_nothing(memory, text: str) -> None:  # type: ignore[no-untyped-def]
    memory.record_turn("I run a mobile bike repair van in Sheffield.", "Okay.", **U)
    before = sorted(r.id for r in memory.memories(user_id=U["user_id"]))
    report = memory.record_turn(text, "Sure.", **U)
    assert [f"{op.op} {op.description}" for op in report.ops if op.status == "applied"] == []
    assert sorted(r.id for r in memory.memories(user_id=U["user_id"])) == before


@pytest.mark.parametrize(
    "text",
    [
        "My knee's been bad since the op.",
        "I'm vegetarian.",
        "My car's in the garage till Friday.",
        "I'm single again.",
        "Mum's in hospital again.",
    ],
)
def test_what_lasts_is_still_stored(memory, text: str) -> None:  # type: ignore[no-untyped-def]
    report = memory.record_turn(text, "Okay.", **U)
    assert [op for op in report.ops if op.status == "applied"]


def test_a_passing_clause_is_dropped_and_the_rest_of_the_sentence_kept(memory) -> None:  # type: ignore[no-untyped-def]
    report = memory.record_turn("I drive a cab round Leeds, my back is killing me this morning.", "Ouch.", **U)
    applied = [op.description for op in report.ops if op.status == "applied"]
    assert any("cab" in a for a in applied)
    assert not any("killing" in a for a in applied)
