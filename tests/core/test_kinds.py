"""Typed memory managers on memory://: the fields the graph's structure needs, and the content they write."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from remote_support import REMOTE_SURFACES, remote_surface, server  # noqa: F401  (server: a fixture)

from kioko_backends.memory import MemoryStore
from kioko_core import kinds
from kioko_core.kinds import KindMismatch, deterministic_id
from kioko_core.layer.memory_layer import MemoryLayer, MemoryNotFound
from kioko_core.linking.links import LINKABLE_KINDS, link_entries
from kioko_core.store import InvalidRecordError, Record, Scope

U = "kumar"
OTHER = "krutika"


SURFACES = ("library", *REMOTE_SURFACES)
LIBRARY_ONLY = pytest.mark.parametrize("memory", ["library"], indirect=True)
"""For a test that reaches under the surface (the store, the managers' classes) or was never run over HTTP."""


def _surface(request: pytest.FixtureRequest, tmp_path: Path, *, auto_link: bool) -> Iterator[MemoryLayer]:
    if request.param == "library":
        layer = MemoryLayer(MemoryStore(), auto_link=auto_link)
        yield layer
        layer.close()
        return
    with remote_surface(request, request.param, tmp_path, auto_link=auto_link) as remote:
        yield remote  # a RemoteMemory: the same calls over HTTP


@pytest.fixture(params=SURFACES)
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryLayer]:
    """A linking layer on the reference store with the typed managers attached; ``remote-<store>``: a new
    store of that kind served on loopback, through RemoteMemory."""
    yield from _surface(request, tmp_path, auto_link=True)


@pytest.fixture(params=SURFACES)
def plain(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryLayer]:
    """A layer that does not link (spec: a plain MemoryLayer stores memories without linking them)."""
    yield from _surface(request, tmp_path, auto_link=False)


def links_between(memory: MemoryLayer, a: str, b: str) -> list[Any]:
    return [link for link in memory.graph.links(a, user_id=U) if b in (link.source, link.target)]


def entry(record: Record, other: str) -> dict[str, Any] | None:
    return next((e for e in link_entries(record) if e["id"] == other), None)


# --------------------------------------------------------------------------- wiring


@LIBRARY_ONLY
def test_every_manager_is_declared_and_lessons_is_strategies(memory: MemoryLayer) -> None:
    """Every manager the issue names is an attribute of the layer; lessons and strategies are one manager."""
    for name in (
        "goals",
        "decisions",
        "procedures",
        "strategies",
        "skills",
        "episodes",
        "facts",
        "preferences",
        "knowledge",
        "insights",
        "summaries",
        "profile",
        "instructions",
        "working",
    ):
        assert isinstance(getattr(memory, name), kinds.MANAGERS[name]), name
    assert memory.lessons is memory.strategies


@pytest.mark.parametrize(
    "name, kind",
    [
        ("goals", "goal"),
        ("decisions", "decision"),
        ("strategies", "strategy"),
        ("skills", "skill"),
        ("episodes", "episodic"),
        ("facts", "factual"),
        ("preferences", "preference"),
        ("knowledge", "semantic"),
        ("insights", "insight"),
        ("summaries", "summary"),
        ("instructions", "instruction"),
    ],
)
def test_text_managers_store_their_memory_type(memory: MemoryLayer, name: str, kind: str) -> None:
    """Each manager writes its own memory_type, so the linker and recall treat it as that kind."""
    record = getattr(memory, name).add("The line 3 conveyor jammed twice this morning", user_id=U)
    assert record.kind == kind
    assert memory.get(record.id, user_id=U).kind == kind


# --------------------------------------------------------------------------- goals


