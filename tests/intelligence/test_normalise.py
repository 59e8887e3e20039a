"""A turn's tidy form: "im", "dont", capitals, fillers, typing slips and dictation read as tidy English."""

from __future__ import annotations

import pytest

import kioko
from kioko_intelligence.normalise import normalise, normalise_messages, normalise_query
from kioko_intelligence.planner import QueryPlanner
from kioko_intelligence.spelling import available, correct_typos


@pytest.mark.parametrize(
    ("said", "tidy"),
    [
        ("im allergic to peanuts and i dont eat fish", "I'm allergic to peanuts and I don't eat fish"),
        ("ive moved on from the old one, its so much slower", "I've moved on from the old one, it's so much slower"),
        ("Thats the one, hes a beagle", "That's the one, he's a beagle"),
        ("we havent decided, theyre still looking", "We haven't decided, they're still looking"),
        ("its been a year", "It's been a year"),
        ("MY DOG IS CALLED MAX, HES A BEAGLE", "My dog is called Max, he's a beagle"),
        ("WORKING ON INC-3301 TODAY", "Working on INC-3301 today"),
        ("i live in the city. my dog is a beagle", "I live in the city. My dog is a beagle"),
        ("I, um, switched to Vim", "I switched to Vim"),
        ("Hmm, there's a ticket open", "there's a ticket open"),
        ("You know, I prefer tea", "I prefer tea"),
        ("It was, like, really slow", "It was really slow"),
        (
            "ok so i switched editors last week its much faster now",
            "I switched editors last week, it's much faster now",
        ),
        ("btw my dog is called Max. anyway, I live in Leeds", "my dog is called Max. I live in Leeds"),
        ("so two now", "So two now"),  # a plain "so" may carry the turn on from the last one
        (
            "we moved house over the summer i work from home now",
            "We moved house over the summer, I work from home now",
        ),
    ],
)
def test_a_turn_is_read_in_its_tidy_form(said: str, tidy: str) -> None:
    assert normalise(said) == tidy


def test_a_turn_without_case_is_recased_and_a_marker_leaves_its_capital() -> None:
    """A turn with no capitals gets a careful writer's ("i live in toronto" names a place the router reads by
    its capital); a turn with case keeps its own and gets "I"; a capitalised marker dropped at a sentence's
    start hands its capital to the next word."""
    assert normalise("i live in toronto") == "I live in Toronto"
    assert normalise("I live in Leeds, im happy") == "I live in Leeds, I'm happy"
    assert normalise("Cool. Also, please always answer in English.") == "Cool. Please always answer in English."
    assert normalise("btw moved back home to Galway") == "moved back home to Galway"


def test_a_question_without_case_keeps_it() -> None:
    """The planner matches names without case; a question it does not change stays the Query it came as."""
    assert normalise_query("where does priya live") == "where does priya live"


@pytest.mark.parametrize(
    "said",
    [
        "I'm Kumar, I live in Pune.",
        "The editor I use is Neovim.",  # a relative clause: no comma before "I"
        "Its battery lasts two days.",  # a possessive "its" stays
        "I don't really like crowded places.",  # "like" the verb stays
        "Erase all you know about Northwind, that contract is confidential.",  # "you know" inside a clause
        "Just so you know, I'm allergic to shellfish.",
        "We'll renew the lease on the Shoreditch studio, e.g. the one on Rivington St. near the park.",
        "Do you know where my keys are?",
        "I'll be there at 6:40, well before the others.",
        "the editor i use is neovim and i love it".replace(" i ", " I "),  # lower case, nothing to break
    ],
)
def test_a_tidy_turn_comes_back_unchanged(said: str) -> None:
    assert normalise(said) == said
    assert normalise(normalise(said)) == normalise(said)


def test_dictation_breaks_only_turns_without_any_punctuation() -> None:
    assert normalise("i bought a new car i sold the old one to my brother last week") == (
        "I bought a new car, I sold the old one to my brother last week"
    )
    # a short clause with no object describes what comes before it
    assert normalise("actually its a phone i use now i gave the old one away") == (
        "Actually it's a phone I use now, I gave the old one away"
    )
    assert "case," not in normalise("my bank sort code is 40-11-62 in case i forget it")
    # a question's inverted subject and a clause after "that" or "because" are one clause
    assert "," not in normalise("so the reason is that we moved because we wanted a garden for the dogs")
    assert "," not in normalise("do you think we should move to the coast next year or not really")


