"""Two things of one kind ("the Berlin team", "the Madrid team") each keep their value: the subject a statement is
about is read from its words, and a statement about another thing of the same kind is no newer value."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.slot_subjects import different_subjects, subject


def test_the_subject_is_the_noun_phrase_before_the_verb() -> None:
    team = subject("The Berlin team has 8 engineers.")
    assert team is not None
    assert team.head == "team"
    assert team.names == {"berlin"}
    assert team.predicate.strip() == "has 8 engineers."
    cat = subject("Our other cat, Tofu, is 7.")
    assert cat is not None
    assert (cat.owner, cat.head, cat.names) == ("user", "cat", {"tofu"})
    train = subject("User's wife's train leaves at 8:15.")
    assert train is not None
    assert (train.owner, train.head, train.person) == ("wife", "train", True)
    me = subject("I booked room 12 at the Hilton.")
    assert me is not None
    assert me.user


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("The Madrid team has 5 engineers.", "The Berlin team has 8 engineers."),  # names before one head
        ("Our other cat, Tofu, is 7.", "Our cat Miso is 3 years old."),  # names after it
        ("The VAT return is due February 7.", "The tax return is due January 31."),  # words before it
        ("User's younger sister lives in Hobart.", "User's older sister lives in Perth."),
        ("User's wife's train leaves at 8:15.", "User's train to work leaves at 7:52."),  # whose it is
        ("User's colleague Asha booked room 15.", "User booked room 12 at the Hilton."),  # the user / a person
        ("db-02 is at 40% disk.", "db-01 is at 91% disk."),  # identifiers alone
        ("Project Boreal ships on the 10th.", "Project Atlas ships on the 3rd."),
        # the older names a role's holder, the newer a day of its own: another person's days
        ("Brenda started with the twins on Mondays.", "Sophie is the twins' nanny on Tuesdays and Thursdays."),
        ("My brother works at Bosch in Stuttgart.", "My sister works at Siemens in Munich."),  # two persons
        # two heads, each named: two children, not a child's new school
        ("The little one, Zofia, started at Rainbow nursery this month.", "Our eldest, Tomasz, goes to St Mary's."),
    ],
)
def test_two_things_of_one_kind_are_different_subjects(new: str, old: str) -> None:
    assert different_subjects(new, old)


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("The Berlin team has 10 engineers.", "The Berlin team has 8 engineers."),  # the same team's new size
        ("Tomasz is my manager.", "Anna is my manager."),  # the name is the value: the predicate holds none
        ("My go-to editor is Neovim.", "My favourite editor is VS Code."),  # words of liking mark no other thing
        ("My new phone number is 0161 555 0199.", "My phone number is 0161 555 0123."),
        ("Ama relocated to London.", "Ama lives in Kumasi."),
        ("We have 4 kids.", "We have 3 kids."),
        # a capitalised first word is no name of a subject: one payroll, a new day
        ("From next month payroll runs on the 28th.", "Payroll runs on the 25th."),
        ("The quarterly report is due March 21.", "The quarterly report is due on March 14."),
        # a role's new holder on the old holder's days: the name is the value, the days are the slot
        (
            "Brenda started with the twins, Tuesdays and Thursdays.",
            "Sophie is the twins' nanny on Tuesdays and Thursdays.",
        ),
    ],
)
def test_one_slots_old_and_new_value_have_the_same_subject(new: str, old: str) -> None:
    assert not different_subjects(new, old)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The Berlin team has 8 engineers.", "The Madrid team has 5 engineers."),
        ("Our cat Miso is 3 years old.", "Our other cat, Tofu, is 7."),
        ("db-01 is at 91% disk.", "db-02 is at 40% disk."),
        ("My older sister lives in Perth.", "My younger sister lives in Hobart."),
    ],
)
def test_two_things_of_one_kind_both_stay_current(first: str, second: str) -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(first, "Noted.", user_id="u", session_id="s")
        memory.record_turn(second, "Noted.", user_id="u", session_id="s")
        # a server name written like a ticket id ("db-01") also fills the working ticket slot: not a statement
        stored = [r for r in memory.memories(user_id="u") if r.kind != "working"]
        assert len(stored) == 2
        assert [r.content for r in stored if r.metadata.get("superseded_by")] == []
        assert [r.content for r in stored if r.metadata.get("conflicts_with")] == []


def test_the_same_thing_with_a_new_value_still_supersedes() -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn("The Berlin team has 8 engineers.", "Noted.", user_id="u", session_id="s")
        memory.record_turn("The Berlin team has 11 engineers now.", "Noted.", user_id="u", session_id="s")
        current = [r.content for r in memory.memories(user_id="u") if not r.metadata.get("superseded_by")]
        assert current == ["The Berlin team has 11 engineers now."]


def test_a_subject_of_the_user_and_someone_of_theirs_is_rewritten_whole() -> None:
    from kioko_intelligence.language import about_user

    assert about_user("My wife and I moved to Porto.") == "User and their wife moved to Porto."
    assert about_user("My brother and I share a flat.") == "User and their brother share a flat."
    assert about_user("My dog is called Rex.") == "User's dog is called Rex."


def test_a_new_holder_on_the_old_holders_days_is_a_marked_conflict() -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn(
            "Sophie is the twins' nanny on Tuesdays and Thursdays.", "Noted.", user_id="u", session_id="s1"
        )
        memory.record_turn(
            "Brenda started with the twins, Tuesdays and Thursdays.", "Noted.", user_id="u", session_id="s2"
        )
        newer = next(r for r in memory.memories(user_id="u") if "Brenda" in r.content)
        assert newer.metadata.get("conflicts_with")
        context = memory.recall("Who looks after the twins on Tuesdays?", user_id="u").text
        assert "(was: Sophie" in context


def test_a_name_taking_a_role_on_is_a_value() -> None:
    from kioko_intelligence.slot_reading import holds_role, read_slot

    assert read_slot("Brenda started with the twins.").values["name"] == {"brenda"}
    assert read_slot("Ruth Abara took over the infra team.").values["name"] == {"ruth abara"}
    assert "name" not in read_slot("Work started late today.").values
    assert holds_role("Sophie is the twins' nanny on Tuesdays.")
    assert not holds_role("The twins are with Sophie on Tuesdays.")
