"""Safety-relevant facts: allergies, diets, conditions, access needs and hard rules the user states are recognised
at write time (no model) and shown, right after the profile and instructions, for the questions they bear on,
and not for the others; a tight budget keeps them before what was retrieved."""

from __future__ import annotations

import pytest

import kioko
from kioko_core.recall import safety
from kioko_core.recall.hybrid import SAFETY_TITLE

S = {"user_id": "maya", "session_id": "s1"}
U = {"user_id": "maya"}
TURNS = [
    "I'm Maya, I live in Lisbon.",
    "I'm severely allergic to peanuts.",
    "I use a wheelchair since my accident.",
    "I never fly, planes give me panic attacks.",
    "My favourite colour is green.",
    "Station 12 uses a Siemens drive.",
]


@pytest.mark.parametrize(
    ("text", "classes"),
    [
        ("User is allergic to shellfish.", {"allergy"}),
        ("I'm lactose intolerant.", {"allergy", "diet"}),
        ("User is vegan.", {"diet"}),
        ("User has type 1 diabetes and takes insulin.", {"medical"}),
        ("User uses a wheelchair.", {"access"}),
        ("User is hard of hearing.", {"access"}),
        ("User never drives at night.", {"constraint"}),
        ("User's favourite colour is green.", set()),
        ("Peanut allergies are common in children.", set()),  # general knowledge, not about the user
        # a power chair or a mobility scooter is an access need as a wheelchair is
        ("User is a power chair user, the chair weighs about 120 kilos.", {"access"}),
        ("User gets about on a mobility scooter.", {"access"}),
        ("User's chair is a comfy armchair by the window.", set()),
        # the user named by a label and "here" (their subject left out), their health only
        ("Type 1 diabetic here.", {"medical"}),
        ("Coeliac here, btw.", {"diet", "medical"}),
        ("Peanut allergies are common here.", set()),  # a statement about a place, not a label of the user's
        ("Night owl here, always up past two.", set()),  # a habit, not the user's health
        # the user's subject after a time or a discourse marker
        ("Since March I am having a pacemaker fitted, the doctor at UTH put it.", {"medical"}),
        ("Two years ago I was diagnosed with epilepsy.", {"medical"}),
        ("Ever since childhood, I've had migraines.", {"medical"}),
        ("Since the accident I use a wheelchair.", {"access"}),
        ("btw I'm allergic to kiwi", {"allergy"}),
        # must not: someone else, or the world, after the same kind of lead
        ("After the op Max can't walk far.", set()),
        ("Since 2019 peanut allergies have risen sharply.", set()),
        ("In March I went to Rome for the weekend.", set()),
    ],
)
def test_safety_classes_are_recognised_without_a_model(text: str, classes: set[str]) -> None:
    assert safety.classes_of(text) == classes


@pytest.mark.parametrize(
    ("fact", "question", "bears"),
    [
        ("User is allergic to peanuts.", "What should I cook tonight?", True),
        ("User is allergic to peanuts.", "Can you recommend a restaurant in Porto?", True),
        ("User is allergic to peanuts.", "What is the capital of France?", False),
        ("User uses a wheelchair.", "Plan a weekend trip to Porto for me", True),
        ("User uses a wheelchair.", "Which hotel should I book in Rome?", True),
        ("User uses a wheelchair.", "What should I cook tonight?", False),
        ("User never flies.", "How should I get to Berlin, flights or train?", True),
        ("User never drives at night.", "Can I drive to Porto after the concert tonight?", True),
        ("User is vegetarian.", "Any ideas for a dinner party menu?", True),
        ("User is vegetarian.", "How do I reset the safety relay?", False),
        # a word of the fact names a topic beyond its class's: flashing screens for photosensitive epilepsy
        ("User has photosensitive epilepsy.", "Which game would you recommend for me?", True),
        ("User has diabetes.", "Which game would you recommend for me?", False),
        ("User has photosensitive epilepsy.", "Should I switch to a new phone plan?", False),
        ("User is strictly vegan, always check menus for them.", "What should I order at the steakhouse?", True),
        ("User is lactose intolerant.", "How do I take my coffee?", True),
        ("User is lactose intolerant.", "How can I make my laptop battery last longer?", False),
        # a dish named, or "what should I order" with the dish in between
        ("User has an allergy to sesame, very serious.", "Which noodle soup is good here?", True),
        ("User is allergic to sesame.", "What ramen should we order tonight?", True),
        ("User is allergic to sesame.", "In what order should I read the Dune books?", False),
        # a weekend away is travel; what to pack bears on a condition, an allergy or an access need (what to bring)
        ("User is a power chair user.", "Can you help me plan the Lisbon weekend?", True),
        ("User is a power chair user.", "What should I cook tonight?", False),
        ("User is on an insulin pump.", "What should I pack for Kalymnos?", True),
        ("User is allergic to wasps, carries an EpiPen.", "Help me with a packing list for Crete", True),
        ("User is on an insulin pump.", "Any tips for a long weekend in Rome?", False),  # travel is not health
        ("User is on an insulin pump.", "Which novel should I read next?", False),
        ("User is vegetarian.", "What should I pack for Kalymnos?", False),  # a diet bears on food, not on packing
    ],
)
def test_a_question_bears_on_the_facts_of_its_topic(fact: str, question: str, bears: bool) -> None:
    assert safety.bears_on(fact, question) is bears


