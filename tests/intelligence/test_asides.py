"""Asides of the moment store nothing (#33, :mod:`kioko_intelligence.asides`): a passing mood ("Feeling a bit flat
today tbh." was an episode, "bit better now" knowledge), a name the user calls themselves in passing ("I'm hopeless,
me." was the fact "User is hopeless, them."), a greeting passed on ("He says hi lol"), a sarcastic rejoinder ("Yeah
because everyone loves the taxman."), someone else's noise ("Sorry, that was my son shouting, ignore him."), an
unreal conditional whose result has another subject ("If I ever moved abroad it'd be somewhere like Portugal.") and
a drawn-out interjection ("Ohhh, that makes sense now."). What says more than the moment is read as usual.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn).
"""

from __future__ import annotations

import pytest

from kioko_intelligence.asides import is_aside, squeeze

U = {"user_id": "ines", "session_id": "s1"}
ASIDES = [
    # passing moods
    "Feeling a bit flat today tbh.",
    "Completely knackered.",
    "bit better now",
    "Hay naku, so tired po today.",
    "Ugh, proper grumpy this morning.",
    "Sooo sleepy lol",
    "Bit under the weather today.",
    # names the user calls themselves in passing
    "I'm hopeless, me.",
    "Classic me, eh.",
    "I'm such a numpty.",
    "Silly me!",
    "Story of my life.",
    # a greeting passed on
    "He says hi lol",
    "My wife says thanks!",
    # sarcasm
    "Oh great, another Monday.",
    "Just what I needed.",
    "Yeah because everyone loves the taxman.",
    # someone else's noise
    "Sorry, that was my son shouting, ignore him.",
    "Lol that was the cat on the keyboard",
    # how the day goes, a wish for the moment, a verdict on the reply
    "Such a long day.",
    "What a week it's been.",
    "Not bad at all.",
    "Same old, same old.",
    "Living the dream, ha.",
    "I wish I could sleep in tomorrow.",
    "No that's wrong, try again.",
    # a mood the nearest-memory rule took for a change ("now")
    "I'm so bored right now.",
    # a verbless day, a set phrase of self-reproach, self-deprecation offered as an apology
    "Long day.",
    "Bit of a rough week.",
    "Me and my big mouth.",
    "Sorry, I'm useless with computers.",
    "Soz, I'm terrible at explaining things.",
    "Ha, I'm useless at this.",
    # how the weeks have gone, an apology for the user's silence
    "Been a knackering couple of weeks.",
    "Bit of a slow start today.",
    "Sorry, I've been AWOL.",
]
SAYS_MORE = [
    "I'm tired of my job at the call centre.",
    "I'm exhausted all the time since starting chemo.",
    "I'm down to 70 kilos.",
    "I'm hopeless at maths.",
    "I'm good with spicy food.",
    "Feeling great about the move to Leeds.",
    "I'm sick today.",
    "I'm allergic to peanuts.",
    "I'm better at Python than Go.",
    "Tom says he moved to Leeds.",
    "Oh great, my sister got the job.",
    "I'm such a fan of Bowie.",
    "That was my son's first goal.",
    "I wish I could speak Spanish.",
    "The day was long because the train broke down.",
    "Not bad for a first marathon, 4 hours 10.",
    "Sorry, I'm allergic to nuts.",  # an apology before a fact, not before self-deprecation
    "Big week, I start my new job Monday.",
    "It's been a long week at the hospital with Mum.",
    "Sorry, I've been in hospital.",
]


@pytest.mark.parametrize("text", ASIDES)
def test_an_aside_is_recognised(text: str) -> None:
    assert is_aside(text)


@pytest.mark.parametrize("text", SAYS_MORE)
def test_what_says_more_than_the_moment_is_no_aside(text: str) -> None:
    assert not is_aside(text)


@pytest.mark.parametrize(
    "text",
    [
        *ASIDES,
        "If I ever moved abroad it'd be somewhere like Portugal.",
        "If we ever won the lottery that would be the dream.",
        "Ohhh, that makes sense now.",
    ],
)
def test_an_aside_stores_nothing(memory, text: str) -> None:  # type: ignore[no-untyped-def]
    memory.record_turn("I run a dog grooming van around Truro.", "Okay.", **U)
    before = sorted(r.id for r in memory.memories(user_id=U["user_id"]))
    report = memory.record_turn(text, "Sure.", **U)
    assert [f"{op.op} {op.description}" for op in report.ops if op.status == "applied"] == []
    assert sorted(r.id for r in memory.memories(user_id=U["user_id"])) == before


def test_an_aside_clause_is_dropped_and_the_rest_of_the_sentence_kept(memory) -> None:  # type: ignore[no-untyped-def]
    report = memory.record_turn("Completely knackered, but I finally finished the garden shed.", "Well done.", **U)
    applied = [op.description for op in report.ops if op.status == "applied"]
    assert any("shed" in a for a in applied)
    assert not any("knackered" in a.lower() for a in applied)


@pytest.mark.parametrize(
    "text",
    [
        "I'm tired of my job at the call centre.",
        "Tom says he moved to Leeds.",
        "If I get the job, I'll move to Leeds.",
        "I'm hopeless at maths.",
    ],
)
def test_a_sentence_saying_more_is_still_stored(memory, text: str) -> None:  # type: ignore[no-untyped-def]
    report = memory.record_turn(text, "Okay.", **U)
    assert [op for op in report.ops if op.status == "applied"]


def test_squeeze_says_a_drawn_out_letter_once() -> None:
    assert squeeze("Ohhh sooo gooood") == "Oh so god"
    assert squeeze("Mississippi coffee") == "Mississippi coffee"