def test_goal_content_title_and_open_status(memory: MemoryLayer) -> None:
    """A goal reads "Goal: <title>." and keeps the title, status, progress and due date in metadata."""
    goal = memory.goals.add("Ship the Kioko memory layer by December 15", user_id=U, due="2025-12-15")
    assert goal.content == "Goal: Ship the Kioko memory layer by December 15."
    assert goal.metadata["title"] == "Ship the Kioko memory layer by December 15"
    assert goal.metadata["status"] == "open"
    assert goal.metadata["progress"] == 0.0
    assert goal.metadata["due"] == "2025-12-15"
    again = memory.goals.add("Goal: Pass the Azure exam.", user_id=U, due=datetime(2026, 3, 31).date())
    assert again.content == "Goal: Pass the Azure exam."
    assert again.metadata["title"] == "Pass the Azure exam"
    assert again.metadata["due"] == "2026-03-31"


def test_goal_with_parent_is_part_of_the_parent(memory: MemoryLayer) -> None:
    """A sub-goal gets a structural part_of link to its parent, stored on both goals, that never fades."""
    parent = memory.goals.add("Ship the Kioko memory layer by December 15", user_id=U)
    child = memory.goals.add("Write the driver author's guide", user_id=U, parent=parent.id)
    assert child.metadata["parent"] == parent.id
    [link] = links_between(memory, child.id, parent.id)
    assert (link.source, link.target, link.type, link.by) == (child.id, parent.id, "part_of", "structure")
    assert link.line() == (
        'goal "Write the driver author\'s guide" is part of goal "Ship the Kioko memory layer by December 15"'
    )
    stored_parent = memory.get(parent.id, user_id=U)
    assert entry(stored_parent, child.id)["dir"] == "in"
    assert [g.id for g in memory.goals.subgoals(parent.id, user_id=U)] == [child.id]


def test_goal_parent_must_be_a_goal_of_the_same_user(memory: MemoryLayer) -> None:
    """A parent that is missing, of another kind or another user's is refused before anything is written."""
    decision = memory.decisions.add("use pgvector", user_id=U)
    theirs = memory.goals.add("Run a marathon", user_id=OTHER)
    with pytest.raises(MemoryNotFound):
        memory.goals.add("Sub-goal", user_id=U, parent="no-such-goal")
    with pytest.raises(KindMismatch):
        memory.goals.add("Sub-goal", user_id=U, parent=decision.id)
    with pytest.raises(MemoryNotFound):
        memory.goals.add("Sub-goal", user_id=U, parent=theirs.id)
    assert memory.goals.list(user_id=U) == []


def test_goal_progress_complete_drop_and_open(memory: MemoryLayer) -> None:
    """Progress is a fraction with notes; complete and drop take a goal out of the open goals."""
    first = memory.goals.add("Stabilise line 3 by November 30", user_id=U)
    second = memory.goals.add("Pass the Azure AI Engineer exam by March 31", user_id=U)
    third = memory.goals.add("Learn Rust", user_id=U)

    moved = memory.goals.progress(first.id, 0.6, user_id=U, note="60% done with stabilising line 3")
    assert moved.metadata["progress"] == 0.6
    assert moved.metadata["status"] == "open"
    assert moved.metadata["notes"][-1]["text"] == "60% done with stabilising line 3"
    noted = memory.goals.progress(first.id, user_id=U, note="replaced the encoder cable")
    assert noted.metadata["progress"] == 0.6
    assert len(noted.metadata["notes"]) == 2

    done = memory.goals.complete(second.id, user_id=U)
    assert done.metadata["status"] == "done"
    assert done.metadata["progress"] == 1.0
    dropped = memory.goals.drop(third.id, user_id=U, reason="no time")
    assert dropped.metadata["status"] == "dropped"
    assert dropped.metadata["reason"] == "no time"
    assert [g.id for g in memory.goals.open(user_id=U)] == [first.id]

    finished = memory.goals.progress(first.id, 1.0, user_id=U)
    assert finished.metadata["status"] == "done"
    assert memory.goals.open(user_id=U) == []
    assert memory.goals.reopen(third.id, user_id=U).metadata["status"] == "open"
    assert [g.id for g in memory.goals.open(user_id=U)] == [third.id]


