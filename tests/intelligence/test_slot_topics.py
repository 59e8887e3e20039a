"""Plain words as the value: a newer statement on one topic with a change word replaces the older one (a marked
conflict), a named old holder who left gives way to the new one, and a turn that adds keeps both."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.slot_reading import old_values
from kioko_intelligence.slot_subjects import named_subjects
from kioko_intelligence.slot_topics import names_another, one_topic, replaces_loosely, title_words


def _records(memory: kioko.Memory) -> list[kioko.Record]:
    return list(memory.memories(user_id="u"))


def _in_force(memory: kioko.Memory) -> list[str]:
    """What a context states as current: neither superseded nor replaced by a newer memory in conflict."""
    return [
        r.content
        for r in _records(memory)
        if not r.metadata.get("superseded_by") and not r.metadata.get("conflicted_by")
    ]


def _two_turns(old: str, new: str) -> kioko.Memory:
    memory = kioko.intelligent("memory://?embedder=offline")
    memory.record_turn(old, "Noted.", user_id="u", session_id="s1")
    memory.record_turn(new, "Noted.", user_id="u", session_id="s2")
    return memory


@pytest.mark.parametrize(
    ("old", "new", "kept"),
    [
        (
            "For breakfast I eat toast with butter, is my habit.",
            "Recently I change breakfast to rice and miso soup, toast is not good for my stomach.",
            "miso",
        ),
        (
            "My walkaround: start at the nose, go clockwise.",
            "New company SOP, walkaround now goes anticlockwise from the left wing root.",
            "anticlockwise",
        ),
        (
            "deploy: merge to main, then `make release` on the build box",
            "chore(deploy): releases now cut by the GitHub Action on tag push, no more make release by hand",
            "GitHub Action",
        ),
    ],
)
def test_a_plain_value_changed_on_one_topic_is_a_marked_conflict(old: str, new: str, kept: str) -> None:
    with _two_turns(old, new) as memory:
        in_force = _in_force(memory)
        assert len(in_force) == 1
        assert kept in in_force[0]
        newer = next(r for r in _records(memory) if kept in r.content)
        assert newer.metadata.get("conflicts_with")
        context = memory.recall(old, user_id="u").text
        assert "(was: " in context


def test_the_older_subject_said_again_on_its_topic_is_one_topic_whoever_it_is() -> None:
    old, said = "The twins only eat pasta plain with butter.", "both twins now demand pesto on their pasta"
    frame = {"twin", "demand", "pesto", "pasta"}
    assert one_topic(old, False, {"twin", "pasta"}, said, frame, False)
    assert not one_topic(old, False, {"pasta"}, said, frame, False)  # the subject is not said again
    assert not one_topic(old, False, {"twin"}, said, frame, False)  # nothing but the subject
    with _two_turns(
        "The kids only eat rice plain with soy sauce.", "Both kids now want curry on their rice."
    ) as memory:
        in_force = _in_force(memory)
        assert len(in_force) == 1
        assert "curry" in in_force[0]


def test_a_turn_that_adds_on_the_topic_keeps_both() -> None:
    assert not replaces_loosely("These days I also have porridge for breakfast.", 1)
    with _two_turns(
        "For breakfast I eat toast with butter.", "These days I also have porridge for breakfast."
    ) as memory:
        assert len(_in_force(memory)) == 2


def test_two_statements_on_the_topic_are_not_guessed_between() -> None:
    assert replaces_loosely("Breakfast is rice now.", 1)
    assert not replaces_loosely("Breakfast is rice now.", 2)
    assert not replaces_loosely("Breakfast is rice.", 1)  # no word of change


def test_a_title_names_the_slot_whoever_states_the_new_value() -> None:
    assert title_words("User's walkaround: start at the nose, go clockwise.") == {"walkaround"}
    assert title_words("deploy: merge to main, then make release") == {"deploy"}
    assert title_words("Remember this, it matters: the gate code is 4411") == set()  # a title of five words
    old = "deploy: merge to main, then make release on the build box"
    said = "releases now cut by the GitHub Action on tag push, deploy is automatic"
    assert one_topic(old, False, {"deploy", "releas"}, said, {"deploy", "releas", "cut", "tag"}, False)
    # an untitled world statement and an impersonal new one are not the user's slot
    untitled = "The build box runs the release for the team"
    assert not one_topic(untitled, False, {"releas"}, said, {"deploy", "releas", "cut", "tag"}, False)


@pytest.mark.parametrize(
    ("old", "new", "current"),
    [
        ("Dave is my assistant coach!", "Dave's stepped down, Priyanka is my assistant coach now.", "Priyanka"),
        ("Helga runs our book club.", "Helga has retired, so Ines runs the book club now.", "Ines"),
        ("Marco is my running partner.", "Marco moved on, Luis is my running partner these days.", "Luis"),
    ],
)
def test_a_named_old_holder_who_left_gives_way(old: str, new: str, current: str) -> None:
    with _two_turns(old, new) as memory:
        in_force = _in_force(memory)
        assert len(in_force) == 1
        assert current in in_force[0]


def test_the_left_holder_is_the_old_value_read() -> None:
    assert old_values("Dave's stepped down, Priyanka is my assistant coach now") == ["Dave"]
    assert old_values("So Ravi has left.") == ["Ravi"]
    assert old_values("Cows settle better to Classic FM now, Radio 2 was too chatty.") == ["Radio 2"]
    assert "Ravi" not in old_values("Ravi left his keys here")  # left something, not a role: Ravi stays


def test_a_name_with_its_number_is_the_old_value() -> None:
    with _two_turns(
        "Radio in the milking parlour's always on Radio 2.",
        "Cows settle better to Classic FM, so that's what's on in the parlour now, Radio 2 was too chatty.",
    ) as memory:
        in_force = _in_force(memory)
        assert len(in_force) == 1
        assert "Classic FM" in in_force[0]


def test_an_event_in_the_first_person_plural_names_the_users_value() -> None:
    # "We're" at the start of the sentence speaks of the user as "we're" does
    with _two_turns("We're selling the milk to Arla.", "Left Arla, we're with Müller on the new contract.") as memory:
        in_force = _in_force(memory)
        assert len(in_force) == 1
        assert "Müller" in in_force[0]


def test_a_name_opening_its_sentence_as_a_roles_holder_is_the_value() -> None:
    from kioko_intelligence.slot_reading import read_slot

    assert read_slot("Joanne's my transport manager since Monday").values["name"] == {"joanne"}
    assert read_slot("Sophie is the twins' childminder").values["name"] == {"sophie"}
    assert "name" not in read_slot("This is my favourite mug").values  # a pronoun holds no role
    with _two_turns(
        "My transport manager is Kev.", "Joanne's my transport manager since Monday, sharp as a tack."
    ) as m:
        in_force = _in_force(m)
        assert len(in_force) == 1
        assert "Joanne" in in_force[0]


def test_one_topic_with_too_few_shared_words_for_the_typed_rule() -> None:
    # "God" and "Looe" are names, but the value is the role: one shared topic word and a change word
    with _two_turns(
        "I'm commodore of the Looe sailing club this year.",
        "I'm only the club treasurer now, which means spreadsheets, God help me.",
    ) as memory:
        in_force = _in_force(memory)
        assert len(in_force) == 1
        assert "treasurer" in in_force[0]


def test_a_name_said_in_the_plural_is_the_same_name() -> None:
    with _two_turns(
        "The Harper wedding is on 14 June at Ripley Castle.",
        "Castle had a burst pipe in the great hall; the Harpers are marrying on 21 June now, same venue.",
    ) as memory:
        in_force = _in_force(memory)
        assert len(in_force) == 1
        assert "21 June" in in_force[0]


def test_a_weekday_said_in_the_plural_is_still_the_old_value() -> None:
    with _two_turns("Retro is every other Friday.", "Retros are moving to Thursdays, Fridays nobody shows up.") as m:
        assert len(_in_force(m)) == 1


def test_scrapping_names_the_old_value() -> None:
    assert "Nature Methods" in old_values("my supervisor said scrap Nature Methods, we're sending it to eLife")


def test_a_time_said_first_does_not_hide_the_employer() -> None:
    with _two_turns(
        "I am working at Toyota as engineer of quality.",
        "From April I am working at Denso, different company, same work of quality.",
    ) as memory:
        current = [
            r.metadata.get("value")
            for r in _records(memory)
            if r.metadata.get("slot") == "employer" and not r.metadata.get("superseded_by")
        ]
        assert current == ["Denso"]


# one topic, another name: a newer state naming its thing, no change word


@pytest.mark.parametrize(
    ("old", "new", "kept"),
    [
        (
            "The office printer is an old Brother laser by the kitchen.",
            "The office printer is a Kyocera in the copy room until further notice.",
            "Kyocera",
        ),
        (
            "Caterer for the Lindqvist party: Fennel and Fig, booked.",
            "Harbour Kitchen are doing the Lindqvist food, deposit paid this morning.",
            "Harbour Kitchen",
        ),
        (
            "The kids are in the Otters group at swimming.",
            "They went up to the Dolphins group and they're thrilled.",
            "Dolphins",
        ),
    ],
)
def test_a_new_state_naming_another_thing_on_the_topic_is_a_marked_conflict(old: str, new: str, kept: str) -> None:
    with _two_turns(old, new) as memory:
        in_force = _in_force(memory)
        assert len(in_force) == 1
        assert kept in in_force[0]
        newer = next(r for r in _records(memory) if kept in r.content)
        assert newer.metadata.get("conflicts_with")
        assert "(was: " in memory.recall(old, user_id="u").text


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # two named people, each the subject of their own statement
        ("My daughter Ana studies medicine in Porto.", "My son Rafael studies law in Braga."),
        # two persons of the user's
        ("My sister works at Siemens in Munich.", "My brother works at Bosch in Stuttgart."),
        # a turn that adds
        (
            "The office printer is an old Brother laser by the kitchen.",
            "Got a Kyocera colour printer for the copy room too.",
        ),
        # another value of a type beside the new name: another thing
        ("The billing API listens on port 8443 behind Nginx.", "The auth API listens on port 9100 behind Envoy."),
    ],
)
def test_another_name_on_the_topic_keeps_both_when_it_names_another_thing(old: str, new: str) -> None:
    with _two_turns(old, new) as memory:
        assert len(_in_force(memory)) == 2


def test_two_named_things_said_in_one_session_are_a_list_not_a_change() -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        for said in (
            "The office printer is an old Brother laser by the kitchen.",
            "The scanner next to the printer in the hallway is a Canon flatbed.",
        ):
            memory.record_turn(said, "Noted.", user_id="u", session_id="s1")
        assert len(_in_force(memory)) == 2


def test_names_another_reads_the_values_of_the_two_statements() -> None:
    said = "dns is on a raspberry pi in the comms cupboard"
    assert names_another({"name": {"raspberry pi"}}, {"name": {"dell", "dns"}}, {"dns"}, said)
    assert not names_another({"name": {"raspberry pi"}}, {"name": {"dell"}}, {"use"}, said)  # a common word only
    assert not names_another({"name": {"raspberry pi"}}, {"name": {"dns"}}, {"dns"}, said)  # the old name is said
    assert not names_another({}, {"name": {"dell"}}, {"dns"}, said)  # the new statement names nothing
    assert not names_another({"name": {"envoy"}, "number": {"9100"}}, {"name": {"nginx"}}, {"listen"}, said)


def test_named_subjects_are_two_things_each_statement_is_about() -> None:
    assert named_subjects("My son Rafael studies law.", "My daughter Ana studies medicine.")
    assert named_subjects("My brother lives in Hobart.", "My sister lives in Perth.")
    assert not named_subjects("DNS is on a Raspberry Pi.", "Office DNS runs on the old Dell tower.")


def test_a_decision_is_titled_by_what_follows_its_label() -> None:
    # stored as "Decision: Florist for the Harper wedding: Petal and Stem.": its title is "Florist for the Harper
    # wedding", not the kind's label "Decision", so a newer state naming another florist for it is a marked conflict
    old = "Florist for the Harper wedding: Petal and Stem, confirmed."
    new = "Wild Bunch Flowers are doing the Harper flowers, contract signed this morning."
    with _two_turns(old, new) as memory:
        in_force = _in_force(memory)
        assert [c for c in in_force if "Petal" in c] == []
        newer = next(r for r in _records(memory) if "Wild Bunch" in r.content)
        assert newer.metadata.get("conflicts_with")


def test_a_slot_shifted_to_another_value_is_replaced() -> None:
    old = "Director's call: the interval comes after scene 6."
    new = "Interval's shifted to after scene 4, the first half was dragging."
    with _two_turns(old, new) as memory:
        assert [c for c in _in_force(memory) if "scene 6" in c] == []