@pytest.mark.parametrize(
    ("said", "tidy"),
    [
        ("My work laptop you know, is a ThinkPad X1.", "My work laptop is a ThinkPad X1."),
        (
            "IT replaced my ThinkPad, I mean, my laptop is a Mac now.",
            "IT replaced my ThinkPad, my laptop is a Mac now.",
        ),
        ("New number, the old I mean one is disconnected.", "New number, the old one is disconnected."),
        (
            "I'm a pastry chef now, uh, finished my training in May.",
            "I'm a pastry chef now, finished my training in May.",
        ),
        (
            "Training is going well, I'm 70% done with the marathon like, prep.",
            "Training is going well, I'm 70% done with the marathon prep.",
        ),
        ("I like, work as a barista.", "I work as a barista."),
        ("I'm on like the payments team.", "I'm on the payments team."),
        (
            "Switch to English, basically my German isn't good enough.",
            "Switch to English, my German isn't good enough.",
        ),
    ],
)
def test_fillers_go_and_the_clause_breaks_they_sat_on_stay(said: str, tidy: str) -> None:
    assert normalise(said) == tidy


@pytest.mark.parametrize(
    "said",
    [
        "No, I mean Thursday.",  # "I mean" after "no" takes something back
        "I would like, if possible, a window seat.",
        "What I like, honestly, is jazz.",
        "It looks like, from here, a fox.",
    ],
)
def test_like_and_i_mean_that_carry_meaning_stay(said: str) -> None:
    assert normalise(said) == said


def test_only_the_users_messages_are_tidied_and_a_correction_is_still_settled() -> None:
    messages = [
        {"role": "user", "content": "im flying at 6:40, no sorry, 7:40"},
        {"role": "assistant", "content": "im here"},
    ]
    assert [m["content"] for m in normalise_messages(messages)] == ["I'm flying at 7:40", "im here"]
    said = [{"role": "user", "content": "Reply in German, um, actually in Swiss German if you can."}]
    assert normalise_messages(said)[0]["content"] == "Reply in Swiss German if you can."


def test_the_planner_reads_a_question_in_capitals_as_it_reads_it_tidy() -> None:
    planner = QueryPlanner()
    assert normalise_query("WHATS MY DOGS NAME") == "what's my dogs name"
    assert planner.intents("HOW DO I RESET THE ROUTER") == planner.intents("How do I reset the router")


needs_words = pytest.mark.skipif(not available(), reason="the spelling extra (pyspellchecker) is not installed")


@needs_words
@pytest.mark.parametrize(
    ("said", "meant"),
    [
        ("I've mvoed on from VS Code to Neovim", "I've moved on from VS Code to Neovim"),
        ("my edtior is vim", "my editor is vim"),
        ("The luanch slipped two weeks", "The launch slipped two weeks"),
        ("please send the adress", "please send the address"),
        ("MY DOG IS CALLED MAX, HE WAS ADOPTDE", "MY DOG IS CALLED MAX, HE WAS ADOPTED"),
    ],
)
def test_a_slip_in_a_plain_word_is_put_right(said: str, meant: str) -> None:
    assert correct_typos(said) == meant


@needs_words
@pytest.mark.parametrize(
    "said",
    [
        "Our dog Bsicuit is a labrador.",  # a capitalised word inside a sentence is a name
        "We're hiring two more backend devs, Redis is on the funder's list.",  # a letter more is no slip
        "Whenever a new hire joins, I book an intro with their buddy.",  # the first letter is trusted
        "My favourite colour is grey and I travelled to the theatre.",  # British spellings are words
        "I use Neovim with pgvector on Qdrant.",
        "Swapped with Dave, I'm on lates now, 2 till 10.",  # a common word and its -s: it read "lattes"
    ],
)
def test_words_and_names_are_not_corrected(said: str) -> None:
    assert correct_typos(said) == said


def test_a_turn_with_case_keeps_its_own() -> None:
    assert normalise("I live in bristol and work at Dell") == "I live in bristol and work at Dell"


def test_a_dictated_change_supersedes_as_the_tidy_one_does() -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        memory.record_turn("im on an iPhone 12", "Noted.", user_id="u", session_id="s1")
        memory.end_session("s1", user_id="u")
        report = memory.record_turn(
            "actually its a Pixel 8 i use i gave the iPhone to my son", "Noted.", user_id="u", session_id="s2"
        )
        assert any(op.status == "applied" for op in report.ops)
        text = memory.recall("What phone do I have?", user_id="u", session_id="s3").text
    assert "Pixel 8" in text
    assert "User is on an iPhone 12" not in text
    assert "I'm on an iPhone 12" not in text


