"""The context's unsearched sections: profile, instructions, entity-graph relations, working memory."""

from __future__ import annotations

import pytest
from remote_support import served

import kioko

U = {"user_id": "kumar"}


def plant(layer) -> None:
    layer.profile.set("name", "Kumar", **U)
    layer.profile.set("role", "maintenance engineer", **U)
    layer.instructions.add("Answer in short sentences.", **U)
    layer.facts.add("Station 12 uses a Siemens drive.", **U)
    layer.goals.add("Stabilise line 3 by November 30", **U)
    layer.graph.add("Kumar", "reports to", "Krutika", **U)
    layer.graph.add("Krutika", "leads", "the Pune plant", **U)
    layer.working.set("task", "Debugging the E-217 fault on line 3", session_id="s1", **U)
    layer.working.set("ticket", "INC-4521", session_id="s1", **U)


@pytest.fixture(params=["memory", "sqlite", "remote-memory", "remote-sqlite"])
def memory(request, tmp_path):
    """The layer under test over memory:// or SQLite, or (``remote-``) a RemoteMemory to it on a live server."""
    store = request.param.removeprefix("remote-")
    url = "memory://" if store == "memory" else f"sqlite:///{tmp_path / 'sections.db'}"
    if store == request.param:
        with kioko.connect(url, intelligence=True) as layer:
            plant(layer)
            yield layer
        return
    with kioko.connect(url, auto_link=True, intelligence=True) as layer, served(layer) as remote:
        plant(remote)
        yield remote


def test_the_profile_and_instructions_open_every_context(memory) -> None:
    ctx = memory.recall("Which drive does station 12 use?", **U)
    assert ctx.text.startswith(
        "About the user:\n- User's name is Kumar.\n- User's role is maintenance engineer.\n\n"
        "Instructions:\n- Answer in short sentences.\n\nRelevant memories:\n- Station 12 uses a Siemens drive."
    )
    assert [r.content for r in ctx.sections.profile] == [
        "User's name is Kumar.",
        "User's role is maintenance engineer.",
    ]
    assert all(m.record.kind not in ("profile", "instruction") for m in ctx.memories)
    capped = memory.recall("station 12", **U, section_limits={"profile": 1, "instructions": 0})
    assert "- User's name is Kumar.\n\n" in capped.text
    assert "Instructions:" not in capped.text
    assert "role" not in capped.text
    # small talk keeps the stable part: profile, instructions, goals
    thanks = memory.recall("thanks!", **U, plan="auto")
    assert "About the user:" in thanks.text
    assert "Instructions:" in thanks.text
    assert "Open goals:" in thanks.text
    assert memory.plan("What do you know about me?", **U).section_limits["profile"] == 30


def test_working_memory_is_shown_to_its_session_only(memory) -> None:
    text = memory.recall("Which drive does station 12 use?", session_id="s1", **U).text
    assert text.endswith(
        "Working memory (this session):\n- task: Debugging the E-217 fault on line 3\n- ticket: INC-4521"
    )
    assert "Working memory" not in memory.recall("Which drive does station 12 use?", session_id="s2", **U).text
    assert "Working memory" not in memory.recall("Which drive does station 12 use?", **U).text
    assert "INC-4521" not in memory.recall("station 12", session_id="s1", user_id="asha").text
    capped = memory.recall("station 12", session_id="s1", **U, section_limits={"working": 1})
    assert "- task: Debugging" in capped.text
    assert "INC-4521" not in capped.text


def test_relations_of_what_the_question_names_come_from_the_entity_graph(memory) -> None:
    ctx = memory.recall("Who is Krutika?", **U)
    relations = "Known relations:\n- Kumar reports to Krutika\n- Krutika leads the Pune plant"
    assert relations in ctx.text
    assert ctx.text.index("Known relations:") < ctx.text.index("Open goals:")
    assert [t.line() for t in ctx.sections.relations] == ["Kumar reports to Krutika", "Krutika leads the Pune plant"]
    assert memory.plan("Who is Krutika?", **U).section_limits["graph"] == 15
    one = memory.recall("Who is Krutika?", **U, section_limits={"graph": 1})
    assert "- Kumar reports to Krutika" in one.text
    assert "leads" not in one.text
    assert memory.plan("thanks!", **U).section_limits["graph"] == 0  # small talk: no relations
    assert "Known relations:" not in memory.recall("Which drive does station 12 use?", **U).text
    # another user's graph is never read
    assert "Krutika" not in memory.recall("Who is Krutika?", user_id="asha").text
    with pytest.raises(kioko.InvalidRecordError):
        memory.recall("Who is Krutika?", **U, section_limits={"graph": -1})
