"""The recall API a user relies on: limit is the total returned, bad arguments are errors, ties are stable."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from remote_support import served

from kioko.remote.client import RemoteMemory
from kioko_backends.memory import MemoryStore
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.recall.hybrid import RecallConfig
from kioko_core.store import InvalidRecordError

U = "recall-api"
T0 = 1_700_000_000.0


def _chat(layer: MemoryLayer) -> None:
    turns = [
        ("Caroline: I went to a pottery class on Saturday.", "s1"),
        ("Melanie: What did you make?", "s1"),
        ("Caroline: A blue bowl for my mother.", "s1"),
        ("Melanie: I ran a charity race for mental health last month.", "s2"),
        ("Caroline: That is wonderful, how far was the race?", "s2"),
        ("Melanie: Five kilometres, along the river.", "s2"),
        ("Caroline: My pottery teacher says the bowl needs a second firing.", "s3"),
        ("Melanie: Pottery sounds relaxing after a long race week.", "s3"),
    ]
    layer.add_many(
        [
            {"content": text, "session_id": session, "created_at": T0 + 60 * i, "memory_type": "episodic"}
            for i, (text, session) in enumerate(turns)
        ],
        user_id=U,
    )


@pytest.fixture(params=["library", "remote"])
def layer(request: pytest.FixtureRequest) -> Iterator[MemoryLayer | RemoteMemory]:
    """The chat over memory://, called in this process or (``remote``) through RemoteMemory on a live server."""
    layer = MemoryLayer(MemoryStore(), auto_link=True)
    if request.param == "library":
        _chat(layer)
        yield layer
        return
    with served(layer) as remote:
        _chat(remote)
        yield remote
    layer.close()


@pytest.mark.parametrize("limit", [1, 2, 3, 4])
def test_limit_is_the_total_number_returned(layer: MemoryLayer, limit: int) -> None:
    for links in (0, 3):
        ctx = layer.recall("What did Caroline make in the pottery class?", user_id=U, limit=limit, links=links)
        assert len(ctx.memories) == limit, (links, [m.content for m in ctx.memories])


def test_a_linked_memory_has_a_real_score_and_counts_in_the_budget(layer: MemoryLayer) -> None:
    strict = {"min_vector_only": 0.95}  # only words and links nominate here
    ctx = layer.recall("pottery class on Saturday", user_id=U, limit=3, links=3, config=strict)
    brought = [m for m in ctx.memories if "linked" in m.signals]
    assert "Melanie: What did you make?" in [m.content for m in brought], [m.content for m in ctx.memories]
    assert all(0 < m.signals["linked"] <= 1 and m.score > 0 and "rrf" not in m.signals for m in brought)
    assert len(ctx.memories) == 3
    none = layer.recall("pottery class on Saturday", user_id=U, limit=3, links=0, config=strict)
    assert "Melanie: What did you make?" not in [m.content for m in none.memories]
    assert not any("linked" in m.signals or "graph" in m.signals for m in none.memories)


def test_the_turn_before_lifts_an_answer_that_shares_few_words(layer: MemoryLayer) -> None:
    question = "What did Caroline make in the pottery class?"
    with_links = [m.content for m in layer.recall(question, user_id=U, limit=8, links=3).memories]
    without = [m.content for m in layer.recall(question, user_id=U, limit=8, links=0).memories]
    answer = "Caroline: A blue bowl for my mother."
    assert with_links.index(answer) < without.index(answer)


def test_links_caps_the_memories_only_links_brought(layer: MemoryLayer) -> None:
    ctx = layer.recall("What did Caroline make in the pottery class?", user_id=U, limit=8, links=1)
    assert sum("linked" in m.signals for m in ctx.memories) <= 1


@pytest.mark.parametrize("bad", [0, -1, 2.5, "3", True])
def test_bad_limits_are_errors(layer: MemoryLayer, bad: object) -> None:
    with pytest.raises(InvalidRecordError):
        layer.recall("pottery", user_id=U, limit=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 1.5, "2", False])
def test_bad_links_are_errors(layer: MemoryLayer, bad: object) -> None:
    with pytest.raises(InvalidRecordError):
        layer.recall("pottery", user_id=U, links=bad)  # type: ignore[arg-type]


def test_recall_config_is_checked_and_settable_per_layer_and_call() -> None:
    with pytest.raises(InvalidRecordError, match="candidates"):
        RecallConfig(candidates=0)
    with pytest.raises(InvalidRecordError, match="unknown recall option"):
        RecallConfig.build({"candidate": 5})
    # a per-call option on a layer's own config: the same typed error, not dataclasses' TypeError
    with pytest.raises(InvalidRecordError, match="unknown recall option"):
        RecallConfig.build(RecallConfig(), **{"": []})
    with pytest.raises(InvalidRecordError, match="graph_weight"):
        RecallConfig.build({"graph_weight": float("nan")})
    layer = MemoryLayer(MemoryStore(), auto_link=True, recall_config={"limit": 2})
    _chat(layer)
    assert len(layer.recall("pottery race", user_id=U).memories) == 2
    assert len(layer.recall("pottery race", user_id=U, config={"limit": 3}).memories) == 3


def test_ties_do_not_depend_on_random_ids() -> None:
    """The same memories written twice with other ids come back in the same order."""
    orders = []
    for _ in range(3):
        layer = MemoryLayer(MemoryStore(), auto_link=True)
        layer.add_many(
            [{"content": f"Note {i}: the shared garden needs water.", "created_at": T0 + (i % 2)} for i in range(6)],
            user_id=U,
        )
        orders.append([m.content for m in layer.recall("garden water", user_id=U, limit=6).memories])
    assert orders[0] == orders[1] == orders[2]


@pytest.mark.parametrize("fusion", ["sum", "rrf"])
def test_both_fusions_return_the_answer_first(layer: MemoryLayer, fusion: str) -> None:
    ctx = layer.recall("charity race for mental health", user_id=U, limit=4, config={"fusion": fusion})
    assert len(ctx.memories) == 4
    assert ctx.memories[0].content == "Melanie: I ran a charity race for mental health last month."


def test_an_unknown_fusion_is_refused() -> None:
    with pytest.raises(InvalidRecordError, match="fusion"):
        RecallConfig(fusion="max")
