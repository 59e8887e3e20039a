"""Which op of a turn replaces the older memory, and when a newer statement adds rather than replaces: the op whose
own sentence names the old value claims it, "gone off X" names X, "my other brother" is a second brother, a
"Update: ..." label opens a statement, and "my home is in X" says where the user lives now. Real memory:// and
SQLite stores, no mocks."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.language import gate_reason
from kioko_intelligence.profile_changes import stated
from kioko_intelligence.slot_reading import old_values
from kioko_intelligence.slot_subjects import another_one


def _current(memory: kioko.MemoryLayer, user: str = "u") -> list[str]:
    return [r.content for r in memory.memories(user_id=user) if not r.metadata.get("superseded_by")]


def test_gone_off_names_the_old_value() -> None:
    assert old_values("I've gone off Earl Grey completely, it's lapsang souchong for me these days.") == ["Earl Grey"]
    assert old_values("Went right off lager this summer.") == ["lager"]
    assert old_values("The milk has gone off.") == []  # nothing named after "off"


def test_the_op_naming_the_old_value_replaces_it_not_a_filler_clause(memory: kioko.MemoryLayer) -> None:
    memory.record_turn(
        "Sorry to be a pain, but I really only drink Earl Grey, sorry!", "Ok.", user_id="u", session_id="a"
    )
    memory.record_turn(
        "Oh gosh, sorry, me again. I've gone off Earl Grey completely, it's lapsang souchong for me these days.",
        "Ok.",
        user_id="u",
        session_id="b",
    )
    replacing = [r for r in memory.memories(user_id="u") if r.metadata.get("supersedes")]
    assert len(replacing) == 1
    assert "lapsang souchong" in replacing[0].content
    context = memory.recall("What tea do I like?", user_id="u").text
    assert "lapsang souchong" in context
    assert "drinks Earl Grey" not in context


@pytest.mark.parametrize(
    ("new", "old", "another"),
    [
        ("User's other brother Kwame is at KPMG.", "User's brother Kofi works at Deloitte in Accra.", True),
        ("Our other cat, Tofu, is 7.", "Our cat Miso is 3 years old.", True),
        ("Another friend of mine, Sam, lives in Oslo.", "A friend of mine, Jo, lives in Bergen.", True),
        ("User's brother Kofi works at PwC now.", "User's brother Kofi works at Deloitte in Accra.", False),
        ("Our other cat is 8 now.", "Our other cat, Tofu, is 7.", False),  # the same other cat
        ("My sister works at Bosch.", "My brother works at Siemens.", False),  # two heads: another rule's
    ],
)
def test_another_one_of_a_kind(new: str, old: str, another: bool) -> None:
    assert another_one(new, old) is another


def test_another_brother_with_a_change_word_elsewhere_keeps_both(memory: kioko.MemoryLayer) -> None:
    memory.record_turn("My brother Kofi works at Deloitte in Accra.", "Ok.", user_id="u", session_id="a")
    memory.record_turn("My other brother Kwame is at KPMG, he just got promoted.", "Ok.", user_id="u", session_id="b")
    current = " ".join(_current(memory))
    assert "Deloitte" in current
    assert "KPMG" in current
    context = memory.recall("Where do my brothers work?", user_id="u").text
    assert "Deloitte" in context
    assert "KPMG" in context


def test_one_brother_changing_jobs_still_supersedes(memory: kioko.MemoryLayer) -> None:
    memory.record_turn("My brother Kofi works at Deloitte.", "Ok.", user_id="u", session_id="a")
    memory.record_turn("My brother Kofi works at PwC now.", "Ok.", user_id="u", session_id="b")
    assert not any("Deloitte" in c for c in _current(memory))


@pytest.mark.parametrize(
    "turn",
    [
        "Update, we moved to Ramat Gan.",
        "Update: we moved to Ramat Gan.",
        "Check \u2014 the boiler is fixed, we have heating.",
    ],
)
def test_a_label_before_a_statement_is_no_request(turn: str) -> None:
    assert gate_reason(turn) is None


@pytest.mark.parametrize("turn", ["Update the README with the new port.", "Check the logs for errors."])
def test_an_order_is_still_a_request(turn: str) -> None:
    assert gate_reason(turn) == "a request to the assistant"


@pytest.mark.parametrize(
    ("old", "new", "place"),
    [
        (
            "We are living in Florentin, in south Tel Aviv.",
            "Update, we moved to Ramat Gan, more quiet for the baby.",
            "Ramat Gan",
        ),
        (
            "I live in Tampere, small flat near the lake.",
            "Since October my home is in Oulu, the company moved there.",
            "Oulu",
        ),
        (
            "I am living in Gdansk with my parents.",
            "Finally I have my own flat in Wroclaw, since two weeks.",
            "Wroclaw",
        ),
        # being in a place, dated as a change ("since autumn", "now"), in other voices
        (
            "I live in Lviv and I work as translator at an agency, mostly legal texts.",
            "Since autumn I am in Kraków, and I am freelance now, no more agency.",
            "Kraków",
        ),
    ],
)
def test_where_the_user_lives_now_replaces_where_they_lived(
    memory: kioko.MemoryLayer, old: str, new: str, place: str
) -> None:
    memory.record_turn(old, "Ok.", user_id="u", session_id="a")
    memory.record_turn(new, "Ok.", user_id="u", session_id="b")
    stale = old.split(" in ")[1].split(",")[0].split(" with")[0].strip(" .")
    assert not any(stale in c for c in _current(memory))
    context = memory.recall("Where do I live?", user_id="u").text
    assert place in context
    assert stale not in context


@pytest.mark.parametrize(
    "new",
    [
        "I'm in London now for the conference, back Friday.",  # a trip, not a home
        "I am in a meeting now, can't talk.",  # no place
        "Since autumn my brother is in Kraków.",  # someone else
    ],
)
def test_being_somewhere_for_a_while_changes_no_home(memory: kioko.MemoryLayer, new: str) -> None:
    memory.record_turn("I live in Leeds.", "Ok.", user_id="u", session_id="a")
    memory.record_turn(new, "Ok.", user_id="u", session_id="b")
    assert any("Leeds" in c for c in _current(memory))


def test_a_home_somewhere_else_of_someone_else_changes_nothing(memory: kioko.MemoryLayer) -> None:
    memory.record_turn("I live in Leeds.", "Ok.", user_id="u", session_id="a")
    memory.record_turn("My sister finally has her own flat in York.", "Ok.", user_id="u", session_id="b")
    assert any("Leeds" in c for c in _current(memory))


@pytest.mark.parametrize(
    ("old", "new", "place"),
    [
        (
            "I live in Anfield with me mam, two doors from the ground like.",
            "Got meself a flat over the water in Birkenhead, our kid helped me shift the last of me stuff.",
            "Birkenhead",
        ),
        (
            "We live in Bath, just off the Royal Crescent.",
            "We bought a house in Frome in the end, town was silly.",
            "Frome",
        ),
        (
            "I'm living in Glasgow with my aunt while I study.",
            "Found a place in a shared house in Leith, moved in Saturday.",
            "Leith",
        ),
        (
            "I live in Croydon, been here all my life.",
            "Renting a little place in Hove now, five minutes from the sea.",
            "Hove",
        ),
    ],
)
def test_a_home_of_the_users_own_taken_somewhere_says_where_they_live(
    memory: kioko.MemoryLayer, old: str, new: str, place: str
) -> None:
    """Before, "got meself a flat ... in Birkenhead" named no relation the slot rules read: Anfield stayed current."""
    memory.record_turn(old, "Ok.", user_id="u", session_id="a")
    memory.record_turn(new, "Ok.", user_id="u", session_id="b")
    stale = old.split(" in ")[1].split(",")[0].split(" with")[0].strip(" .")
    context = memory.recall("Where do I live?", user_id="u").text
    assert place in context
    assert not any(stale in line and "(was:" not in line for line in context.splitlines())


@pytest.mark.parametrize(
    "new",
    [
        "Got a flat tyre in Harrogate on the way back, nightmare.",  # a flat that is no home
        "We found a place for the wedding in Whitby, a lovely barn.",
        "We bought a holiday home in Spain, a tiny place.",  # a second home beside the first
        "My sister bought a house in York last year.",  # someone else's
        "We looked at a house in Harrogate, not for us.",  # no home taken
    ],
)
def test_a_home_not_taken_by_the_user_changes_nothing(memory: kioko.MemoryLayer, new: str) -> None:
    memory.record_turn("I live in Leeds near the station.", "Ok.", user_id="u", session_id="a")
    memory.record_turn(new, "Ok.", user_id="u", session_id="b")
    assert any("lives in Leeds" in c for c in _current(memory))


def test_a_name_gone_by_since_a_wedding_replaces_the_name(memory: kioko.MemoryLayer) -> None:
    memory.record_turn(
        "Good evening, I'm Chidinma Eze, I run a small bakery in Ikeja.", "Ok.", user_id="u", session_id="a"
    )
    memory.record_turn("Quick one: since the wedding I go by Chidinma Okafor.", "Ok.", user_id="u", session_id="b")
    name = memory.profile.record("name", user_id="u")
    assert name is not None
    assert name.metadata.get("value") == "Chidinma Okafor"
    context = memory.recall("What's my full name?", user_id="u").text
    assert "Chidinma Okafor" in context
    assert "Chidinma Eze" not in context


def test_a_name_sharing_no_word_with_the_users_is_no_rename(memory: kioko.MemoryLayer) -> None:
    memory.record_turn("I'm Chidinma Eze, I run a small bakery in Ikeja.", "Ok.", user_id="u", session_id="a")
    memory.record_turn("My best friend goes by Tolu Bakare.", "Ok.", user_id="u", session_id="b")
    name = memory.profile.record("name", user_id="u")
    assert name is not None
    assert name.metadata.get("value") == "Chidinma Eze"


def test_a_full_name_said_again_renames_a_memory_saying_who_the_user_is(memory: kioko.MemoryLayer) -> None:
    memory.record_turn("I'm Hannah Clarke, mum of the twins.", "Ok.", user_id="u", session_id="a")
    memory.record_turn(
        "Got married in June, so it's Hannah Osei on all the school forms now, what a faff.",
        "Ok.",
        user_id="u",
        session_id="b",
    )
    current = " ".join(_current(memory))
    assert "Hannah Osei" in current
    assert "Hannah Clarke" not in current


def test_another_persons_full_name_renames_nobody(memory: kioko.MemoryLayer) -> None:
    memory.record_turn("I'm Hannah Clarke, mum of the twins.", "Ok.", user_id="u", session_id="a")
    memory.record_turn("The new teacher is lovely, it's Mrs Osei in Year 2.", "Ok.", user_id="u", session_id="b")
    assert "Hannah Clarke" in " ".join(_current(memory))


def test_a_plant_based_diet_replaces_a_pescatarian_one(memory: kioko.MemoryLayer) -> None:
    memory.record_turn(
        "For staff meal, me personally I'm pescatarian: fish yes, meat no.", "Ok.", user_id="u", session_id="a"
    )
    memory.record_turn(
        "Staff meal note: I've been fully plant-based since January.", "Ok.", user_id="u", session_id="b"
    )
    context = memory.recall("What do I eat at staff meal?", user_id="u").text
    assert "plant-based" in context
    assert "pescatarian" not in context.split("(was:")[0]


def test_back_to_an_earlier_habit_marks_the_one_it_replaces(memory: kioko.MemoryLayer) -> None:
    memory.record_turn(
        "Switched to evening runs, the mornings are pitch black in December.", "Ok.", user_id="u", session_id="a"
    )
    memory.record_turn(
        "Clocks have gone forward, so it's back to dawn runs for me.", "Ok.", user_id="u", session_id="b"
    )
    newer = next(r for r in memory.memories(user_id="u") if "dawn" in r.content)
    assert newer.metadata.get("conflicts_with")
    context = memory.recall("When do I like to run?", user_id="u").text
    assert "dawn runs" in context
    assert "evening runs" not in context.split("(was:")[0]


def test_back_to_said_of_another_topic_changes_nothing(memory: kioko.MemoryLayer) -> None:
    memory.record_turn("Switched to evening runs, the mornings are pitch black.", "Ok.", user_id="u", session_id="a")
    memory.record_turn("Back to the office on Monday after the holiday.", "Ok.", user_id="u", session_id="b")
    assert not any(
        r.metadata.get("conflicts_with") or r.metadata.get("supersedes") for r in memory.memories(user_id="u")
    )


@pytest.mark.parametrize(
    ("new", "place"),
    [
        ("Since autumn I am in Kraków, and I am freelance now, no more agency.", "Kraków"),
        ("Since March we are based in Porto, the cat too.", "Porto"),
        ("we're in Leith now, closer to the job", "Leith"),
    ],
)
def test_being_in_a_place_since_a_time_is_the_new_location_slot(new: str, place: str) -> None:
    assert ("location", place) in stated(new)
