"""A pronoun after a clause that reports what someone said stands for what was said (#33, dev27): "Rafi says I
should not give the keysafe number to a computer. Please remove it." Before, "it" was read as "Rafi says I", Rafi's
memory went and the keysafe code stayed.

Real layers on memory://, driven through the agent loop (record_turn, end_session).
"""

from __future__ import annotations

import pytest
from forget_scene_support import contents_after, holds

import kioko_intelligence.forget_context as context

U = {"user_id": "noor"}


def test_the_reported_thing_goes_and_the_reporter_stays(memory) -> None:  # type: ignore[no-untyped-def]
    said = ["For the carer, the keysafe code is 1971.", "My grandson Rafi comes on Sundays and does my shopping."]
    contents = contents_after(
        memory, U, said, "Rafi says I should not give the keysafe number to a computer. Please remove it."
    )
    assert not holds(contents, "1971"), contents
    assert holds(contents, "does their shopping"), contents


@pytest.mark.parametrize(
    ("clause", "topics"),
    [
        ("Rafi says I should not give the keysafe number to a computer.", ["the keysafe number"]),
        ("My wife reckons the alarm code is not safe here", ["the alarm code"]),
        # must not: a clause that reports nothing keeps its topic
        ("The Hargreaves matter has settled", ["The Hargreaves matter"]),
    ],
)
def test_topics(clause: str, topics: list[str]) -> None:
    assert context.topics(clause) == topics
