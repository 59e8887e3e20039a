"""Forgetting a subject: ``forget_about("Krutika")`` (library, REST through RemoteMemory) and "forget everything
about Krutika" said in a managed turn remove every memory that names her, the entity graph's triples of her,
the summary points and waiting session turns naming her, and never store the request itself; a dry run lists
the same things and removes nothing; another subject and another user keep theirs."""

from __future__ import annotations

from typing import Any

import pytest
from remote_support import fresh_url, serving

import kioko
from kioko_core.layer.scoped import SESSIONS_AGENT
from kioko_core.store import InvalidRecordError, Scope

U = {"user_id": "kumar"}
S = {"user_id": "kumar", "session_id": "s1"}
TURNS = [
    "I'm Kumar, I live in Pune. My manager is Krutika.",
    "Krutika prefers short status reports on Fridays.",
    "Krutika uses Jira.",
    "We decided to use Qdrant for the maintenance notes because it is fast.",
    "I'm allergic to peanuts.",
]


@pytest.fixture(params=["memory", "sqlite", "remote"])
def open_memory(request, tmp_path):
    """``open_memory()``: a new intelligent layer over memory:// or SQLite, or one served on loopback and reached
    through RemoteMemory (``layer`` is the served layer, for reading its store)."""
    if request.param != "remote":
        opened: list[Any] = []

        def build() -> tuple[Any, Any]:
            store = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'forget.db'}"
            opened.append(kioko.intelligent(store))
            return opened[-1], opened[-1]

        yield build
        for item in opened:
            item.close()
        return
    with serving() as serve:

        def build_remote() -> tuple[Any, Any]:
            layer = kioko.intelligent(fresh_url("memory", tmp_path))
            return serve(layer), layer

        yield build_remote


def stored_texts(layer: Any, user_id: str = "kumar") -> str:
    """Every text the store holds for the user: memories, the entity graph and the session logs, as one string."""
    parts = []
    for agent in (None, "@graph", SESSIONS_AGENT):
        for record in layer.store.scan(Scope(user_id, agent)):
            parts.append(record.content)
            parts.append(repr(record.metadata))
    return "\n".join(parts).lower()


def test_forget_about_lists_then_removes_everything_naming_the_subject(open_memory) -> None:
    memory, layer = open_memory()
    for turn in TURNS:
        memory.record_turn(turn, "Noted.", **S)
    memory.record_turn("Krutika's team ships on Thursdays.", "Noted.", user_id="maya", session_id="m1")
    before = stored_texts(layer)
    assert "krutika" in before

    listed = memory.forget_about("Krutika", dry_run=True, **U)
    assert listed["dry_run"] is True
    assert listed["deleted"] == 0
    assert {m["content"] for m in listed["memories"]} == {
        "User's manager is Krutika.",
        "Krutika prefers short status reports on Fridays.",
        "Krutika uses Jira.",
    }
    assert listed["relations"] == ["Krutika uses Jira"]
    assert any("log of session s1" in line for line in listed["traces"])
    assert stored_texts(layer) == before  # a dry run removes nothing

    done = memory.forget_about("Krutika", **U)
    assert done["deleted"] == 3
    assert {m["id"] for m in done["memories"]} == {m["id"] for m in listed["memories"]}
    assert "krutika" not in stored_texts(layer)
    assert memory.graph.relations("Krutika", include_invalid=True, **U) == []
    assert "Krutika" not in memory.recall("Who is Krutika?", **U).text
    kept = {r.content for r in memory.memories(**U)}
    assert {"User is allergic to peanuts.", "User's name is Kumar."} <= kept
    assert "krutika" in stored_texts(layer, "maya")  # another user's memories are theirs
    memory.end_session("s1", **U)
    assert "krutika" not in stored_texts(layer)


def test_saying_forget_everything_about_someone_forgets_them_and_stores_no_request(open_memory) -> None:
    """Through the router: each memory naming her is a memory.delete, the sweep takes her triples and logged
    turns, and neither the request nor the agent's reply reaches the session log or its summary."""
    memory, layer = open_memory()
    for turn in TURNS:
        memory.record_turn(turn, "Noted.", **S)
    report = memory.record_turn("Please forget everything about Krutika.", "Done, I have forgotten Krutika.", **S)
    deletes = [op for op in report.ops if op.op == "memory.delete"]
    assert len(deletes) == 3
    assert all(op.status == "applied" for op in deletes)
    memory.end_session("s1", **U)
    texts = stored_texts(layer)
    assert "krutika" not in texts
    assert "forget" not in texts
    assert "User is allergic to peanuts." in {r.content for r in memory.memories(**U)}


def test_a_summary_point_naming_the_subject_is_removed_and_the_others_kept(tmp_path) -> None:
    """A session summary (as the summariser writes one: its points in ``metadata.points``) loses the points naming
    the subject and keeps the others; one left with no point goes."""
    points = ["Krutika moved the review to Monday.", "The line 3 drive was replaced.", "Kumar met Krutika at noon."]
    with kioko.intelligent(f"sqlite:///{tmp_path / 'sum.db'}") as memory:
        made = memory.add(
            "Summary of session s1: " + " ".join(points),
            memory_type="summary",
            session_id="s1",
            metadata={"session_summary": True, "points": points, "summary": " ".join(points)},
            **U,
        )
        only = memory.add(
            "Summary of session s2: Krutika joined the call.",
            memory_type="summary",
            session_id="s2",
            metadata={"session_summary": True, "points": ["Krutika joined the call."]},
            **U,
        )
        listed = memory.forget_about("Krutika", dry_run=True, **U)
        assert listed["memories"] == []
        assert len(listed["traces"]) == 2
        memory.forget_about("Krutika", **U)
        after = memory.get(made.id, **U)
        assert after.content == "Summary of session s1: The line 3 drive was replaced."
        assert after.metadata["points"] == ["The line 3 drive was replaced."]
        with pytest.raises(kioko.MemoryNotFound):
            memory.get(only.id, **U)


def test_words_match_as_the_index_stems_them_and_common_words_name_nothing() -> None:
    with kioko.intelligent("memory://") as memory:
        memory.record_turn("I'm allergic to peanuts.", "Noted.", **S)
        memory.record_turn("I love hiking in the Alps.", "Noted.", **S)
        gone = memory.forget_about("my peanut allergy", **U)
        assert [m["content"] for m in gone["memories"]] == ["User is allergic to peanuts."]
        assert [r.content for r in memory.memories(**U) if r.kind in ("factual", "preference")] == [
            "User loves hiking in the Alps."
        ]
        for nothing in ("", "   ", "the", "x" * 201, 42):
            with pytest.raises(InvalidRecordError):
                memory.forget_about(nothing, **U)  # type: ignore[arg-type]
        with pytest.raises(InvalidRecordError):
            memory.forget_about("Alps", dry_run="yes", **U)  # type: ignore[arg-type]