def test_goal_progress_refuses_bad_input(memory: MemoryLayer) -> None:
    """Progress out of [0, 1], nothing to record, or a closed goal: a clear error and no change."""
    goal = memory.goals.add("Stabilise line 3", user_id=U)
    for bad in (60, -0.1, True, "60%"):
        with pytest.raises(InvalidRecordError):
            memory.goals.progress(goal.id, bad, user_id=U)
    with pytest.raises(InvalidRecordError):
        memory.goals.progress(goal.id, user_id=U)
    memory.goals.drop(goal.id, user_id=U)
    with pytest.raises(InvalidRecordError, match="reopen"):
        memory.goals.progress(goal.id, 0.5, user_id=U)
    assert memory.get(goal.id, user_id=U).metadata["progress"] == 0.0


def test_goal_status_change_keeps_its_structural_link(memory: MemoryLayer) -> None:
    """Completing a sub-goal (a metadata-only change) keeps its part_of link."""
    parent = memory.goals.add("Ship the Kioko memory layer by December 15", user_id=U)
    child = memory.goals.add("Write the driver author's guide", user_id=U, parent=parent.id)
    memory.goals.complete(child.id, user_id=U)
    assert [link.type for link in links_between(memory, child.id, parent.id)] == ["part_of"]


# --------------------------------------------------------------------------- decisions


def _served_goal(memory: MemoryLayer) -> tuple[Record, Record]:
    """Section 1's goal and the decision that serves it through the entity graph (Kioko uses pgvector)."""
    goal = memory.goals.add("Ship the Kioko memory layer by December 15", user_id=U)
    memory.graph.add("Kioko", "uses", "pgvector", user_id=U)
    decision = memory.decisions.add("Vector database - chose pgvector because we already run Postgres", user_id=U)
    [link] = links_between(memory, decision.id, goal.id)
    assert (link.type, link.source, link.target) == ("serves", decision.id, goal.id)
    return goal, decision


def test_decision_content_keeps_or_adds_the_framing(memory: MemoryLayer) -> None:
    """Decisions read "Decision: ..."; text that already says "We decided ..." is kept as written."""
    plain = memory.decisions.add(
        "use Qdrant for the maintenance notes because it is fast",
        user_id=U,
        chosen="Qdrant",
        options=["Qdrant", "pgvector"],
        rationale="it is fast",
    )
    assert plain.content == "Decision: use Qdrant for the maintenance notes because it is fast."
    assert plain.metadata["chosen"] == "Qdrant"
    assert plain.metadata["options"] == ["Qdrant", "pgvector"]
    said = memory.decisions.add("We decided to use pgvector because we already run Postgres.", user_id=U)
    assert said.content == "We decided to use pgvector because we already run Postgres."


def test_supersede_links_and_moves_the_served_goal(memory: MemoryLayer) -> None:
    """supersede: new supersedes old (structure); the goal the old one served is now served by the new one,
    and the old decision keeps only its supersedes link."""
    goal, old = _served_goal(memory)
    new = memory.decisions.supersede(old.id, "switch the vector store to Qdrant because it is managed", user_id=U)
    assert new.metadata["supersedes"] == old.id

    [sup] = links_between(memory, new.id, old.id)
    assert (sup.source, sup.target, sup.type, sup.by) == (new.id, old.id, "supersedes", "structure")
    [served] = links_between(memory, new.id, goal.id)
    assert (served.source, served.target, served.type) == (new.id, goal.id, "serves")
    assert served.taken_from == old.id
    assert served.weight == pytest.approx(0.9 * 0.6, abs=0.01)

    old_now = memory.get(old.id, user_id=U)
    assert [(e["id"], e["type"]) for e in link_entries(old_now)] == [(new.id, "supersedes")]
    assert old_now.metadata["superseded_by"] == new.id
    assert entry(memory.get(goal.id, user_id=U), old.id) is None
    assert [d.id for d in memory.decisions.current(user_id=U)] == [new.id]
    assert [d.id for d in memory.decisions.chain(old.id, user_id=U)] == [old.id, new.id]


