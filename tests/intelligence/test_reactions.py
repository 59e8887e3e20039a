"""Reactions to the assistant store nothing (#33, :mod:`kioko_intelligence.reactions`): a short sentence made only of
thanks (in the user's language too), praise, interjections and words of address was stored as knowledge ("Sweet as,
ta.", "Spasibo, very good.", "Y'all are quick."). A sentence with one word of the user's world in it is read as
usual ("Sweet, no milk.", "Very good coffee here.", "Spot is sick.").

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn).
"""

from __future__ import annotations

import pytest

from kioko_intelligence.reactions import is_pause, is_reaction

U = {"user_id": "bea", "session_id": "s1"}
REACTIONS = [
    "Sweet as, ta.",
    "Aye, right enough.",
    "Spasibo, very good.",
    "Y'all are quick.",
    "Beauty, thanks eh.",
    "Grazie mille!",
    "Wah, so fast one.",
    "Quite so.",
    # a reaction word beside a short judgement of the reply, each its own clause
    "Cheers pal, that's pure magic.",
    "ugh, what a week",
    "Ha, diplomatic answer.",
    "Too easy, cheers.",
    "Yeah nah, no dramas.",
    "Sound, talk later.",
    "ngl that's kinda helpful",
    "Creepy but useful, ha.",
    "Ah sure look.",
    "Sorry for all the questions.",
    "Thanks for being patient.",
]


@pytest.mark.parametrize("text", REACTIONS)
def test_a_reaction_stores_nothing(memory, text: str) -> None:
    memory.record_turn("I keep bees on an allotment in Leeds.", "Okay.", **U)
    before = sorted(r.id for r in memory.memories(user_id=U["user_id"]))
    report = memory.record_turn(text, "Glad it helped.", **U)
    assert [op for op in report.ops if op.status == "applied"] == []
    assert sorted(r.id for r in memory.memories(user_id=U["user_id"])) == before


@pytest.mark.parametrize("text", REACTIONS)
def test_reactions_are_recognised(text: str) -> None:
    assert is_reaction(text)


@pytest.mark.parametrize(
    "text",
    [
        "Sweet, no milk.",
        "Very good coffee here.",
        "Spot is sick.",
        "Thanks, I moved to Leeds.",
        "Tea. Two sugars.",
        "Great, my sister is visiting.",
        "Cool, that's my brother.",
        "Thanks, Sarah's coming.",
        "Ok, tea instead.",
        "Right, no onions.",
        "Yeah, no dairy.",
        "Nice, the blue one.",
        "Thanks for booking my flight to Rome.",
        "Sorry for the delay, I was in Paris.",
    ],
)
def test_a_sentence_saying_something_of_the_user_or_the_world_is_no_reaction(text: str) -> None:
    assert not is_reaction(text)


@pytest.mark.parametrize(
    "text",
    ["Sound, thanks a million.", "Fair play to ya.", "no cap that slaps", "Danke schön, very kind.", "Ah bon, super."],
)
def test_reactions_in_more_voices_are_recognised(text: str) -> None:
    assert is_reaction(text)


@pytest.mark.parametrize("text", ["One moment, the telephone is ringing.", "Hang on, kettle's boiling.", "brb, door"])
def test_a_pause_stores_nothing(memory, text: str) -> None:
    memory.record_turn("I keep bees on an allotment in Leeds.", "Okay.", **U)
    report = memory.record_turn(text, "Sure.", **U)
    assert [op for op in report.ops if op.status == "applied"] == []
    assert is_pause(text)


@pytest.mark.parametrize(
    "text",
    [
        "Hold on, the meeting moved to Friday.",
        "Hang on, the password changed.",
        "One sec, I need to check my diary for the 14th.",
        "Hang on, my daughter is calling.",
    ],
)
def test_a_pause_that_says_something_is_read_as_usual(text: str) -> None:
    assert not is_pause(text)


@pytest.mark.parametrize(
    "text",
    [
        "Kind regards, Margaret.",
        "Yours sincerely, Margaret Hughes",
        "With best wishes.",
        "Love, Mum",
        "Sounds about right.",
    ],
)
def test_a_letters_closing_and_a_nod_store_nothing(memory, text: str) -> None:
    memory.record_turn("I keep bees on an allotment in Leeds.", "Okay.", **U)
    report = memory.record_turn(text, "Take care.", **U)
    assert [op for op in report.ops if op.status == "applied"] == []


