"""Forgets said in shapes the readers missed (#33, dev19): an unsaying ("Hang on, ignore what I just said about my
blood", "Pretend I never told you my salary"), a thing named as an indirect question ("I don't want you knowing who
my therapist is"), a refusal asked as a favour ("Would you mind not holding on to the ADHD thing?"), a subject taken
with all that goes with it ("Forget Halden and everything that goes with it", "forget Ballymena and the people from
there", which was read as a forget of every person), and whole categories named as a whole ("All my health info,
please wipe it", "anything about my family", "everything money-related about me", "all the phone numbers I've given
you"). Each was stored, kept, or both; what the request does not name stays.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import pytest
from forget_scene_support import contents_after, holds

from kioko_core.privacy.subject_forget import _place_again
from kioko_core.store import Record
from kioko_intelligence.forget_reading import in_category
from kioko_intelligence.forget_requests import kind_named

U = {"user_id": "oona"}


@pytest.mark.parametrize(
    ("said", "asked", "gone", "kept"),
    [
        (
            ["My knee has been sore since the marathon.", "I play the cello in an orchestra."],
            "Hold on, ignore what I just said about my knee.",
            "knee",
            "cello",
        ),
        (
            ["My salary is 48k a year.", "I play the cello in an orchestra."],
            "Pretend I never told you my salary.",
            "48k",
            "cello",
        ),
        (
            ["My therapist is Dr Okafor.", "I play the cello in an orchestra."],
            "On second thoughts, I don't want you knowing who my therapist is.",
            "Okafor",
            "cello",
        ),
        (
            ["I was diagnosed with ADHD last spring.", "I play the cello in an orchestra."],
            "Would you mind not holding on to the ADHD thing?",
            "ADHD",
            "cello",
        ),
    ],
)
def test_an_item_unsaid_or_refused_goes(memory, said, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    contents = contents_after(memory, U, said, asked)
    assert not holds(contents, gone)
    assert holds(contents, kept)


def test_a_subject_with_everything_that_goes_with_it_goes(memory) -> None:  # type: ignore[no-untyped-def]
    said = [
        "I've got an interview with Halden Robotics on Thursday.",
        "Halden's office is out in Milton Keynes.",
        "I've also got the dentist on Friday afternoon.",
    ]
    contents = contents_after(memory, U, said, "Didn't get it. Forget Halden and everything that goes with it.")
    assert not holds(contents, "Halden")
    assert holds(contents, "dentist")


def test_a_place_and_the_people_from_there_is_no_forget_of_every_person(memory) -> None:  # type: ignore[no-untyped-def]
    said = [
        "I grew up in Ballymena.",
        "My two oldest friends from Ballymena are Niall and Orla.",
        "My wife is called Helen.",
    ]
    contents = contents_after(memory, U, said, "Please forget Ballymena and the people from there.")
    assert not holds(contents, "Ballymena")
    assert not holds(contents, "Orla")
    assert holds(contents, "Helen")  # a person, but not from there


@pytest.mark.parametrize(
    ("said", "asked", "gone", "kept"),
    [
        (
            ["I've got asthma.", "I'm on sertraline, 50mg in the mornings.", "I work the early shift at a bakery."],
            "All my medical stuff, please wipe it.",
            ["asthma", "sertraline"],
            "bakery",
        ),
        (
            ["My mum's called Rosalind.", "My dad Trevor is recovering from a hip replacement.", "I keep bees."],
            "Could you clear out anything about my family?",
            ["Rosalind", "Trevor"],
            "bees",
        ),
        (
            ["I've got about 14k put away in savings.", "Our mortgage is with Halifax.", "I keep bees."],
            "Forget everything money-related about me.",
            ["14k", "Halifax"],
            "bees",
        ),
        (
            ["My plumber's number is 07700 900461.", "My mechanic Gaz is on 07700 900812.", "I keep bees."],
            "Get rid of all the phone numbers I've given you.",
            ["900461", "900812"],
            "bees",
        ),
    ],
)
def test_a_category_named_as_a_whole_goes(memory, said, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    contents = contents_after(memory, U, said, asked)
    assert [g for g in gone if holds(contents, g)] == []
    assert holds(contents, kept)
    assert not holds(contents, asked.split()[0])  # the request itself is not stored


@pytest.mark.parametrize(
    ("thing", "kind"),
    [
        ("All my health info", "health"),
        ("my medical history", "health"),
        ("my family", "family"),
        ("everything money-related about me", "money"),
        ("all my finances", "money"),
        ("all the phone numbers", "phone numbers"),
        # the category's word is not the head: a thing of its own
        ("my family photos", None),
        ("the health centre address", None),
        ("the numbers", None),
        ("the money I lent Sam", None),
    ],
)
def test_a_category_is_named_only_as_a_whole(thing: str, kind: str | None) -> None:
    assert kind_named(thing) == kind


@pytest.mark.parametrize(
    ("content", "category", "member"),
    [
        ("User's plumber's number is 07700 900461.", "phone numbers", True),
        ("Call the office on +44 (0)20 7946 0018.", "phone numbers", True),
        ("Our mortgage is with Halifax, 1,100 a month.", "phone numbers", False),
        ("We sold the house in 2021.", "phone numbers", False),
        ("User has got about 14k put away in savings.", "money", True),
        ("User pays 950 quid rent.", "money", True),
        ("User keeps bees on the roof.", "money", False),
        ("User runs 10k on Sundays.", "money", False),
        ("User's neighbour Bill shares a flat with Sam.", "money", False),
        ("User is on sertraline, 50mg in the mornings.", "health", True),
        ("User runs a bakery.", "health", False),
    ],
)
def test_what_a_category_holds(content: str, category: str, member: bool) -> None:
    record = Record(id="r1", user_id="u", content=content, kind="factual", metadata={})
    assert in_category(record, category) is member


def test_a_forget_with_news_after_a_change_of_topic_keeps_the_news(memory) -> None:  # type: ignore[no-untyped-def]
    said = ["My colleague Anouk keeps taking credit for my work.", "Anouk sits next to me in the Rotterdam office."]
    request = "Anouk's left the company so you can forget about her, and by the way I've been promoted to team lead!"
    contents = contents_after(memory, U, said, request)
    assert not holds(contents, "Anouk")
    assert holds(contents, "team lead")


@pytest.mark.parametrize(
    "request_text",
    ["Forget my salary, I shouldn't have shared it.", "Forget my salary, it's nobody's business."],
)
def test_what_follows_a_forget_without_a_change_of_topic_is_part_of_it(memory, request_text) -> None:  # type: ignore[no-untyped-def]
    contents = contents_after(memory, U, ["My salary is 48k a year.", "I keep bees."], request_text)
    assert not holds(contents, "48k")
    assert not holds(contents, "shared")
    assert not holds(contents, "business")
    assert holds(contents, "bees")


def test_a_place_said_again_as_there_goes_with_its_subject(memory) -> None:  # type: ignore[no-untyped-def]
    said = [
        "At my old job at Argos I did the night stocktake.",
        "My old supervisor there was called Keith.",
        "I now work in a bike shop.",
    ]
    for text in said:
        memory.record_turn(text, "Okay.", session_id="s1", **U)
    listed = [m["content"] for m in memory.forget_about("Argos", dry_run=True, **U)["memories"]]
    assert any("Keith" in c for c in listed)
    assert not any("bike shop" in c for c in listed)


def test_the_there_of_existence_and_another_name_end_nothing_of_the_subject(memory) -> None:  # type: ignore[no-untyped-def]
    said = [
        "I've got an interview with Halden Robotics on Thursday.",
        "There is a new café opening on my street.",
        "My sister Priya lives in Leeds.",
        "The food there is amazing.",
    ]
    for text in said:
        memory.record_turn(text, "Okay.", session_id="s1", **U)
    listed = [m["content"] for m in memory.forget_about("Halden", dry_run=True, **U)["memories"]]
    assert not any("café" in c for c in listed)  # the "there" of existence
    assert not any("food" in c for c in listed)  # "there" after another name is that name's place


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("The recruiter there is a woman called Bea Lindqvist.", True),
        ("User's old supervisor there was called Keith.", True),
        ("User has been there twice.", True),
        ("There is a new café.", False),
        ("there were no seats left", False),
        ("User thinks there is a problem.", False),
        ("User lives in Leeds and there are lots of parks.", False),
    ],
)
def test_a_place_said_again(text: str, place: bool) -> None:
    assert _place_again(text) is place


def test_a_wish_that_something_stay_private_forgets_it(memory) -> None:  # type: ignore[no-untyped-def]
    said = ["I was diagnosed with ADHD last spring.", "I play the cello in an orchestra."]
    contents = contents_after(
        memory,
        U,
        said,
        "Would you mind not holding on to the ADHD thing? I'd rather that stayed between me and my doctor.",
    )
    assert not holds(contents, "ADHD")
    assert not holds(contents, "rather")  # the wish is no preference
    assert holds(contents, "cello")


def test_a_wish_about_something_else_is_read_as_usual(memory) -> None:  # type: ignore[no-untyped-def]
    contents = contents_after(memory, U, ["My salary is 48k a year."], "I'd rather the office stayed warm in winter.")
    assert holds(contents, "48k")


SAID_ADDRESS = ["My home address is 14 Elm Road.", "I play the trumpet in a brass band.", "My salary is 52k a year."]


@pytest.mark.parametrize(
    "asked",
    [
        "Maybe you could possibly forget my address, if that's alright?",  # hedged, and asked as a question
        "I should be grateful if you would kindly disregard my address.",  # "disregard": the summary kept it
        "Could you not remember where I live anymore?",  # a thing said as what the user does
        "Don't hold on to where I live.",
        "I no longer want you to have my address.",
        "Forget my address and keep the rest.",
        "Please to delete my address.",
        "I moved out, so that address can go.",
        "Nix my address.",
        "yeet my address lol",
    ],
)
def test_a_forget_in_more_voices_takes_the_item_and_is_not_stored(memory, asked: str) -> None:  # type: ignore[no-untyped-def]
    contents = contents_after(memory, U, SAID_ADDRESS, asked)
    assert not holds(contents, "Elm Road")
    assert holds(contents, "trumpet") and holds(contents, "52k")
    assert [c for c in contents if not any(w in c for w in ("Elm", "trumpet", "52k"))] == []


@pytest.mark.parametrize(
    "said",
    [
        "That meeting can go ahead on Friday.",
        "My daughter can go to the party.",
        "Perhaps you could delete the staging database.",
        "Axe the Friday stand-up.",
    ],
)
def test_what_only_looks_like_those_forgets_takes_nothing(memory, said: str) -> None:  # type: ignore[no-untyped-def]
    contents = contents_after(memory, U, SAID_ADDRESS, said)
    assert holds(contents, "Elm Road") and holds(contents, "trumpet") and holds(contents, "52k")
