""" "Right now" is the moment, not a change, and a passing state is no change said through its new state (#33, dev28):
"I'm at the station right now." after "I teach the cello privately in Bath." was stored as a change of the cello
memory (its "now" a change cue) and hid it behind "(was: ...)"; "What do I teach?" lost the cello. A change said
with "now" alone is still one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import kioko
from kioko_intelligence.slot_nearest import cued

pytest.importorskip("kioko_core.embedding.semantic")


@pytest.fixture(params=["memory", "sqlite"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "memory":
        return "memory://?embedder=semantic"
    return f"sqlite:///{tmp_path / 'moment.db'}?embedder=semantic"


@pytest.mark.parametrize(
    ("old", "moment"),
    [
        ("I teach the cello privately in Bath.", "I'm at the station right now."),
        ("I'm a court usher in Newport.", "I'm on the train right now, the signal's terrible."),
    ],
)
def test_a_moment_changes_nothing(url: str, old: str, moment: str) -> None:
    memory = kioko.intelligent(url)
    memory.record_turn(old, "Noted.", user_id="u", session_id="s1")
    memory.record_turn(moment, "Sure.", user_id="u", session_id="s1")
    contents = [r.content for r in memory.memories(user_id="u")]
    assert not any("right now" in c for c in contents), contents
    assert not any(r.metadata.get("conflicted_by") for r in memory.memories(user_id="u"))


def test_the_cue_of_the_moment() -> None:
    assert not cued("I'm at the station right now.")
    assert not cued("Just now the kettle boiled.")
    assert cued("I cycle to work now.")  # must not: "now" alone is still a change
    assert cued("We're on Community Fibre now.")