def test_supersede_twice_names_the_newer_decision(memory: MemoryLayer) -> None:
    """A decision that was already replaced cannot be replaced again; the error says by which one."""
    old = memory.decisions.add("use Qdrant", user_id=U)
    new = memory.decisions.supersede(old.id, "use pgvector", user_id=U)
    with pytest.raises(InvalidRecordError, match=new.id):
        memory.decisions.supersede(old.id, "use SQLite", user_id=U)
    with pytest.raises(KindMismatch):
        memory.decisions.supersede(memory.goals.add("Ship Kioko", user_id=U).id, "use SQLite", user_id=U)
    assert [d.id for d in memory.decisions.current(user_id=U)] == [new.id]


def test_supersede_without_linking_still_retires_the_old_decision(plain: MemoryLayer) -> None:
    """With linking off there is no takeover, but the old decision is marked and leaves current()."""
    old = plain.decisions.add("use Qdrant", user_id=U)
    new = plain.decisions.supersede(old.id, "use pgvector", user_id=U)
    assert plain.get(old.id, user_id=U).metadata["superseded_by"] == new.id
    assert [d.id for d in plain.decisions.current(user_id=U)] == [new.id]


def test_decision_outcome_counts(memory: MemoryLayer) -> None:
    decision = memory.decisions.add("use pgvector", user_id=U)
    memory.decisions.outcome(decision.id, True, user_id=U)
    after = memory.decisions.outcome(decision.id, False, user_id=U, note="slow on 10M rows")
    assert (after.metadata["successes"], after.metadata["failures"]) == (1, 1)
    assert after.metadata["notes"][-1]["text"] == "slow on 10M rows"


# --------------------------------------------------------------------------- procedures, lessons, skills


def test_procedure_content_is_title_and_numbered_steps(memory: MemoryLayer) -> None:
    """The spec's section 1 procedure, to the character; steps lose stray numbers and full stops."""
    procedure = memory.procedures.add(
        "Clear a conveyor jam on line 3",
        ["Press stop", "Open the guard.", "3) Remove the jammed bottle", " Reset the drive "],
        user_id=U,
    )
    assert procedure.content == (
        "Clear a conveyor jam on line 3: 1) Press stop; 2) Open the guard; "
        "3) Remove the jammed bottle; 4) Reset the drive"
    )
    assert procedure.metadata["title"] == "Clear a conveyor jam on line 3"
    assert procedure.metadata["steps"] == [
        "Press stop",
        "Open the guard",
        "Remove the jammed bottle",
        "Reset the drive",
    ]
    assert (procedure.metadata["successes"], procedure.metadata["failures"]) == (0, 0)


def test_lesson_refines_procedure_with_the_spec_labels(memory: MemoryLayer) -> None:
    """Section 1's link line: the lesson's content label and the procedure's title label."""
    procedure = memory.procedures.add(
        "Clear a conveyor jam on line 3",
        ["Press stop", "Open the guard", "Remove the jammed bottle", "Reset the drive"],
        user_id=U,
    )
    lesson = memory.lessons.add(
        "reset the drive before reopening the guard", user_id=U, context="clearing conveyor jams"
    )
    assert lesson.content == "For clearing conveyor jams: reset the drive before reopening the guard"
    assert lesson.kind == "strategy"
    assert lesson.metadata["context"] == "clearing conveyor jams"
    [link] = links_between(memory, lesson.id, procedure.id)
    assert link.line() == (
        'lesson "For clearing conveyor jams: reset the drive before reopenin…" refines '
        'procedure "Clear a conveyor jam on line 3"'
    )


