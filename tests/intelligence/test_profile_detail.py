"""Where the user holds a job, said with the job, stays with the job's slot (#33): "I'm a receptionist at a vet
practice in Truro" set the job title alone and lost the rest, so "Where do I work?" found nothing. The rest of the
clause is the slot's detail ("User's job title is receptionist, at a vet practice in Truro."), replaced with the
value when the job changes, so it never outlives the job it was said of.

Real layers on memory:// and a SQLite file, driven through record_turn and recall.
"""

from __future__ import annotations

import pytest

import kioko

U = {"user_id": "tamsin"}


@pytest.fixture(params=["memory", "sqlite"])
def memory(request, tmp_path):
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'detail.db'}"
    with kioko.intelligent(url) as layer:
        yield layer


def _job_line(memory) -> str:
    record = memory.profile.record("job_title", **U)
    assert record is not None
    return record.content


@pytest.mark.parametrize(
    ("said", "value", "detail"),
    [
        ("I'm a receptionist at a vet practice in Truro.", "receptionist", "at a vet practice in Truro"),
        ("I'm a staff nurse in Dubai, originally from Cebu.", "staff nurse", "in Dubai"),
        ("I'm a sound engineer at the Playhouse in Leeds.", "sound engineer", "at the Playhouse in Leeds"),
        ("I am a teacher at a primary school in Wigan.", "teacher", "at a primary school in Wigan"),
    ],
)
def test_where_a_job_is_held_is_kept_with_the_job(memory, said, value, detail) -> None:
    memory.record_turn(said, "Noted.", session_id="s1", **U)
    assert memory.profile.get("job_title", **U) == value
    assert detail in _job_line(memory)
    text = memory.recall("Where do I work?", session_id="p", **U).text
    assert detail in text


def test_the_detail_leaves_with_the_job_it_was_said_of(memory) -> None:
    memory.record_turn("I'm a receptionist at a vet practice in Truro.", "Noted.", session_id="s1", **U)
    memory.record_turn("I'm a paramedic now.", "Noted.", session_id="s2", **U)
    assert memory.profile.get("job_title", **U) == "paramedic"
    assert "Truro" not in _job_line(memory)
    assert "Truro" not in memory.recall("What do I do for work?", session_id="p", **U).text


def test_a_named_employer_is_still_its_own_slot(memory) -> None:
    memory.record_turn("I'm a data engineer at Zalando.", "Noted.", session_id="s1", **U)
    assert memory.profile.get("job_title", **U) == "data engineer"
    assert memory.profile.get("employer", **U) == "Zalando"
    assert _job_line(memory) == "User's job title is data engineer."


def test_a_job_said_alone_has_no_detail(memory) -> None:
    memory.record_turn("I'm a nurse.", "Noted.", session_id="s1", **U)
    assert _job_line(memory) == "User's job title is nurse."


def test_the_core_profile_reads_a_detail_from_its_metadata(tmp_path) -> None:
    with kioko.connect(f"sqlite:///{tmp_path / 'core.db'}") as layer:
        layer.profile.set("job_title", "farrier", metadata={"detail": "for the King's Troop."}, **U)
        assert layer.profile.record("job_title", **U).content == "User's job title is farrier, for the King's Troop."
        layer.profile.set("job_title", "blacksmith", **U)
        assert layer.profile.record("job_title", **U).content == "User's job title is blacksmith."
