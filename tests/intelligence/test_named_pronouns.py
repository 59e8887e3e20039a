"""A "he" / "she" standing for the one person the turn just named is written as the name in the turn's tidy form."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.named_pronouns import named_pronouns
from kioko_intelligence.normalise import normalise, normalise_query
from kioko_intelligence.spelling import available

pytestmark = pytest.mark.skipif(not available(), reason="the rule needs the spelling extra's word list")


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        (
            "Taras finished the retraining. He works as electrician for the Lviv trams now, he is very proud.",
            "Taras finished the retraining. Taras works as electrician for the Lviv trams now, he is very proud.",
        ),
        (
            "My sister Ana moved to Lisbon in May. She works at a bakery there now.",
            "My sister Ana moved to Lisbon in May. Ana works at a bakery there now.",
        ),
        (
            "Priya got the job! She starts at Deloitte on Monday.",
            "Priya got the job! Priya starts at Deloitte on Monday.",
        ),
        (
            "Kofi started sixth form at the college in Croydon. He is doing engineering.",
            "Kofi started sixth form at the college in Croydon. Kofi is doing engineering.",
        ),
    ],
)
def test_a_pronoun_for_the_one_person_just_named_is_the_name(said: str, meant: str) -> None:
    assert named_pronouns(said) == meant
    assert normalise(said) == meant


@pytest.mark.parametrize(
    "said",
    [
        "Taras met Olga at the party. She is a nurse.",  # two people: which one is a guess
        "Yesterday was awful. He shouted at me.",  # a word opening the sentence, no name
        "Will called me. He is fine.",  # a name that is a common word
        "I saw Ana today. She looks well.",  # the sentence opens on the user
        "The dog is ill. He will not eat.",
        "Mum moved into Lavender Court. She hates it.",
        # after a comma, or "he's" / "she's": the slot rules read these as they are
        "Mihai went to Bucharest for the university, he rents a flat there with two friends.",
        "Ruth Abara took over the infra team this week, so she's who I report to.",
        "Our neighbour Kwame retired. He's taking up golf.",
    ],
)
def test_what_the_named_pronoun_rule_leaves_alone(said: str) -> None:
    assert named_pronouns(said) == said


def test_a_question_keeps_its_pronouns() -> None:
    asked = "Taras finished the retraining. What does he do now?"
    assert normalise_query(asked) == asked


@pytest.mark.parametrize(
    ("old", "new", "question", "current", "stale"),
    [
        (
            "My brother Taras is working as miner in Kryvyi Rih, already fifteen years.",
            "Taras finished the retraining. He works as electrician for the Lviv trams now, he is very proud.",
            "What does Taras do for a living?",
            "electrician",
            "miner",
        ),
        (
            "My dad Viktor drives a taxi in Odesa.",
            "Viktor sold the taxi last month. He runs a small café by the port now.",
            "What does Viktor do?",
            "café",
            "drives a taxi",
        ),
        (
            "My son Kofi is at Harris Academy in Norwood.",
            "Kofi turned sixteen. He is at the sixth form college in Croydon now.",
            "Where does Kofi study?",
            "Croydon",
            "Harris",
        ),
    ],
)
def test_a_named_persons_new_detail_said_with_a_pronoun_replaces_the_old(
    old: str, new: str, question: str, current: str, stale: str
) -> None:
    """Before, "He works as electrician ..." was kept naming no one: the slot rules did not see Taras's new trade and
    "What does Taras do?" showed only the miner."""
    with kioko.intelligent("memory://") as memory:
        memory.record_turn(old, "Noted.", user_id="u", session_id="s1")
        memory.end_session("s1", user_id="u")
        memory.record_turn(new, "Noted.", user_id="u", session_id="s2")
        memory.end_session("s2", user_id="u")
        context = memory.recall(question, user_id="u", session_id="probe").text
        assert current in context
        assert not any(stale in line and "(was:" not in line for line in context.splitlines())
