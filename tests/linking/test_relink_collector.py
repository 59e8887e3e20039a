"""``connect``'s backfill (``connect --rebuild``) holds the cycle collector's automatic passes off while its batches
run, as ``add_many`` does (kioko_core/linking/collector.py), and puts the collector back as it found it: on after a
rebuild, on after one that failed, off if the caller had it off; a long rebuild still collects every generation now
and then."""

from __future__ import annotations

import gc
from typing import Any

import pytest

import kioko
from kioko_core.linking.collector import FULL_PASS_BATCHES
from kioko_core.linking.relink import Outcome, RelinkBatch

NOTES = [f"Line {n % 5} conveyor jammed again near bay {n % 3}." for n in range(12)]


def _stored(layer: Any, notes: list[str]) -> None:
    layer.add_many(notes, user_id="u")


def test_a_rebuild_holds_the_collector_off_and_puts_it_back(collector_on: None) -> None:
    seen: list[bool] = []
    with kioko.connect("memory://", auto_link=True, embedder="offline") as layer:
        _stored(layer, NOTES)
        assert gc.isenabled()
        report = layer.graph.connect(
            user_id="u", rebuild=True, progress=lambda done, total: seen.append(gc.isenabled())
        )
    assert report.memories == len(NOTES)
    assert seen == [False] * len(NOTES)
    assert gc.isenabled()


def test_the_collector_is_back_on_after_a_rebuild_that_failed(collector_on: None) -> None:
    def fail(done: int, total: int) -> None:
        raise RuntimeError("stop")

    with kioko.connect("memory://", auto_link=True, embedder="offline") as layer:
        _stored(layer, NOTES)
        with pytest.raises(RuntimeError):
            layer.graph.connect(user_id="u", rebuild=True, progress=fail)
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off_after_a_rebuild(collector_on: None) -> None:
    with kioko.connect("memory://", auto_link=True, embedder="offline") as layer:
        _stored(layer, NOTES[:4])
        gc.disable()
        layer.graph.connect(user_id="u", rebuild=True)
    assert not gc.isenabled()


def test_a_long_rebuild_still_collects_every_generation_now_and_then(collector_on: None) -> None:
    full: list[int] = []
    outcomes: list[Outcome] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(1)

    notes = [f"Note {n}: pump {n % 7} leaks at valve {n % 4}." for n in range(FULL_PASS_BATCHES + 1)]
    with kioko.connect("memory://", auto_link=True, embedder="offline") as layer:
        _stored(layer, notes)
        ids = [r.id for r in layer.store.scan(layer._scope("u", None))]
        gc.callbacks.append(note)
        try:
            RelinkBatch(layer, layer._scope("u", None), size=1).relink_all(sorted(ids), outcomes.extend)
        finally:
            gc.callbacks.remove(note)
    assert len(outcomes) == len(notes)
    assert len(full) >= 1
    assert gc.isenabled()
