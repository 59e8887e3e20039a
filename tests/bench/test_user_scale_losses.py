"""benchmarks/user_scale_losses.py: its stages account for every evidence turn, its default R@10 is user_scale's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import locomo_recall as locomo
from benchmarks import user_scale
from benchmarks import user_scale_losses as bench
from kioko_core.recall import hybrid

DATA = locomo.DEFAULT_DATA


def _need_data() -> None:
    if not (DATA / "26.json").exists():
        pytest.skip(f"the LoCoMo development split is not at {DATA} (it lives in the project's shared/ folder)")


def test_every_evidence_turn_has_one_stage_and_the_default_is_user_scales(tmp_path: Path) -> None:
    _need_data()
    target = tmp_path / "losses.json"
    recency, retrieve = hybrid.RECENCY_WEIGHT, hybrid.retrieve
    result = bench.main(["--sizes", "450,520", "--variant", 'timeless={"_no_recency": true}', "--json", str(target)])
    # the stages were read through wrappers, and the variant's patch undone: the module is as it was
    assert (hybrid.RECENCY_WEIGHT, hybrid.retrieve) == (recency, retrieve)
    scale = user_scale.main(["--store", "memory", "--sizes", "450,520", "--fill", "store"])
    for entry, row in zip(result, scale["rows"]):
        assert entry["size"] == row["size"]
        assert entry["default"]["r10"] == row["r10"], "the same fill and the same questions"
        rows = entry["diagnosis"]["rows"]
        assert {r["stage"] for r in rows} <= set(bench.STAGES)
        assert len({(r["question"], r["evidence"]) for r in rows}) == len(rows)
        found = bench.bounds(rows)
        # the stages say what recall returned: the rows' own R@10 is the measured one
        assert found["returned"] == pytest.approx(entry["default"]["r10"])
        assert found["returned"] <= found["ties first"] <= found["scores"]
        assert found["returned"] <= found["pool"] <= found["scores"]
        # a turn lost without a lexical score has no lexical rank; one lost past the pool scores (a turn found
        # without one came from the vector search, filling a list the words left short)
        assert all(r["lexical_rank"] is None for r in rows if r["stage"] == "no-word")
        assert all(r["lexical_rank"] is not None for r in rows if r["stage"] in ("lexical", "pool"))
    assert json.loads(target.read_text())[0]["size"] == 450


def test_bounds_place_a_tied_evidence_first_but_not_one_outscored() -> None:
    rows = [
        {"question": 0, "stage": "found", "lexical_rank": 1, "bm25_rank": 1, "dense_rank": 50},
        {"question": 0, "stage": "pool", "lexical_rank": 3, "bm25_rank": 40, "dense_rank": 50},
        {"question": 1, "stage": "lexical", "lexical_rank": 11, "bm25_rank": 9, "dense_rank": 5},
        {"question": 1, "stage": "no-word", "lexical_rank": None, "bm25_rank": 900, "dense_rank": 500},
    ]
    found = bench.bounds(rows)
    assert found["returned"] == pytest.approx(0.25)
    assert found["ties first"] == pytest.approx(0.5)  # rank 3 counting only those that score more: placed
    assert found["pool"] == pytest.approx(0.5)
    assert found["scores"] == pytest.approx(0.75)
    assert found["bm25"] == pytest.approx(0.5)
    assert found["dense exact"] == pytest.approx(0.25)
