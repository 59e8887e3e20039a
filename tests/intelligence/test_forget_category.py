"""Forgetting a category of the user's memories (#33): a kind narrowed to a topic ("all my food preferences"),
the deadlines, the people (or family, friends, colleagues). Every memory of the category goes, the others
stay, and a category holding nothing is a skipped op, never read as an item to forget.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import pytest

import kioko
from kioko_core.store import Record
from kioko_intelligence.forget_reading import FORGET_CATEGORY, in_category

U = {"user_id": "ines"}


@pytest.fixture(params=["memory", "sqlite"])
def memory(request, tmp_path):
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'category.db'}"
    with kioko.intelligent(url) as layer:
        yield layer


def _turns(memory, turns: list[str], session: str = "s1") -> None:
    for text in turns:
        memory.record_turn(text, "Okay.", session_id=session, **U)
    memory.end_session(session, **U)


def _holding(memory, word: str) -> list[str]:
    return [r.content for r in memory.memories(**U) if word.lower() in r.content.lower()]


@pytest.mark.parametrize(
    "request_text,gone,kept",
    [
        ("Forget all my food preferences.", ["medium rare", "oat milk"], ["aisle seat", "Kwame"]),
        ("Please delete my preferences about travel.", ["aisle seat"], ["medium rare", "oat milk", "Kwame"]),
        ("Forget all the people I've told you about.", ["Kwame", "Bill"], ["medium rare", "Siemens"]),
        ("Clear all the deadlines you have for me, the project's cancelled.", ["9th"], ["Kwame", "oat milk"]),
        ("Wipe my family from your memory.", ["Kwame"], ["Bill", "medium rare"]),
    ],
)
def test_a_forget_of_a_category_takes_every_memory_in_it_and_nothing_else(
    memory, request_text: str, gone: list[str], kept: list[str]
) -> None:
    _turns(
        memory,
        [
            "I like my steak medium rare.",
            "I prefer oat milk in coffee.",
            "I prefer an aisle seat when flying.",
            "My brother Kwame lives in Accra.",
            "My neighbour Bill feeds the cat.",
            "The design review is due on the 9th.",
            "I work at Siemens as a welder.",
        ],
    )
    report = memory.record_turn(request_text, "Done.", session_id="s2", **U)
    assert report.ops
    assert {o.op for o in report.ops if o.status == "applied"} == {"memory.delete"}
    for word in gone:
        assert _holding(memory, word) == [], word
    for word in kept:
        assert _holding(memory, word), word


def test_a_category_holding_nothing_is_a_skipped_op_and_deletes_nothing(memory) -> None:
    _turns(memory, ["I work at Siemens as a welder."])
    before = len(list(memory.memories(**U)))
    report = memory.record_turn("Forget all my food preferences.", "Done.", session_id="s2", **U)
    assert [o.status for o in report.ops] == ["skipped"]
    assert len(list(memory.memories(**U))) == before


def _record(text: str, kind: str = "factual", **metadata: str) -> Record:
    return Record(id="r", user_id="ines", kind=kind, content=text, metadata=metadata)


def test_what_a_category_holds() -> None:
    assert FORGET_CATEGORY.match("forget all my food preferences").group("qualifier") == "food"
    assert FORGET_CATEGORY.match("delete my preferences about travel").group("after") == "travel"
    assert FORGET_CATEGORY.match("forget all about Tom") is None
    assert in_category(_record("User likes their steak medium rare.", "preference"), "preferences", "food")
    assert not in_category(_record("User prefers aisle seats.", "preference"), "preferences", "food")
    assert in_category(_record("User prefers Python for scripts.", "preference"), "preferences", "python")
    assert in_category(_record("Submit the grant form by Friday."), "deadlines")
    assert in_category(_record("Goal: Run a marathon.", "goal", due="2027-04-01"), "deadlines")
    assert not in_category(_record("The office closes at six."), "deadlines")
    assert in_category(_record("User's aunt Rosa lives in Seville."), "people")
    assert in_category(_record("My colleague Priya runs the audits."), "colleagues")
    assert not in_category(_record("User's aunt Rosa lives in Seville."), "colleagues")
    assert not in_category(_record("User lives in Seville."), "people")


@pytest.mark.parametrize(
    "said,request_text,gone,kept",
    [
        # the request ends the sentence, after its reason
        (
            ["I'm seeing a guy called Marcus.", "Marcus is a chef in Leith."],
            "We broke up, please forget Marcus.",
            ["Marcus", "chef"],
            [],
        ),
        # an erase verb before "what I said about X"
        (
            ["My colleague Sven keeps stealing my lunch.", "I cycle to work."],
            "Erase what I said about Sven.",
            ["Sven"],
            ["cycle"],
        ),
        # "everything related to X" is a subject
        (
            ["Our startup is codenamed Bluefin.", "Bluefin raises its seed round in June.", "I live in Hove."],
            "Forget everything related to Bluefin.",
            ["Bluefin", "seed round"],
            ["Hove"],
        ),
        # "forget him": the one name the sentence says
        (
            ["My ex, Jordan, still has my bike.", "I live in Hove."],
            "Jordan's out of my life, forget him.",
            ["Jordan"],
            ["Hove"],
        ),
        # "news" and "stored" only frame what to forget
        (
            ["I'm pregnant, due in August.", "I live in Hove."],
            "Actually please don't keep the pregnancy news stored.",
            ["pregnant"],
            ["Hove"],
        ),
    ],
)
def test_a_forget_said_in_other_words_forgets_and_is_never_stored(
    memory, said: list[str], request_text: str, gone: list[str], kept: list[str]
) -> None:
    _turns(memory, said)
    report = memory.record_turn(request_text, "Done.", session_id="s2", **U)
    assert {o.op for o in report.ops} == {"memory.delete"}
    for word in gone:
        assert _holding(memory, word) == [], word
    for word in kept:
        assert _holding(memory, word), word


def test_forget_him_with_two_names_in_the_sentence_forgets_nobody(memory) -> None:
    _turns(memory, ["My ex, Jordan, still has my bike.", "My friend Sam fixes bikes."])
    memory.record_turn("Jordan and Sam fell out, forget him.", "Done.", session_id="s2", **U)
    assert _holding(memory, "Jordan")
    assert _holding(memory, "Sam")


def test_a_forget_of_an_item_takes_the_values_it_replaced(memory) -> None:
    _turns(memory, ["My gym locker is 318.", "I swim on Tuesdays."])
    _turns(memory, ["My locker changed, it's 412 now."], session="s2")
    report = memory.record_turn("Forget my locker number.", "Done.", session_id="s3", **U)
    assert {o.op for o in report.ops} == {"memory.delete"}
    assert _holding(memory, "412") == []
    assert _holding(memory, "318") == []  # the superseded value, kept in the history, goes too
    assert _holding(memory, "Tuesdays")


HEALTH_TURNS = [
    "I have type 2 diabetes.",
    "I take metformin twice a day.",
    "I'm allergic to penicillin.",
    "I'm a keen birdwatcher.",
    "My GP is in Headingley.",
]


@pytest.mark.parametrize(
    "request_text",
    [
        "Clear out all my health info, I'd rather keep that between me and my GP.",
        "Please delete my medical details.",
        "Scrap all the health stuff I told you.",
    ],
)
def test_a_forget_of_the_users_health_takes_conditions_allergies_and_treatments(memory, request_text: str) -> None:
    _turns(memory, HEALTH_TURNS)
    _turns(memory, [request_text], session="s2")
    for word in ("diabetes", "metformin", "penicillin"):
        assert _holding(memory, word) == [], word
    assert _holding(memory, "birdwatcher")


def test_a_forget_of_a_kind_said_with_an_everyday_verb_of_binning(memory) -> None:
    _turns(memory, ["Always answer me in Spanish.", "Keep your answers under three sentences.", "I teach year 3."])
    _turns(memory, ["Scrap all the rules I set for how you answer, go back to normal."], session="s2")
    assert _holding(memory, "Spanish") == [] and _holding(memory, "three sentences") == []
    assert _holding(memory, "year 3")


def test_what_counts_as_a_health_fact() -> None:
    from kioko_intelligence.forget_reading import is_health_fact

    assert is_health_fact("User takes metformin twice a day.")
    assert is_health_fact("User has asthma.")
    assert is_health_fact("User is allergic to penicillin.")
    assert not is_health_fact("User is a keen birdwatcher.")
    assert not is_health_fact("User takes the bus to work.")


@pytest.mark.parametrize(
    "fact,request_text,value",
    [
        ("My National Insurance number is QQ 12 34 56 C.", "Please remove my National Insurance number.", "QQ 12"),
        ("My insurance number is AB-7731.", "Remove my insurance number, I shouldn't have shared it.", "AB-7731"),
    ],
)
def test_a_request_verb_on_the_users_data_is_a_forget_when_a_memory_holds_it(
    memory, fact: str, request_text: str, value: str
) -> None:
    _turns(memory, [fact, "I work for the council in Dundee."])
    _turns(memory, [request_text], session="s2")
    assert _holding(memory, value) == []
    assert _holding(memory, "Dundee")


def test_a_request_verb_on_data_no_memory_holds_deletes_nothing(memory) -> None:
    _turns(memory, ["I work for the council in Dundee.", "My gym locker is 118."])
    _turns(memory, ["Remove my email address from the mailing list."], session="s2")
    assert _holding(memory, "Dundee") and _holding(memory, "118")
