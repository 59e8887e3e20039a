"""The text scan's shortcuts change nothing: every place noun is still found in every case, and words next to
identifiers, apostrophes and stop words give what they gave before the scan was made faster (the expected
values below were produced by the analysis before that change)."""

from __future__ import annotations

import pytest

from kioko_core.text import ASSET_NOUNS, analyze, entity_key


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
    assert analysis.surface["t:clear"] == "Clearing" and analysis.surface["t:jam"] == "jams"
