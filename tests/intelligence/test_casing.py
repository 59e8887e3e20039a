"""A turn without case given a careful writer's capitals (kioko_intelligence/casing.py)."""

from __future__ import annotations

import pytest

import kioko
from kioko_core.store import check_scope
from kioko_intelligence.casing import recase
from kioko_intelligence.normalise import normalise
from kioko_intelligence.spelling import available
from kioko_intelligence.turn_reading import known_names

needs_words = pytest.mark.skipif(not available(), reason="the spelling extra (pyspellchecker) is not installed")


def test_sentence_starts_the_pronoun_days_months_and_languages() -> None:
    assert recase("i moved. now i reply in german on mondays") == "I moved. Now I reply in German on Mondays"
    assert recase("i'm off on 3 may, back in march") == "I'm off on 3 May, back in March"
    assert recase("it may rain, we march on") == "It may rain, we march on"
    assert recase("working on inc-3301 today") == "Working on INC-3301 today"


def test_names_after_named_or_called() -> None:
    assert recase("our horse is named bella") == "Our horse is named Bella"
    assert recase("she called me back") == "She called me back"


def test_names_the_user_wrote_before() -> None:
    assert recase("had lunch with max and ben at github actions", names=["Max", "GitHub Actions", "ben"]) == (
        "Had lunch with Max and ben at GitHub Actions"  # a name never written with a capital gives none
    )


@needs_words
def test_rare_words_are_names_and_common_ones_are_not() -> None:
    assert recase("hi, i'm priya and we moved to bristol") == "Hi, I'm Priya and we moved to Bristol"
    assert recase("we host on hetzner now") == "We host on Hetzner now"
    # after a determiner, a British spelling, a rare form of a common word: no name
    said = "my monstera is my favourite, we migrated the repo"
    assert recase(said) == "My monstera is my favourite, we migrated the repo"


@needs_words
def test_a_form_the_word_list_lacks_of_a_word_it_holds_is_no_name() -> None:
    # "pipetting" is not in the word list, "pipette" is: a rare form of a word, as "migrated" is
    assert recase("i'm reading you between pipetting steps") == "I'm reading you between pipetting steps"


@needs_words
def test_letters_said_one_by_one_are_capitals() -> None:
    assert recase("now on pr #4830, the gp said aws") == "Now on PR #4830, the GP said AWS"
    assert recase("i ran 5 km") == "I ran 5 km"
    assert recase("batch b12 on my x1 at 5pm") == "Batch B12 on my X1 at 5pm"
    assert recase("editing config/prod.yaml, mail jo.smith@example.com") == (
        "Editing config/prod.yaml, mail jo.smith@example.com"  # no capital inside a path or an address
    )


def test_a_turn_in_capitals_is_read_as_one_written_with_case() -> None:
    assert normalise("MY DOG IS CALLED MAX, HES A BEAGLE") == "My dog is called Max, he's a beagle"
    assert normalise(normalise("we moved to leeds. i work at dell")) == normalise("we moved to leeds. i work at dell")


def test_a_turn_without_case_gets_the_names_the_user_wrote_before(memory: kioko.MemoryLayer) -> None:
    memory.record_turn("Our beagle is called Max and my coach Ben Carter says hi.", "Noted.", user_id="u")
    scope = check_scope(("u", None))
    said = "we heard ben carter moved to leeds and max is four now, the max is 5 km"
    assert known_names(memory, scope, said) == ["Ben Carter", "Max"]
    assert known_names(memory, check_scope(("someone else", None)), said) == []  # another user's names are not asked
    report = memory.record_turn(said, "Noted.", user_id="u")
    written = " ".join(str(op.fields.get("text", "")) for op in report.ops)
    assert "and Max is four now" in written
    assert "heard Ben Carter moved" in written
    assert "the max is 5 km" in written  # after a determiner a common word is a word again
