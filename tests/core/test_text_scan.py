"""The text scan's shortcuts change nothing: every place noun is still found in every case, and words next to
identifiers, apostrophes and stop words give what they gave before the scan was made faster (the expected
values below were produced by the analysis before that change)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kioko_core.reading import analysis as text_module
from kioko_core.reading.analysis import ASSET_NOUNS, analyze, entity_key
from kioko_core.reading.regex_literals import anchored_finditer, casefold


@pytest.mark.parametrize("noun", ASSET_NOUNS)
def test_every_place_noun_is_found_in_every_case(noun: str) -> None:
    """The asset pattern's look-ahead on first letters drops no noun, whatever its case; re's case-insensitive
    matching also takes the long s for "s" and the Kelvin sign for "k", and so does the look-ahead."""
    for variant in {noun, noun.upper(), noun.title(), noun.replace("s", "\u017f"), noun.replace("k", "\u212a")}:
        analysis = analyze(f"Check {variant} 7 today")
        assert "e:" + entity_key(f"{variant} 7") in analysis.place_terms, variant


@pytest.mark.parametrize(
    "text, words, terms",
    [
        (
            "INC-45A'b rock'n'E-217 Kumar's it's E-217's fix on line 3's belt",
            ["rockn", "kumar", "fix", "line", "belt"],
            ["e:inc-45a", "e:e-217", "e:line 3", "e:kumar", "t:rockn", "t:kumar", "t:fix", "t:line", "t:belt"],
        ),
        (
            "The the a ab's x'y don't I'm O'Neil S7-1500 10.20.0.0/16 E-217",
            ["ab", "xy", "dont", "im", "oneil"],
            ["e:s7-1500", "e:10.20.0.0/16", "e:e-217", "e:o", "e:neil", "t:ab", "t:xy", "t:dont", "t:im", "t:oneil"],
        ),
    ],
)
def test_words_around_identifiers_and_apostrophes(text: str, words: list[str], terms: list[str]) -> None:
    analysis = analyze(text)
    assert analysis.words == words
    assert analysis.terms == terms


def test_a_repeated_word_gives_the_same_stem_and_first_surface_every_time() -> None:
    """Words are worked out once per scan and reused: each occurrence still counts, the first spelling is shown."""
    analysis = analyze("Clearing jams. clearing JAMS, Clearing jams again")
    assert analysis.words == ["clear", "jam", "clear", "jam", "clear", "jam"]
    assert analysis.surface["t:clear"] == "Clearing"
    assert analysis.surface["t:jam"] == "jams"


def test_whitespace_is_the_same_for_re_and_str() -> None:
    """The sentence-start shortcut walks back over str.isspace() characters in place of re's \\s: the two
    must agree on every code point."""
    differ = [
        code
        for code in range(0x110000)
        if not 0xD800 <= code <= 0xDFFF and bool(re.match(r"\s", chr(code))) != chr(code).isspace()
    ]
    assert differ == []


_PIECES = st.sampled_from(
    [" ", "  ", "\n", "\t", ".", "!", "?", ":", ";", "(", ")", "-", " - ", "3", "12", "a", "Kioko", "Line", "x" * 70]
)


@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=30), cut=st.integers(min_value=0))
def test_sentence_start_shortcut_answers_as_the_pattern(pieces: list[str], cut: int) -> None:
    """_starts_sentence says what searching _SENTENCE_START before the position says, wherever it is asked."""
    text = "".join(pieces) + "Name"
    position = cut % (len(text) + 1)
    assert text_module._starts_sentence(text, position) == text_module._ends_with(
        text_module._SENTENCE_START, text, position
    )


_PLACE_PIECES = st.sampled_from(
    [
        "line 3",
        "Line 3 ",
        "LINE 12B",
        "online 4",
        "ſite 9",
        "\u212ailn 2",
        "cell A1",
        "pump",
        " ",
        "\n",
        "x-",
        "7",
        ", ",
    ]
)


@settings(max_examples=100, deadline=None)
@given(pieces=st.lists(_PLACE_PIECES, min_size=1, max_size=60))
def test_place_nouns_found_from_their_anchors_as_by_the_pattern(pieces: list[str]) -> None:
    """Long texts look for place nouns only where a noun starts: the same matches as the pattern's search."""
    text = "".join(pieces)
    assert text_module._ASSET_STARTS is not None
    found = anchored_finditer(text_module._ASSET, text_module._ASSET_STARTS, text, casefold(text))
    assert [(m.span(), m.groups()) for m in found] == [
        (m.span(), m.groups()) for m in text_module._ASSET.finditer(text)
    ]


def test_a_long_text_is_analysed_as_its_parts_say() -> None:
    """Over ANCHORED_FROM characters the anchored search is taken; places are found all the same."""
    text = " ".join(f"Checked line {i} and ſite {i}B, then online {i}." for i in range(200))
    assert len(text) >= text_module.ANCHORED_FROM
    places = analyze(text).place_terms
    assert {"e:line 0", "e:line 199", "e:ſite 0b", "e:ſite 199b"} <= places
    assert not any(term.startswith("e:online") for term in places)
