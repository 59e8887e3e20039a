"""A condition bears on everyday things its words never name (a pacemaker on an induction hob, latex on a dentist's
gloves), and the health of someone the user named (their child's egg allergy) is a safety fact of the user's too;
neither brings a fact to a question about something else."""

from __future__ import annotations

import pytest

import kioko
from kioko_core.recall import safety
from kioko_core.recall.hybrid import SAFETY_TITLE


@pytest.mark.parametrize(
    ("fact", "question", "bears"),
    [
        (
            "I've had a pacemaker fitted since my heart scare.",
            "What should I check before buying an induction hob?",
            True,
        ),
        ("I've had a pacemaker fitted since my heart scare.", "Anything to know for airport security tomorrow?", True),
        ("I've had a pacemaker fitted since my heart scare.", "Which novel should I read next?", False),
        ("I'm allergic to latex, proper hives.", "What should I tell the dental practice before I start?", True),
        ("I'm allergic to latex, proper hives.", "What should I get for the kids' party, balloons?", True),
        ("I'm allergic to latex, proper hives.", "Which laptop should I buy?", False),
        (
            "I have asthma, so I can't be anywhere near smoke.",
            "What should I ask the cathedral about before the concert?",
            True,
        ),
        ("I have asthma, so I can't be anywhere near smoke.", "How do I renew my passport?", False),
        ("User is on warfarin.", "Is it fine to get a tattoo next month?", True),
        ("User is on warfarin.", "Which train gets me to York?", False),
        ("User is claustrophobic.", "My doctor wants an MRI, anything I should ask?", True),
        ("User gets seasick easily.", "Should we book the ferry or the flight to Jersey?", True),
        ("User gets seasick easily.", "What should I cook tonight?", False),
        ("User is pregnant with twins.", "Can I go in the hot tub at the spa?", True),
        ("User is pregnant with twins.", "Which font is best for a CV?", False),
        ("User has a bad knee.", "We're viewing a fourth-floor flat with no lift, thoughts?", True),
        # deafness bears on reaching someone (an engineer, a helpline, an appointment), not only on "calls"
        ("User is profoundly deaf.", "How should I get hold of a boiler engineer?", True),
        ("User is profoundly deaf.", "Can you book me an appointment with the GP?", True),
        ("User is profoundly deaf.", "What should I cook tonight?", False),
        ("User uses a power chair.", "We're viewing a fourth-floor flat with no lift, thoughts?", True),
        # no condition named: the table adds nothing
        ("User never drives at night.", "What should I check before buying an induction hob?", False),
    ],
)
def test_a_condition_bears_on_what_it_matters_for(fact: str, question: str, bears: bool) -> None:
    assert safety.bears_on(fact, question) is bears


@pytest.mark.parametrize(
    ("text", "classes"),
    [
        ("Max has a severe egg allergy.", {"allergy"}),
        ("Amara uses a wheelchair.", {"access"}),
        ("Grandad Joe has diabetes.", {"medical"}),
        ("Kumar never signs anything on a Friday.", set()),  # someone else's habit is no safety fact of the user's
        ("Peanut allergy is common in children.", set()),  # general knowledge names nobody
        ("Penicillin allergies are often outgrown.", set()),
        # named after the group of the user's people they belong to
        ("One of my pupils, Leo, has a severe sesame allergy.", {"allergy"}),
        ("Two of our residents, Vera and Hal, use wheelchairs.", set()),  # two names: not one person's
        ("One of my pupils, Leo, never does his homework.", set()),  # a habit, not his health
    ],
)
def test_the_health_of_someone_the_user_named_is_a_safety_fact(text: str, classes: set[str]) -> None:
    assert safety.classes_of(text) == classes


@pytest.fixture(params=["memory://", "sqlite"])
def memory(request, tmp_path):
    url = "memory://" if request.param == "memory://" else f"sqlite:///{tmp_path / 'bridges.db'}"
    with kioko.intelligent(url) as layer:
        for turn in (
            "Max has a severe egg allergy, he carries an EpiPen.",
            "I've had a pacemaker fitted since my heart scare.",
            "Twins' birthday party is Saturday, I'm doing the cake myself.",
        ):
            layer.record_turn(turn, "Noted.", user_id="ola", session_id="s1")
        layer.end_session("s1", user_id="ola")
        yield layer


def _block(text: str) -> list[str]:
    if SAFETY_TITLE not in text:
        return []
    return text.split(SAFETY_TITLE, 1)[1].strip().split("\n\n", 1)[0].splitlines()


def test_the_contexts_bring_each_fact_to_its_own_questions(memory) -> None:
    cake = _block(memory.recall("What cake should I bake for the twins' birthday?", user_id="ola").text)
    assert any("egg allergy" in line for line in cake)
    assert not any("pacemaker" in line for line in cake)
    hob = _block(memory.recall("What should I check before buying an induction hob?", user_id="ola").text)
    assert any("pacemaker" in line for line in hob)
    assert not any("egg" in line for line in hob)
    assert _block(memory.recall("Which novel should I read next?", user_id="ola").text) == []