@pytest.mark.parametrize("text", ["Love Paris.", "Sincerely, I hate mornings.", "Best wishes to Tom on his wedding."])
def test_words_of_a_closing_in_a_statement_are_read(text: str) -> None:
    assert not is_reaction(text)


def test_noted_is_not_read_as_note_and_a_remainder(memory) -> None:
    memory.record_turn("I keep bees on an allotment in Leeds.", "Okay.", **U)
    report = memory.record_turn("Noted, will action.", "Great.", **U)
    assert [op for op in report.ops if op.status == "applied"] == []


UNDERSTOOD = [
    "Makes total sense now.",
    "Ahh right, that clears it up.",
    "Interesting, never thought of it that way.",
    "Brilliant, that's cleared things up nicely.",
    "Cheers for yesterday, that made total sense.",
    "Yes boss, real nice.",
    "Wah, steady lah.",
    "Sorry ha, brb.",
    "Kindly do the needful.",
    "Appreciate the quick turnaround.",
    "Right, back to work for me.",
    "Fine by me.",
    "Much appreciated, have a good evening.",
    "Happy new year!",
    "I am most grateful.",
    "Ah I see now.",
    "Works for me.",
    "No bother at all.",
    "thanks!! ur the best",
    "Wonderful, many thanks.",
    "Vielen Dank für die Hilfe.",
    "Super, thanks a lot yaar.",
    "Right, off to bed now.",
    "I'm off now, bye.",
]


@pytest.mark.parametrize("text", UNDERSTOOD)
def test_saying_the_answer_landed_stores_nothing(memory, text: str) -> None:
    memory.record_turn("I keep bees on an allotment in Leeds.", "Okay.", **U)
    before = sorted(r.id for r in memory.memories(user_id=U["user_id"]))
    report = memory.record_turn(text, "Glad it helped.", **U)
    assert [op for op in report.ops if op.status == "applied"] == []
    assert sorted(r.id for r in memory.memories(user_id=U["user_id"])) == before


@pytest.mark.parametrize(
    "text",
    [
        "Makes sense, my sister is a nurse.",
        "Back to Paris tomorrow.",
        "Real ale only.",
        "Never eat sushi.",
        "Totally made up.",
        "Help with my tax return.",
        "I see my GP on Fridays.",
        "I'm very grateful to Tom.",
        "I understand French.",
        "Have a good weekend in Paris.",
        "Works nights.",
        "I'm off now to Paris for a week.",
        "Off to bed, my flight is at 6.",
        "The best bakery is on Mill Lane.",
        "Many of my friends live in Leeds.",
    ],
)
def test_words_of_understanding_around_a_statement_are_no_reaction(text: str) -> None:
    assert not is_reaction(text)
    assert not is_pause(text)


OF_THE_TALK = [
    # thanks for what the assistant gave, with what it was about and when
    "Thanks for the help with the cover letter yesterday.",
    "Cheers for the advice on my visa application.",
    "Ta for the heads-up about the parking earlier.",
    "Thank you so much for the tips on sourdough.",
    # a liking of how the reply just said it
    "I love how you put that.",
    "Honestly, I like the way you explained it.",
    "Ooh I really like how you've laid that out.",
    # the assistant's patience
    "Thanks for putting up with me.",
    "Cheers for listening to my rambling.",
]


@pytest.mark.parametrize("text", OF_THE_TALK)
def test_thanks_for_the_talks_help_and_a_liking_of_the_reply_store_nothing(memory, text: str) -> None:
    memory.record_turn("I keep bees on an allotment in Stockport.", "Lovely.", **U)
    report = memory.record_turn(text, "You're welcome.", **U)
    assert is_reaction(text)
    assert [f"{op.op} {op.description}" for op in report.ops if op.status == "applied"] == []


@pytest.mark.parametrize(
    "text",
    [
        "I like how you use bullet points.",  # a standing wish: no reply pointed at
        "I loved what you did with the wedding speech.",
        "Thanks for the tip, I switched to oat milk.",  # news after the thanks
        "Thanks for the help with my move to Leeds.",  # a name
        "Thanks for the 3 tips.",
    ],
)
def test_what_says_more_than_thanks_or_liking_is_no_reaction(text: str) -> None:
    assert not is_reaction(text)


def test_a_state_after_thanks_for_a_tip_stores_nothing(memory) -> None:  # type: ignore[no-untyped-def]
    report = memory.record_turn("Cheers for the stretching tip, my calves are better for it.", "Great.", **U)
    assert [f"{op.op} {op.description}" for op in report.ops if op.status == "applied"] == []
