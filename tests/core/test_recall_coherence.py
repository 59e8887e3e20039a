"""Session coherence (issue 34): without links followed, a match whose session holds other matches goes first.

Two memories hold the question's rare word alike. One sits in a session about the same thing (another of
its turns matches the question too); the other is a passing remark in a session about something else, and
it is the newer, so recency alone would put it first. With ``links=0`` the coherent one leads; with
``session_weight=0`` the order is recency's again; with links followed the links carry a session's context
and the signal is off (the order is the plain one).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import kioko
from kioko_core.recall.coherence import named_period, session_coherent
from kioko_core.store import Record

QUESTION = "Where did Mel go kayaking with the dog?"


@pytest.fixture(params=["memory", "sqlite"])
def layer(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'coherence.db'}"
    opened = kioko.connect(url, auto_link=False, embedder="offline")
    day = 86_400.0
    rows = [
        ("trip", "Mel: We went kayaking, the water was calm.", 0.0),
        ("trip", "Sam: The lake looked gorgeous in your photos!", 60.0),
        ("trip", "Mel: Next time we will bring the dog along.", 120.0),
        ("work", "Sam: My report is due on Friday and I am behind.", day),
        ("work", "Mel: Kayaking helps me unwind after a week like that.", day + 60.0),
        ("work", "Sam: I should try it when the report is done.", day + 120.0),
    ]
    opened.add_many(
        [
            {"content": text, "session_id": session, "created_at": 1_700_000_000.0 + at, "id": f"m{i}"}
            for i, (session, text, at) in enumerate(rows)
        ],
        user_id="u",
    )
    yield opened
    opened.close()


def _order(layer: Any, **options: Any) -> list[str]:
    context = layer.recall(QUESTION, user_id="u", limit=6, **options)
    return [m.record.id for m in context.memories]


def test_a_match_among_matches_of_its_session_goes_first(layer: Any) -> None:
    order = _order(layer, links=0)
    assert order.index("m0") < order.index("m4")
    found = {m.record.id: m.signals for m in layer.recall(QUESTION, user_id="u", links=0, limit=6).memories}
    assert found["m0"]["session"] > 0
    assert "session" not in found["m4"]  # alone in its session among the matches


def test_off_the_order_is_recency_among_equal_matches(layer: Any) -> None:
    order = _order(layer, links=0, config={"session_weight": 0})
    assert order.index("m4") < order.index("m0")


def test_links_followed_leave_the_order_plain(layer: Any) -> None:
    assert _order(layer, links=3) == _order(layer, links=3, config={"session_weight": 0})


def _record(memory_id: str, session: str | None) -> Record:
    return Record(id=memory_id, user_id="u", kind="episodic", content=memory_id, session_id=session)


def test_each_candidate_gains_the_best_other_of_its_session() -> None:
    records = {
        "a": _record("a", "s1"),
        "b": _record("b", "s1"),
        "c": _record("c", "s1"),
        "d": _record("d", "s2"),
        "e": _record("e", None),
    }
    lexical = {"a": 4.0, "b": 2.0, "c": 1.0, "d": 3.0, "e": 5.0}
    raised = session_coherent(lexical, records, 0.5)
    assert raised == {"a": 5.0, "b": 4.0, "c": 3.0, "d": 3.0, "e": 5.0}


def test_two_best_of_a_session_tied_each_gain_the_other() -> None:
    records = {"a": _record("a", "s"), "b": _record("b", "s")}
    assert session_coherent({"a": 2.0, "b": 2.0}, records, 0.25) == {"a": 2.5, "b": 2.5}


@pytest.mark.parametrize(
    ("question", "period"),
    [
        ("When did Melanie go camping in July?", (None, 7)),
        ("Who did Maria have dinner with on May 3, 2023?", (2023, 5)),
        ("What did she plant in May?", (None, 5)),
        ("May I ask what she planted?", (None, None)),
        ("What did Joanna accomplish in January 2022?", (2022, 1)),
        ("What happened in 2021?", (2021, None)),
        ("What did she plant last spring?", (None, None)),
    ],
)
def test_the_period_a_question_names(question: str, period: tuple[int | None, int | None]) -> None:
    assert named_period(question) == period


def test_a_match_written_in_the_named_month_goes_first(tmp_path: Path) -> None:
    layer = kioko.connect("memory://", auto_link=False, embedder="offline")
    july = datetime(2023, 7, 10, tzinfo=UTC).timestamp()
    september = datetime(2023, 9, 10, tzinfo=UTC).timestamp()
    layer.add_many(
        [
            {"content": "Mel: We went hiking up the ridge.", "created_at": july, "id": "july"},
            {"content": "Mel: We went hiking by the river.", "created_at": september, "id": "september"},
        ],
        user_id="u",
    )
    found = layer.recall("Where did Mel go hiking in July?", user_id="u", links=0, limit=2).memories
    assert [m.record.id for m in found] == ["july", "september"]
    assert found[0].signals["period"] == 1.0
    plain = layer.recall("Where did Mel go hiking in July?", user_id="u", links=0, config={"period_weight": 0})
    assert [m.record.id for m in plain.memories] == ["september", "july"]  # recency alone
    layer.close()
