"""add_many holds the cycle collector's automatic passes off while its batches run (a full pass walks every object of
the process, and a batch's records lived long enough to start one after another: kioko_core/layer/bulk.py), and puts
the collector back as it found it: on after an import, on after an import that failed, off if it was off, and on only
when the last of two imports running at once ends."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import Any

import pytest

import kioko
from kioko_core.errors import IdTaken
from kioko_core.layer.bulk import BatchAdd
from kioko_core.linking.collector import FULL_PASS_BATCHES


def _notes(
    seen: list[bool], count: int = 6, reached: threading.Event | None = None, hold: threading.Event | None = None
) -> Iterator[tuple[dict, Any]]:
    """Items for BatchAdd.run that note whether the collector runs on its own as each is planned (with ``hold``: the
    second item says it was ``reached`` and waits for ``hold``)."""
    for number in range(count):
        seen.append(gc.isenabled())
        if hold is not None and reached is not None and number == 1:
            reached.set()
            assert hold.wait(30)
        yield {"content": f"Line {number} conveyor jammed twice.", "memory_type": "episodic"}, None


def test_the_collector_is_held_off_during_the_batches_and_back_on_after(collector_on: None) -> None:
    seen: list[bool] = []
    with kioko.connect("memory://", auto_link=True, embedder="offline") as layer:
        stored = BatchAdd(layer, "u", None, size=2).run(_notes(seen))
    assert len(stored) == 6
    assert seen == [False] * 6
    assert gc.isenabled()


def test_the_collector_is_back_on_after_an_import_that_failed(collector_on: None) -> None:
    with kioko.connect("memory://", auto_link=True, embedder="offline") as layer:
        layer.add("Taken.", user_id="u", id="taken")
        with pytest.raises(IdTaken):
            layer.add_many(["One.", {"content": "Mine.", "id": "taken"}, "Three."], user_id="u")
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off(collector_on: None) -> None:
    gc.disable()
    with kioko.connect("memory://", auto_link=True, embedder="offline") as layer:
        layer.add_many(["One.", "Two."], user_id="u")
    assert not gc.isenabled()


def test_two_imports_at_once_turn_it_back_on_when_the_last_ends(collector_on: None) -> None:
    reached, hold = threading.Event(), threading.Event()
    first_seen: list[bool] = []
    second_seen: list[bool] = []
    with kioko.connect("memory://", auto_link=True, embedder="offline") as layer:
        first = threading.Thread(
            target=lambda: BatchAdd(layer, "a", None, size=1).run(_notes(first_seen, reached=reached, hold=hold))
        )
        first.start()
        assert reached.wait(30)  # the first import is inside its batches, waiting on ``hold``
        BatchAdd(layer, "b", None, size=1).run(_notes(second_seen, 3))
        assert not gc.isenabled()  # the first import still runs
        hold.set()
        first.join(30)
    assert gc.isenabled()
    assert second_seen == [False] * 3
    assert first_seen == [False] * 6


def test_a_long_import_still_collects_every_generation_now_and_then(collector_on: None) -> None:
    """A cached record and the linker's view of it are a cycle: an import that only ever collected the young
    generations kept every record it had let go until its end (14 GB at 100,000 memories)."""
    full: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(1)

    batches = FULL_PASS_BATCHES + 1
    gc.callbacks.append(note)
    try:
        with kioko.connect("memory://", auto_link=True, embedder="offline") as layer:
            BatchAdd(layer, "u", None, size=1).run(_notes([], batches))
    finally:
        gc.callbacks.remove(note)
    assert len(full) >= 1


def _frozen_as_planned(seen: list[int], count: int) -> Iterator[tuple[dict, Any]]:
    """Items for BatchAdd.run that note how many objects the collector holds frozen as each is planned."""
    for number in range(count):
        seen.append(gc.get_freeze_count())
        yield {"content": f"Belt {number} slipped on the drive roller.", "memory_type": "episodic"}, None


def test_a_full_pass_freezes_what_it_left_until_the_import_ends(collector_on: None) -> None:
    """The objects alive after a full pass are frozen (the next pass walks only newer ones) and thawed at the end."""
    # an earlier test in this worker may have frozen its own objects (the service freezes the app it builds:
    # kioko/http/serve.py), and an import then leaves the freezing to the process; this test is of a process
    # that froze nothing, so it thaws them first (thawing only hands them back to the oldest generation)
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    seen: list[int] = []
    with kioko.connect("memory://", auto_link=True, embedder="offline") as layer:
        BatchAdd(layer, "u", None, size=1).run(_frozen_as_planned(seen, FULL_PASS_BATCHES + 2))
    assert seen[:FULL_PASS_BATCHES] == [0] * FULL_PASS_BATCHES
    assert seen[FULL_PASS_BATCHES + 1] > 0  # taken after the first full pass (the one before it opened no batch yet)
    assert gc.get_freeze_count() == 0


def test_objects_the_process_froze_itself_stay_frozen(collector_on: None) -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        seen: list[int] = []
        with kioko.connect("memory://", auto_link=True, embedder="offline") as layer:
            BatchAdd(layer, "u", None, size=1).run(_frozen_as_planned(seen, FULL_PASS_BATCHES + 2))
        # none frozen by the import (the count only falls, as frozen objects are freed), none thawed
        assert max(seen) <= frozen
        assert 0 < gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()