def test_procedure_outcome_and_update(memory: MemoryLayer) -> None:
    procedure = memory.procedures.add("Reset the safety relay", ["Switch off the breaker", "Press reset"], user_id=U)
    memory.procedures.outcome(procedure.id, True, user_id=U)
    memory.procedures.outcome(procedure.id, True, user_id=U)
    after = memory.procedures.outcome(procedure.id, False, user_id=U, note="relay was welded")
    assert (after.metadata["successes"], after.metadata["failures"]) == (2, 1)
    assert after.metadata["last_outcome"] == "failed"
    changed = memory.procedures.update(
        procedure.id, user_id=U, steps=["Switch off the breaker", "Press reset for 5 seconds", "Switch on"]
    )
    assert changed.content == (
        "Reset the safety relay: 1) Switch off the breaker; 2) Press reset for 5 seconds; 3) Switch on"
    )
    assert changed.metadata["successes"] == 2
    assert changed.metadata["history"][-1]["content"] == procedure.content


@pytest.mark.parametrize("steps", [[], "Press stop", ["Press stop", "  "], [1, 2]])
def test_procedure_needs_real_steps(memory: MemoryLayer, steps: Any) -> None:
    with pytest.raises(InvalidRecordError):
        memory.procedures.add("Clear a jam", steps, user_id=U)


def test_strategy_and_skill_outcomes(memory: MemoryLayer) -> None:
    lesson = memory.strategies.add("check the cable first when debugging drives", user_id=U)
    skill = memory.skills.add("Summarise alarm logs with the incident template", user_id=U, title="Alarm log summary")
    assert memory.strategies.outcome(lesson.id, True, user_id=U).metadata["successes"] == 1
    assert memory.skills.outcome(skill.id, False, user_id=U).metadata["failures"] == 1
    assert skill.metadata["title"] == "Alarm log summary"
    with pytest.raises(InvalidRecordError):
        memory.skills.outcome(skill.id, "yes", user_id=U)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- insights and summaries


def test_insight_is_derived_from_its_evidence(memory: MemoryLayer) -> None:
    """An insight with evidence gets a structural derived_from link to each piece of evidence."""
    first = memory.episodes.add("Line 3 keeps faulting with error E-217.", user_id=U, session_id="s1")
    second = memory.episodes.add("The drive on line 3 tripped again overnight.", user_id=U, session_id="s2")
    insight = memory.insights.add(
        "Line 3's drive faults recur every few days", user_id=U, evidence=[first.id, second.id]
    )
    assert insight.metadata["evidence"] == [first.id, second.id]
    for episode in (first, second):
        [link] = links_between(memory, insight.id, episode.id)
        assert (link.source, link.target, link.type, link.by) == (insight.id, episode.id, "derived_from", "structure")


def test_summary_is_derived_from_its_episodes(memory: MemoryLayer) -> None:
    episode = memory.episodes.add("Swapped the encoder cable on line 3.", user_id=U)
    summary = memory.summaries.add("Week 12: line 3 encoder work", user_id=U, episodes=[episode.id])
    assert summary.kind == "summary"
    assert summary.metadata["episodes"] == [episode.id]
    assert [link.type for link in links_between(memory, summary.id, episode.id)] == ["derived_from"]


def test_evidence_must_exist_in_the_scope(memory: MemoryLayer) -> None:
    """Evidence that is missing or another user's is refused; nothing is written."""
    theirs = memory.episodes.add("Krutika ran 10 km.", user_id=OTHER)
    with pytest.raises(MemoryNotFound):
        memory.insights.add("A theme", user_id=U, evidence=[theirs.id])
    with pytest.raises(InvalidRecordError):
        memory.insights.add("A theme", user_id=U, evidence="not-a-list")  # type: ignore[arg-type]
    assert memory.insights.list(user_id=U) == []


# --------------------------------------------------------------------------- profile, instructions, working


