"""The user's work is a category a forget names as a whole ("Forget all the work things", "all my work stuff",
"anything job-related", "my work info") (#33, dev19, dev26): the job, the employer, the people and hours of it and
the workplace said again ("Our warehouse ships for three chains" after "... at a distribution warehouse") go; what
is not work stays ("User works out at the gym", a race the user trains for). Before, the request was read as a
forget of one item named "work things" and nothing went.

Real layers on memory:// and SQLite files, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import pytest
from forget_scene_support import contents_after, holds

from kioko_core.store import Record
from kioko_intelligence.forget_reading import is_health_fact, is_work_fact, workplaces
from kioko_intelligence.forget_requests import kind_named

U = {"user_id": "ines"}

SAID = [
    "I'm a paralegal at Burges Salmon in Bristol.",
    "My boss there is Imogen Tate.",
    "My work email is r.shah@bslaw.co.uk.",
    "I work out at the gym on Tuesdays.",
    "I'm training for the Bath Half in March.",
]


@pytest.mark.parametrize(
    "asked",
    [
        "Forget the work things please, new chapter.",
        "You can forget all my work stuff, I've handed in my notice.",
        "Clear out my work info, I've retired now.",
        "Anything job-related, wipe it please.",
    ],
)
def test_the_work_things_go_and_the_rest_stays(memory, asked: str) -> None:  # type: ignore[no-untyped-def]
    contents = contents_after(memory, U, SAID, asked)
    for gone in ("paralegal", "Imogen", "bslaw"):
        assert not holds(contents, gone), (gone, contents)
    for kept in ("gym", "Bath Half"):
        assert holds(contents, kept), (kept, contents)


def test_the_workplace_said_again_goes_with_the_work(memory) -> None:  # type: ignore[no-untyped-def]
    said = [
        "I manage the night shift at a distribution warehouse in Swindon.",
        "Our warehouse ships for three supermarket chains.",
        "I'm learning Portuguese on Duolingo, 200-day streak.",
        "There was a warehouse fire on the news last night.",
    ]
    contents = contents_after(memory, U, said, "You can forget all my work stuff, I've handed in my notice.")
    assert not holds(contents, "supermarket chains"), contents
    assert not holds(contents, "night shift"), contents
    assert holds(contents, "Portuguese"), contents


def test_one_work_item_is_not_the_whole_category(memory) -> None:  # type: ignore[no-untyped-def]
    contents = contents_after(memory, U, SAID, "Please forget my work email.")
    assert not holds(contents, "bslaw"), contents
    assert holds(contents, "paralegal"), contents
    assert holds(contents, "Imogen"), contents


@pytest.mark.parametrize(
    ("thing", "kind"),
    [
        ("all the work things", "work stuff"),
        ("all my work stuff", "work stuff"),
        ("my work info", "work stuff"),
        ("everything job-related", "work stuff"),
        ("my work email", None),
        ("the work laptop", None),
        ("all my work", None),
    ],
)
def test_work_is_named_only_as_a_whole(thing: str, kind: str | None) -> None:
    assert kind_named(thing) == kind


def _record(content: str, kind: str = "factual", **metadata: object) -> Record:
    return Record(id="r", user_id="ines", kind=kind, content=content, metadata=dict(metadata))


@pytest.mark.parametrize(
    ("content", "work"),
    [
        ("User is a flight dispatcher at Stansted for a cargo outfit.", True),
        ("User's manager there is Gráinne.", True),
        ("Shift pattern is four on, four off.", True),
        ("User works as a welder in Motherwell.", True),
        ("User works out at the gym on Tuesdays.", False),
        ("User is running the Brighton Marathon in April.", False),
        ("User is a regular at the Crown on Fridays.", False),
        ("User's daughter is learning the violin.", False),
    ],
)
def test_what_is_about_the_users_work(content: str, work: bool) -> None:
    assert is_work_fact(_record(content)) is work


def test_a_profile_slot_of_work() -> None:
    assert is_work_fact(_record("User's job title is health visitor.", "profile", slot="job_title"))
    assert not is_work_fact(_record("User's home is Leeds.", "profile", slot="location"))


def test_the_workplace_a_work_memory_names() -> None:
    assert workplaces(["User manages the night shift at a distribution warehouse in Swindon."]) == {"warehouse"}
    assert workplaces(["User drives for the depot."]) == {"depot"}


# Health said in other words (the same dev halves): a condition's ending, a test or a measurement, an operation, a
# treatment, what a clinician said of the user; not a clinician by trade.


@pytest.mark.parametrize(
    ("content", "health"),
    [
        ("User has got psoriasis on their elbows, using a steroid cream.", True),
        ("Had my gallbladder out in 2019.", True),
        ("User has sickle cell trait, doctor say to drink plenty water.", True),
        ("The nurse said I'm prediabetic.", True),
        ("User's HbA1c came back at 44.", True),
        ("User was in hospital for a week in May.", True),
        ("User is a nurse at St James's.", False),
        ("User works as a health visitor in Rotherham.", False),
        ("User works at the hospital as a porter.", False),
        ("User had their hair done on Friday.", False),
        ("User had their boiler replaced.", False),
        ("User is learning Morse code.", False),
    ],
)
def test_what_is_about_the_users_health(content: str, health: bool) -> None:
    assert is_health_fact(content) is health


@pytest.mark.parametrize(
    ("said", "asked", "gone", "kept"),
    [
        (
            ["I work as a health visitor in Rotherham.", "I've got psoriasis on my elbows, using a steroid cream."],
            "Could you lose my medical bits? Not the job, obviously.",
            "psoriasis",
            "health visitor",
        ),
        (
            ["The nurse said I'm prediabetic, my HbA1c came back at 44.", "I teach Year 6 at a primary in Wigan."],
            "All my health info, please wipe it.",
            "HbA1c",
            "Year 6",
        ),
        (
            ["I have sickle cell trait, so I drink plenty of water.", "I coach netball for the under-14s."],
            "Clear out all my health stuff, it's private.",
            "sickle cell",
            "netball",
        ),
    ],
)
def test_health_said_in_other_words_goes_with_the_health_things(memory, said, asked, gone, kept) -> None:  # type: ignore[no-untyped-def]
    contents = contents_after(memory, U, said, asked)
    assert not holds(contents, gone), contents
    assert holds(contents, kept), contents


def _graph(memory) -> str:  # type: ignore[no-untyped-def]
    from kioko_core.store import Scope

    return " ".join(r.content for r in memory.store.scan(Scope(U["user_id"], "@graph"))).lower()


def test_the_relations_the_work_memories_state_go_with_them(memory) -> None:  # type: ignore[no-untyped-def]
    """ "I work as a health visitor in Rotherham" also wrote (user) -works_at-> (Rotherham); a delete keeps the
    router's relations, so the triple outlived "forget all my work stuff"."""
    contents = contents_after(
        memory, U, ["I work as a health visitor in Rotherham.", "I grow dahlias."], "Forget all my work stuff."
    )
    assert not holds(contents, "health visitor"), contents
    assert "rotherham" not in _graph(memory)
    assert holds(contents, "dahlias"), contents


def test_a_relation_whose_object_a_kept_memory_states_stays(memory) -> None:  # type: ignore[no-untyped-def]
    said = ["I work as a health visitor in Rotherham.", "I live in Rotherham, near the minster.", "I grow dahlias."]
    contents = contents_after(memory, U, said, "Forget all my work stuff.")
    assert holds(contents, "minster"), contents
    assert "rotherham" in _graph(memory)
