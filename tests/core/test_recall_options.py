"""RecallOptions: one frozen value for recall's knobs (the surfaces' use of it is in tests/service/test_surface.py)."""

from __future__ import annotations

import dataclasses

import pytest

import kioko
from kioko import RecallOptions
from kioko_core.store import InvalidRecordError


def test_frozen_and_keywords_win() -> None:
    options = RecallOptions(limit=4, links=0, section_limits={"procedures": 0}, fill_recent=["decisions"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.limit = 5  # type: ignore[misc]
    assert options.fill_recent == ("decisions",)
    with pytest.raises(TypeError):
        options.section_limits["procedures"] = 3  # type: ignore[index]
    merged = RecallOptions.merge(options, limit=8, links=None, include_shared=False)
    assert (merged.limit, merged.links, merged.include_shared) == (8, 0, False)
    assert RecallOptions.merge(None, include_shared=True).include_shared is True
    assert options.replace(limit=2).limit == 2
    assert options.limit == 4


@pytest.mark.parametrize(
    "bad",
    [{"limit": -1}, {"links": True}, {"limit": "3"}, {"include_shared": "yes"}, {"fill_recent": "decisions"}],
)
def test_bad_values_are_refused(bad: dict) -> None:
    with pytest.raises(InvalidRecordError):
        RecallOptions(**bad)


def test_options_must_be_recall_options() -> None:
    with kioko.connect("memory://") as memory:
        with pytest.raises(InvalidRecordError, match="RecallOptions"):
            memory.recall("anything", user_id="u", options={"limit": 3})  # type: ignore[arg-type]
