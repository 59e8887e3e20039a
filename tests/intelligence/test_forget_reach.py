"""Forgets that reach further (#33): a request said in a dialect's spellings ("take the registration aff yer books"),
inside a frame ("I should be grateful if you would expunge ...", "This customer number you shall please delete"),
with an everyday verb on a thing of the user's data ("Scrap the NHS number"), with a pronoun for a thing or a person
named in an earlier turn of the session, and of one item inside a memory that says more (the rest of the memory
stays). Each has its must-not: a question about a delete, a request about the world, a pronoun whose only
antecedent is the earlier turn itself, two persons before "him".

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import json

import pytest

from kioko_core.layer.scoped import SESSIONS_AGENT
from kioko_core.store import Scope
from kioko_intelligence.forget_items import without_item
from kioko_intelligence.forget_requests import items_of, read_requests, standard

U = {"user_id": "oona"}
SAID = [
    "The boat's registration is BF 437.",
    "My NHS number is 485 777 3456.",
    "My customer number at the Stadtwerke is 88812345.",
    "Always address me as Professor Lund.",
    "Gaz borrowed my Xbox and never gave it back.",
    "I keep bees in the back garden.",
]


def _held(memory, word: str) -> list[str]:
    """Every stored record of the user holding ``word``: memories (superseded too), graph, session logs."""
    found = []
    for agent in (None, "@graph", SESSIONS_AGENT):
        for record in memory.store.scan(Scope(U["user_id"], agent)):
            if word.lower() in (record.content + json.dumps(record.metadata, default=str)).lower():
                found.append(record.content)
    return found


def _said(memory, turns: list[str], session: str) -> None:
    for text in turns:
        memory.record_turn(text, "Okay.", session_id=session, **U)
    memory.end_session(session, **U)


@pytest.mark.parametrize(
    "request_text,gone",
    [
        ("Ach, take the registration aff yer books, I dinnae want it lying aboot.", "BF 437"),
        ("Howay man, divvent keep owt aboot Gaz, he's history.", "Gaz"),
        ("Gaz and me ain't speakin' no more. Y'all can go ahead and forget everything 'bout him.", "Gaz"),
        ("This customer number you shall please delete, I do not need it stored.", "88812345"),
        ("I should be grateful if you would expunge every instruction I have given you hitherto.", "Lund"),
        ("Scrap the NHS number, would you, I don't like it floating about.", "485 777"),
    ],
)
def test_a_request_in_other_spellings_and_frames_forgets_and_stores_nothing(memory, request_text, gone) -> None:
    _said(memory, SAID, "s1")
    report = memory.record_turn(request_text, "Done.", session_id="s2", **U)
    memory.end_session("s2", **U)
    assert _held(memory, gone) == []
    assert [op.op for op in report.ops if op.status == "applied" and not op.op.startswith("memory.")] == []
    assert _held(memory, "bees")


@pytest.mark.parametrize(
    "text",
    [
        "Did you delete my NHS number?",
        "You can bin the old sofa, it's falling apart.",
        "Delete the staging database before the demo.",
        "Why do you keep my customer number?",
    ],
)
def test_a_question_or_a_request_about_the_world_forgets_nothing(memory, text) -> None:
    _said(memory, SAID, "s1")
    report = memory.record_turn(text, "Okay.", session_id="s2", **U)
    assert not [op for op in report.ops if op.op == "memory.delete" and op.status == "applied"]
    assert _held(memory, "485 777")
    assert _held(memory, "88812345")


def test_standard_spellings_are_read_only_as_whole_words() -> None:
    assert standard("take the registration aff yer books") == "take the registration off your books"
    assert standard("Mister Yerby's offer") == "Mister Yerby's offer"
    assert [r.thing for r in read_requests(["Beg yuh, tek out mi passport number from yuh memory."])] == [
        "my passport number"
    ]


def test_a_thing_named_two_turns_back_goes_with_it(memory) -> None:
    _said(memory, ["The alarm code for the shop is 7719.", "The shop opens at 8 on weekdays."], "s1")
    memory.record_turn("You know the alarm code for the shop?", "Yes.", session_id="s2", **U)
    memory.record_turn("We've had the whole system replaced by a new firm.", "Okay.", session_id="s2", **U)
    memory.record_turn("So get rid of it, please, it's useless now.", "Done.", session_id="s2", **U)
    memory.end_session("s2", **U)
    assert _held(memory, "7719") == []
    assert _held(memory, "opens at 8")
    assert _held(memory, "new firm")  # the earlier turn itself is not what "it" stood for


def test_a_person_named_two_turns_back_goes_with_everything_about_them(memory) -> None:
    _said(memory, ["Tamsin from uni is my running buddy on Sundays.", "I'm training for the Bath half."], "s1")
    for text in [
        "Tamsin's moved to Perth for good.",
        "We won't really be in touch now.",
        "Forget about her, all of it.",
    ]:
        memory.record_turn(text, "Okay.", session_id="s2", **U)
    memory.end_session("s2", **U)
    assert _held(memory, "Tamsin") == []
    assert _held(memory, "Bath half")


def test_with_two_persons_named_before_him_nobody_is_forgotten(memory) -> None:
    _said(memory, ["Jordan still has my bike.", "My friend Sam fixes bikes."], "s1")
    memory.record_turn("Jordan and Sam fell out.", "Oh dear.", session_id="s2", **U)
    memory.record_turn("Forget about him.", "Okay.", session_id="s2", **U)
    assert _held(memory, "Jordan")
    assert _held(memory, "Sam")


@pytest.mark.parametrize(
    "said,request_text,gone,kept",
    [
        (
            "I train at the leisure centre on Mondays and Thursdays, locker 214 is mine.",
            "Forget the locker number, they reassign them every month.",
            "214",
            "Thursdays",
        ),
        (
            "My sister Ana lives in Lisbon, her number is 912 345 678, and she works as a vet.",
            "Drop Ana's number from your notes, she's getting a new one.",
            "912 345",
            "Lisbon",
        ),
        (
            "Game night is at my flat, 14 Larch Road, every other Saturday.",
            "Hold on, don't keep my street address, I'll give it to the players myself.",
            "Larch Road",
            "every other Saturday",
        ),
    ],
)
def test_one_item_inside_a_memory_that_says_more_goes_and_the_rest_stays(
    memory, said, request_text, gone, kept
) -> None:
    _said(memory, [said], "s1")
    memory.record_turn(request_text, "Done.", session_id="s2", **U)
    memory.end_session("s2", **U)
    assert _held(memory, gone) == []
    assert [r.content for r in memory.memories(**U) if kept in r.content]


@pytest.mark.parametrize(
    "content,words",
    [
        ("User is pregnant, due in August.", ("pregnanc",)),  # the fragment hung on the item's clause
        ("User's locker changed, it's 412 now.", ("locker", "number")),  # only the item's own words left
        ("User's tax file number's 459 812 736, the accountant keeps losing it.", ("tax", "file", "number")),
        ("User's snap is kaya.b22.", ("snap",)),  # one clause
    ],
)
def test_a_memory_with_nothing_left_but_the_item_goes_whole(content, words) -> None:
    assert without_item(content, words) is None


def test_a_forget_said_with_actually_restates_nothing(memory) -> None:
    _said(memory, ["my snap is kaya.b22 btw"], "s1")
    report = memory.record_turn(
        "ok actually can u forget my snap, dont want it saved lol", "Done.", session_id="s2", **U
    )
    assert [op.op for op in report.ops if op.status == "applied"] == ["memory.delete"]
    assert _held(memory, "kaya.b22") == []


@pytest.mark.parametrize(
    "request_text",
    [
        "Hmm, on second thoughts, don't remember that.",
        "Actually, forget I said that.",
        "Bin that, I shouldn't have said it.",
        "That's private, strike it from the record.",
    ],
)
def test_forget_that_takes_what_the_turn_before_stored(memory, request_text) -> None:
    _said(memory, ["I keep bees in the back garden."], "s1")
    memory.record_turn("I'm seeing a therapist on Tuesdays.", "Okay.", session_id="s2", **U)
    report = memory.record_turn(request_text, "Done.", session_id="s2", **U)
    memory.end_session("s2", **U)
    assert _held(memory, "therapist") == []
    assert [op.op for op in report.ops if op.status == "applied"] == ["memory.delete"]
    assert _held(memory, "bees")


def test_oh_forget_it_is_never_mind_and_forgets_nothing(memory) -> None:
    memory.record_turn("My sister's name is Ruth.", "Okay.", session_id="s1", **U)
    memory.record_turn("Oh forget it, I'll sort the booking myself.", "Okay.", session_id="s1", **U)
    assert _held(memory, "Ruth")


BASE = [
    "My salary is 52k a year.",
    "My home address is 22 Pell Street.",
    "I play five-a-side on Thursdays.",
    "My GP is Dr Mensah.",
]


@pytest.mark.parametrize(
    "request_text,gone",
    [
        ("No need to keep my salary on file.", ["52k"]),
        ("I don't want you knowing my salary.", ["52k"]),
        ("Lose the bit about my salary.", ["52k"]),
        ("That salary figure I gave you - gone, please.", ["52k"]),
        ("Forget my address and my salary.", ["52k", "Pell Street"]),
        ("Forget my salary, my address and my GP.", ["52k", "Pell Street", "Mensah"]),
        ("About my address: delete.", ["Pell Street"]),
        ("Delete the info about where I live.", ["Pell Street"]),
        ("Forget how much I earn.", ["52k"]),
        ("Drop the five-a-side stuff, I've packed it in.", ["five-a-side"]),
    ],
)
def test_more_shapes_of_a_forget_take_every_thing_they_name(memory, request_text, gone) -> None:
    _said(memory, BASE, "s1")
    report = memory.record_turn(request_text, "Done.", session_id="s2", **U)
    memory.end_session("s2", **U)
    for value in gone:
        assert _held(memory, value) == [], value
    assert [op.op for op in report.ops if op.status == "applied" and not op.op.startswith("memory.")] == []
    assert len([r for r in memory.memories(**U) if r.kind != "summary"]) == len(BASE) - len(gone)


def test_two_persons_named_together_both_go(memory) -> None:
    said = [
        "My flatmate Rosa pays the internet bill.",
        "Rosa's boyfriend Tiago is a chef.",
        "My cousin Ben lives in Derby.",
    ]
    _said(memory, said, "s1")
    memory.record_turn("Forget Rosa and Tiago, they've moved out.", "Done.", session_id="s2", **U)
    assert _held(memory, "Rosa") == []
    assert _held(memory, "Tiago") == []
    assert _held(memory, "Derby")


def test_forget_he_exists_is_everything_about_him(memory) -> None:
    _said(memory, ["My ex Jordan still has my bike.", "I play five-a-side on Thursdays."], "s1")
    memory.record_turn("Don't bring up Jordan ever again, forget he exists.", "Okay.", session_id="s2", **U)
    assert _held(memory, "Jordan") == []
    assert _held(memory, "five-a-side")


@pytest.mark.parametrize("thing", ["salt and pepper", "Tom and Jerry cartoons", "my GP and stop asking", "my salary"])
def test_one_thing_is_not_split_into_several(thing) -> None:
    assert items_of(thing) == [thing]


def test_everyday_verbs_on_things_of_the_world_forget_nothing(memory) -> None:
    _said(memory, BASE, "s1")
    for text in ["Drop the kids at school first.", "Lose the attitude, mate.", "About the match: it's off."]:
        report = memory.record_turn(text, "Okay.", session_id="s2", **U)
        assert not [op for op in report.ops if op.op == "memory.delete" and op.status == "applied"], text
    assert len([r for r in memory.memories(**U) if r.kind != "summary"]) >= len(BASE)


def test_gone_said_of_a_thing_of_the_world_forgets_nothing(memory) -> None:
    _said(memory, ["My old cat Misty sleeps on the boiler."], "s1")
    memory.record_turn("Misty? Gone, sadly.", "I'm sorry.", session_id="s2", **U)
    assert _held(memory, "Misty")
