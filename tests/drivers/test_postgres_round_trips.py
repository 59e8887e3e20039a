"""Round trips of a recall on postgresql:// (issue 34): a warm recall sends the server one read of the generations
of the scopes it reads (the user's and their entity graph's, :func:`kioko_core.linking.index.read_ahead`) and, when
the vector search runs, its one pipeline; nothing else. Counted by the driver (``PostgresStore.round_trips``), never
timed. What another handle writes meanwhile is still seen by the next recall."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

import kioko

pytest.importorskip("psycopg", reason="the postgres extra is not installed")

USER = "kumar"
QUESTIONS = ("What did Kumar do about Line 3 on press 4?", "Which seal does press 4 need checked?")


@pytest.fixture
def url(postgresql_store_url: str, postgres_service: object) -> str:
    import services

    database = services.postgres_database(postgres_service, "kioko_round_trips")  # type: ignore[arg-type]
    return database + ("&" if "?" in database else "?") + f"table=rt_{uuid.uuid4().hex[:8]}"


@pytest.fixture(params=["no graph", "graph"])
def layer(request: pytest.FixtureRequest, url: str) -> Iterator[kioko.MemoryLayer]:
    with kioko.connect(url, auto_link=False, embedder="offline") as memory:
        if request.param == "graph":  # the entity graph holds names the questions use: its counts are read too
            memory.entities.add("Kumar", "maintains", "Line 3", user_id=USER)
        memory.add_many(
            [
                {"content": "Line 3 jammed again at the infeed", "memory_type": "episodic"},
                {"content": "Kumar reseated the sensor on Line 3", "memory_type": "episodic"},
                {"content": "Press 4 needs its seal checked weekly", "memory_type": "episodic"},
            ],
            user_id=USER,
        )
        yield memory


def round_trips(layer: kioko.MemoryLayer, question: str) -> tuple[int, int]:
    """The round trips one recall of ``question`` sent, and how many of them were the vector search."""
    store = layer.store
    before, knn_before = store.round_trips.total(), store.round_trips["knn"]
    layer.recall(question, user_id=USER, links=0)
    return store.round_trips.total() - before, store.round_trips["knn"] - knn_before


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_warm_recall_reads_the_generations_once_and_searches_the_vectors_once(
    layer: kioko.MemoryLayer, question: str
) -> None:
    round_trips(layer, question)  # the first ask reads the question's postings
    sent, knn = round_trips(layer, question)
    assert knn <= 1
    assert sent == 1 + knn, "one read of the scopes' generations, and the vector search's pipeline when it runs"


def test_another_handles_write_is_seen_by_the_next_recall(layer: kioko.MemoryLayer, url: str) -> None:
    question = "Who calibrated the torque wrench?"
    layer.recall(question, user_id=USER, links=0)
    with kioko.connect(url, auto_link=False, embedder="offline") as other:
        written = other.add("Ines calibrated the torque wrench on Friday", user_id=USER, memory_type="episodic")
    found = [m.record.id for m in layer.recall(question, user_id=USER, links=0).memories]
    assert written.id in found