def test_profile_set_replaces_one_record_per_slot(memory: MemoryLayer) -> None:
    """set writes one record per slot: a second set replaces the value under the same id."""
    first = memory.profile.set("location", "Pune", user_id=U)
    assert first.content == "User's location is Pune."
    assert first.kind == "profile"
    second = memory.profile.set("Location", "Hyderabad", user_id=U)
    assert second.id == first.id == deterministic_id("profile", Scope(U), "location")
    assert memory.profile.get("location", user_id=U) == "Hyderabad"
    assert len(memory.profile.list(user_id=U)) == 1
    memory.profile.set("phone number", "+91 98xxxx", user_id=U)
    assert memory.profile.all(user_id=U) == {"location": "Hyderabad", "phone_number": "+91 98xxxx"}
    assert memory.profile.remove("phone_number", user_id=U) is True
    assert memory.profile.remove("phone_number", user_id=U) is False
    assert memory.profile.get("phone_number", user_id=U, default="?") == "?"


def test_profile_slots_are_per_user_and_never_linked(memory: MemoryLayer) -> None:
    """Two users' slots of the same name are different records; profile records carry no terms or links."""
    mine = memory.profile.set("name", "Kumar", user_id=U)
    theirs = memory.profile.set("name", "Krutika", user_id=OTHER)
    assert mine.id != theirs.id
    assert memory.profile.get("name", user_id=U) == "Kumar"
    memory.facts.add("User's name is Kumar and he lives in Pune.", user_id=U)
    stored = memory.get(mine.id, user_id=U)
    assert stored.terms == []
    assert link_entries(stored) == []
    with pytest.raises(InvalidRecordError):
        memory.profile.set("", "x", user_id=U)
    with pytest.raises(InvalidRecordError):
        memory.profile.set("name", {"first": "Kumar"}, user_id=U)  # type: ignore[arg-type]


def test_working_memory_is_per_session(memory: MemoryLayer) -> None:
    """Each session has its own scratchpad; set replaces, clear empties one session only."""
    memory.working.set("ticket", "INC-4521", user_id=U, session_id="s1")
    memory.working.set("error", "E-217", user_id=U, session_id="s1")
    memory.working.set("ticket", "INC-9000", user_id=U, session_id="s2")
    memory.working.set("ticket", "INC-4522", user_id=U, session_id="s1")
    assert memory.working.all(user_id=U, session_id="s1") == {"ticket": "INC-4522", "error": "E-217"}
    assert memory.working.get("ticket", user_id=U, session_id="s2") == "INC-9000"
    assert memory.working.get("ticket", user_id=OTHER, session_id="s1") is None
    assert memory.working.remove("error", user_id=U, session_id="s1") is True
    assert memory.working.clear(user_id=U, session_id="s1") == 1
    assert memory.working.all(user_id=U, session_id="s1") == {}
    assert memory.working.all(user_id=U, session_id="s2") == {"ticket": "INC-9000"}
    with pytest.raises(InvalidRecordError, match="session"):
        memory.working.set("ticket", "INC-1", user_id=U, session_id=None)  # type: ignore[arg-type]


def test_working_memory_is_never_linked_and_can_be_promoted(memory: MemoryLayer) -> None:
    slot = memory.working.set("root cause", "loose encoder cable on line 3", user_id=U, session_id="s1")
    assert slot.content == "root cause: loose encoder cable on line 3"
    assert slot.terms == []
    assert link_entries(memory.get(slot.id, user_id=U)) == []
    kept = memory.working.promote("root_cause", user_id=U, session_id="s1")
    assert kept.kind == "episodic"
    assert kept.content == slot.content
    assert kept.session_id == "s1"
    assert memory.working.all(user_id=U, session_id="s1") == {}