@pytest.fixture(params=["memory://", "sqlite"])
def memory(request, tmp_path):
    url = "memory://" if request.param == "memory://" else f"sqlite:///{tmp_path / 'safety.db'}"
    with kioko.intelligent(url) as layer:
        for turn in TURNS:
            layer.record_turn(turn, "Noted.", **S)
        yield layer


def _block(text: str) -> list[str]:
    """The lines of the context's safety section (empty when it has none)."""
    if SAFETY_TITLE not in text:
        return []
    block = text.split(SAFETY_TITLE, 1)[1].strip().split("\n\n", 1)[0]
    return [line.removeprefix("- ") for line in block.splitlines()]


def test_an_allergy_comes_to_a_question_about_cooking_and_high_in_the_context(memory) -> None:
    ctx = memory.recall("What should I cook for dinner tonight?", **U)
    assert _block(ctx.text) == ["User is severely allergic to peanuts."]
    assert ctx.text.index(SAFETY_TITLE) < ctx.text.index("User is severely allergic")
    assert ctx.text.index("About the user:") < ctx.text.index(SAFETY_TITLE)
    shown = [m for m in ctx.memories if m.section == "safety"]
    assert [m.content for m in shown] == ["User is severely allergic to peanuts."]


def test_travel_brings_the_access_need_and_the_rule_and_unrelated_questions_bring_none(memory) -> None:
    trip = _block(memory.recall("Plan a weekend trip to Porto for me", **U).text)
    assert "User uses a wheelchair since their accident." in trip
    assert any("never" in line.lower() and "fl" in line.lower() for line in trip)
    assert "User is severely allergic to peanuts." not in trip
    for question in ("What is my favourite colour?", "Which drive does station 12 use?", "thanks!"):
        assert _block(memory.recall(question, **U).text) == [], question


def test_a_tight_budget_keeps_the_safety_fact_before_retrieved_memories(memory) -> None:
    for i in range(12):
        memory.add(f"Dinner idea {i}: a peanut curry with rice, coriander and lime for the whole family.", **U)
    ctx = memory.recall("What should I cook for dinner tonight?", budget=120, **U)
    assert ctx.tokens <= 120
    assert "User is severely allergic to peanuts." in ctx.text
    assert ctx.dropped  # some dinner ideas gave way, the allergy did not


def test_a_plan_may_cap_the_safety_section(memory) -> None:
    ctx = memory.recall("What should I cook tonight?", section_limits={"safety": 0}, **U)
    assert _block(ctx.text) == []


@pytest.mark.parametrize(
    ("fact", "question", "word"),
    [
        (
            "Since March I am having a pacemaker fitted, the doctor at UTH put it.",
            "Is an induction cooktop a good idea for me?",
            "pacemaker",
        ),
        ("Two years ago I was diagnosed with epilepsy.", "Should I go to the rave on Saturday?", "epilepsy"),
        ("Last winter my asthma got a lot worse.", "Is the bonfire night party a good idea?", "asthma"),
    ],
)
def test_a_fact_said_after_a_time_reaches_its_question(fact: str, question: str, word: str) -> None:
    with kioko.intelligent("memory://") as layer:
        layer.record_turn(fact, "Noted.", user_id="u", session_id="s1")
        layer.record_turn("I've been reading a lot of crime novels lately.", "Noted.", user_id="u", session_id="s1")
        layer.end_session("s1", user_id="u")
        text = layer.recall(question, user_id="u").text
    assert SAFETY_TITLE in text
    assert word in text.split(SAFETY_TITLE, 1)[1]