@pytest.mark.parametrize(
    ("said", "tidy"),
    [
        ("i usually get up at 6 full stop", "I usually get up at 6."),
        ("the dog is rex period he is 3 comma nearly 4 full stop", "The dog is Rex. He is 3, nearly 4."),
        ("where do i live question mark", "Where do I live?"),
        ("we got the keys exclamation mark", "We got the keys!"),
        ("I had a colon exam comma all fine", "I had a colon exam, all fine"),
    ],
)
def test_punctuation_said_as_words_is_written(said: str, tidy: str) -> None:
    assert normalise(said) == tidy


@pytest.mark.parametrize(
    "said",
    [
        "My trial period ends in June",  # a period of time, no other mark said
        "Put a comma there",  # after a determiner: the word
        "Comma is my cat's name",  # opening the turn: a word
        "The colon, then the full stop.",  # a turn with marks of its own says its marks in writing
    ],
)
def test_words_that_name_a_mark_stay_words(said: str) -> None:
    assert normalise(said) == said


def test_the_words_of_a_mark_said_are_not_stored() -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        report = memory.record_turn(
            "we moved to leeds full stop our dog is called rex comma he is 3", "Noted.", user_id="u", session_id="s1"
        )
        written = [str(op.fields.get("text", "")) for op in report.ops]
        text = memory.recall("Where do we live?", user_id="u", session_id="s2").text
    assert any("moved to Leeds" in w for w in written)
    assert not any("full stop" in w.lower() or "comma" in w.lower() for w in written)
    assert "Leeds" in text


@pytest.mark.parametrize(
    ("said", "tidy"),
    [
        ("goal run a half marathon by october", "Goal: run a half marathon by October"),
        ("target 1500 hours", "Target: 1500 hours"),
        (
            "note to self always take a snapshot before upgrading",
            "Note to self: always take a snapshot before upgrading",
        ),
        ("party plan order the cake then book the hall", "Party plan: order the cake then book the hall"),
        ("decision we go with hetzner for hosting", "Decision: we go with Hetzner for hosting"),
    ],
)
def test_a_label_dictated_without_its_colon_gets_it_back(said: str, tidy: str) -> None:
    assert normalise(said) == tidy


@pytest.mark.parametrize(
    ("said", "tidy"),
    [
        ("my goal is to run", "My goal is to run"),  # the label is the sentence's subject
        ("the plan changed to friday", "The plan changed to Friday"),
        ("we plan to move", "We plan to move"),  # a verb
        ("a note on the fridge", "A note on the fridge"),
        ("Target practice is fun", "Target practice is fun"),  # a turn with case and marks of its own
    ],
)
def test_a_label_that_is_no_heading_gets_no_colon(said: str, tidy: str) -> None:
    assert normalise(said) == tidy


def test_a_dictated_goal_is_stored_as_the_goal_it_heads() -> None:
    with kioko.intelligent("memory://?embedder=offline") as memory:
        report = memory.record_turn("goal run a half marathon by october", "Noted.", user_id="u")
    assert [op.op for op in report.ops] == ["goal.add"]


# --- a hedge between the subject and a verb of doing or deciding (the hedger's voice, #33)


@pytest.mark.parametrize(
    ("said", "tidy"),
    [
        ("We've, um, kind of decided the garage can stay a garage.", "We've decided the garage can stay a garage."),
        ("I sort of switched to oat milk.", "I switched to oat milk."),
        ("We kinda moved to Leeds last spring.", "We moved to Leeds last spring."),
        ("They sorta agreed to push the launch.", "They agreed to push the launch."),
    ],
)
def test_a_hedge_before_the_verb_goes(said: str, tidy: str) -> None:
    assert normalise(said) == tidy


@pytest.mark.parametrize(
    "said",
    ["What kind of dog is it?", "It's sort of blue.", "I want that kind of thing.", "We had a sort of picnic."],
)
def test_kind_of_that_is_no_hedge_before_a_verb_stays(said: str) -> None:
    assert normalise(said) == said


@pytest.mark.parametrize(
    ("said", "op"),
    [
        ("We've, um, kind of decided the garage can stay a garage.", "decision.add"),
        ("We sort of agreed to sell the boat.", "decision.add"),
        ("I kind of like jazz.", "preference.add"),
    ],
)
def test_a_hedged_decision_or_liking_is_read_as_one(said: str, op: str) -> None:
    with kioko.intelligent("memory://") as memory:
        report = memory.record_turn(said, "Noted.", user_id="hedger", session_id="s1")
    assert [o.op for o in report.ops if o.status == "applied"] == [op]