def test_instructions_add_list_remove(memory: MemoryLayer) -> None:
    rule = memory.instructions.add("Always answer in German.", user_id=U)
    assert rule.kind == "instruction"
    assert rule.terms == []
    assert [r.id for r in memory.instructions.list(user_id=U)] == [rule.id]
    assert memory.instructions.remove(rule.id, user_id=U) is True
    assert memory.instructions.list(user_id=U) == []


# --------------------------------------------------------------------------- created_at, kinds, updates

WHEN = 1_700_000_000.0

ADDS: list[tuple[str, Callable[[MemoryLayer, Any], Record]]] = [
    ("goals", lambda m, t: m.goals.add("Ship Kioko", user_id=U, created_at=t)),
    ("decisions", lambda m, t: m.decisions.add("use pgvector", user_id=U, created_at=t)),
    (
        "supersede",
        lambda m, t: m.decisions.supersede(
            m.decisions.add("use Qdrant", user_id=U).id, "use pgvector", user_id=U, created_at=t
        ),
    ),
    ("procedures", lambda m, t: m.procedures.add("Clear a jam", ["Press stop"], user_id=U, created_at=t)),
    ("strategies", lambda m, t: m.strategies.add("check the cable first", user_id=U, created_at=t)),
    ("skills", lambda m, t: m.skills.add("Summarise alarm logs", user_id=U, created_at=t)),
    ("episodes", lambda m, t: m.episodes.add("Line 3 jammed.", user_id=U, session_id="s1", created_at=t)),
    ("facts", lambda m, t: m.facts.add("User has two kids.", user_id=U, created_at=t)),
    ("preferences", lambda m, t: m.preferences.add("User likes green tea.", user_id=U, created_at=t)),
    ("knowledge", lambda m, t: m.knowledge.add("OPC UA listens on port 4840.", user_id=U, created_at=t)),
    ("insights", lambda m, t: m.insights.add("Line 3 faults recur.", user_id=U, created_at=t)),
    ("summaries", lambda m, t: m.summaries.add("Week 12 on line 3.", user_id=U, created_at=t)),
    ("instructions", lambda m, t: m.instructions.add("Answer in German.", user_id=U, created_at=t)),
    ("profile", lambda m, t: m.profile.set("name", "Kumar", user_id=U, created_at=t)),
    ("working", lambda m, t: m.working.set("ticket", "INC-4521", user_id=U, session_id="s1", created_at=t)),
]


@pytest.mark.parametrize("name, add", ADDS, ids=[name for name, _ in ADDS])
def test_every_add_accepts_created_at(
    memory: MemoryLayer, name: str, add: Callable[[MemoryLayer, Any], Record]
) -> None:
    """created_at given to any typed add is what the store keeps (a number or a datetime)."""
    record = add(memory, WHEN)
    assert record.created_at == WHEN
    assert memory.get(record.id, user_id=U).created_at == WHEN
    dated = add(memory, datetime.fromtimestamp(WHEN + 60, tz=UTC))
    assert memory.get(dated.id, user_id=U).created_at == WHEN + 60


def test_created_at_of_the_wrong_type_is_refused(memory: MemoryLayer) -> None:
    with pytest.raises(InvalidRecordError, match="created_at"):
        memory.facts.add("User has two kids.", user_id=U, created_at="yesterday")


def test_linkable_and_not_linked_memory_types(memory: MemoryLayer) -> None:
    """The managers' memory_types are exactly the spec's linkable kinds plus instruction, working, profile."""
    linkable = {
        m.kind
        for m in (
            memory.goals,
            memory.decisions,
            memory.procedures,
            memory.strategies,
            memory.skills,
            memory.episodes,
            memory.facts,
            memory.preferences,
            memory.knowledge,
            memory.insights,
            memory.summaries,
        )
    }
    assert (
        linkable
        == set(LINKABLE_KINDS)
        == {
            "factual",
            "preference",
            "episodic",
            "semantic",
            "goal",
            "procedural",
            "skill",
            "strategy",
            "decision",
            "insight",
            "summary",
        }
    )
    assert {memory.instructions.kind, memory.working.kind, memory.profile.kind} == {"instruction", "working", "profile"}


