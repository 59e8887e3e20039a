"""A question whose words find no memory takes the nearest in meaning down to a lower floor (``min_vector_fill``),
so a memory that answers it in other words is shown; where its words find one, a memory only the vector search
found must still reach ``min_vector_only``."""

from __future__ import annotations

import pytest

import kioko
from kioko_core.errors import InvalidRecordError
from kioko_core.recall.options import RecallConfig

pytest.importorskip("kioko_core.embedding.semantic")

SAID = [
    "Not Markham anymore, the landlord was too greedy. We look at Richmond Hill now.",
    "My sister's flat in Hove has a view of the pier.",
    "The boiler was serviced in March.",
]


def _layer(**recall: float) -> kioko.Memory:
    memory = kioko.connect("memory://?embedder=semantic", auto_link=False, recall_config=recall or None)
    for text in SAID:
        memory.add(text, user_id="u")
    return memory


def test_a_question_its_words_do_not_find_gets_the_nearest_in_meaning() -> None:
    with _layer() as memory:
        context = memory.recall("Where will my new restaurant be?", user_id="u")
        assert "Richmond Hill" in context.text


def test_without_the_lower_floor_it_is_not_found() -> None:
    # the same store, the fill floor raised to the vector-only floor: the answer is below it (cosine about 0.26)
    with _layer(min_vector_fill=0.3) as memory:
        context = memory.recall("Where will my new restaurant be?", user_id="u")
        assert "Richmond Hill" not in context.text


def test_enough_word_matches_keep_the_vector_only_floor() -> None:
    memory = kioko.connect("memory://?embedder=semantic", auto_link=False)
    with memory:
        memory.add(SAID[0], user_id="u")
        for i in range(2):  # memories the question's words find
            memory.add(
                f"Restaurant review {i}: a new restaurant on the high street, table {i}.",
                memory_type="episodic",
                user_id="u",
            )
        context = memory.recall("Where will my new restaurant be?", user_id="u")
        assert "Restaurant review" in context.text
        assert "Richmond Hill" not in context.text


def test_the_fill_floor_is_checked() -> None:
    with pytest.raises(InvalidRecordError):
        RecallConfig(min_vector_fill=-0.5)