def test_agent_and_session_and_metadata_are_passed_through(memory: MemoryLayer) -> None:
    """agent_id scopes the memory, session_id and the caller's metadata are kept (typed fields win)."""
    goal = memory.goals.add(
        "Ship Kioko", user_id=U, agent_id="planner", session_id="s9", metadata={"source": "chat", "status": "bogus"}
    )
    assert goal.agent_id == "planner"
    assert goal.session_id == "s9"
    assert goal.metadata["source"] == "chat"
    assert goal.metadata["status"] == "open"
    with pytest.raises(MemoryNotFound):
        memory.goals.get(goal.id, user_id=U)  # another scope than (kumar, planner)
    assert [g.id for g in memory.goals.open(user_id=U, agent_id="planner")] == [goal.id]


def test_fact_update_keeps_the_old_value_in_history(memory: MemoryLayer) -> None:
    fact = memory.facts.add("User has two kids.", user_id=U)
    updated = memory.facts.update(fact.id, user_id=U, text="User has three kids.")
    assert updated.content == "User has three kids."
    assert updated.metadata["history"][0]["content"] == "User has two kids."
    assert memory.facts.verify(fact.id, user_id=U).metadata["verified_at"] > 0


def test_managers_refuse_other_kinds(memory: MemoryLayer) -> None:
    """A decision id given to goals is a KindMismatch, and nothing changes or goes."""
    decision = memory.decisions.add("use pgvector", user_id=U)
    with pytest.raises(KindMismatch):
        memory.goals.complete(decision.id, user_id=U)
    with pytest.raises(KindMismatch):
        memory.instructions.remove(decision.id, user_id=U)
    assert memory.get(decision.id, user_id=U).content == decision.content
    assert memory.goals.delete("missing", user_id=U) is False
    assert memory.decisions.delete(decision.id, user_id=U) is True


def _supersede_twice_at_once(memory: MemoryLayer, old_id: str) -> list[Any]:
    """Two threads supersede ``old_id`` past one barrier; each answer is the new id or the error raised."""
    import threading

    from kioko_core.errors import ConflictError

    gate, answers = threading.Barrier(2), []

    def supersede(text: str) -> None:
        gate.wait()
        try:
            answers.append(memory.decisions.supersede(old_id, text, user_id=U).id)
        except (ConflictError, InvalidRecordError) as error:
            answers.append(error)

    threads = [
        threading.Thread(target=supersede, args=(text,))
        for text in ("switch to pgvector because we run Postgres", "switch to SQLite because it is embedded")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_two_supersedes_at_the_same_moment_leave_one_decision_in_force(tmp_path) -> None:
    """Both calls pass the "not superseded yet" check; the first to mark the old decision wins, the other
    takes its new decision back and raises, so the chain stays one line (a race: tried 12 times)."""
    import kioko

    for trial in range(12):
        with kioko.connect(f"sqlite:///{tmp_path / f'race{trial}.db'}") as memory:
            for i in range(20):
                memory.add(f"Note {i} about the vector store for the maintenance notes", user_id=U)
            old = memory.decisions.add("use Qdrant for the maintenance notes because it is fast", user_id=U)
            answers = _supersede_twice_at_once(memory, old.id)
            kept = [a for a in answers if isinstance(a, str)]
            assert len(kept) == 1, answers
            assert len(answers) == 2, answers
            assert [d.id for d in memory.decisions.current(user_id=U)] == kept
            assert memory.get(old.id, user_id=U).metadata["superseded_by"] == kept[0]
            assert [d.id for d in memory.decisions.chain(old.id, user_id=U)] == [old.id, kept[0]]
            assert len(memory.decisions.list(user_id=U)) == 2  # the loser's decision is gone, not left over
