"""benchmarks/recall_variants.py: its default row answers as user_scale.py does on SQLite, and a variant is applied."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import locomo_recall as locomo
from benchmarks import recall_variants as bench
from benchmarks import user_scale

DATA = locomo.DEFAULT_DATA


def _need_data() -> None:
    if not (DATA / "26.json").exists():
        pytest.skip(f"the LoCoMo development split is not at {DATA} (it lives in the project's shared/ folder)")


def test_the_default_row_is_user_scales_and_a_variant_changes_the_ranking(tmp_path: Path) -> None:
    _need_data()
    target = tmp_path / "variants.json"
    result = bench.main(["--sizes", "450,520", "--variant", 'no_speaker={"speaker_weight": 0}', "--json", str(target)])
    rows = {(r["size"], r["variant"]): r for r in result["rows"]}
    assert sorted(rows) == [(450, "default"), (450, "no_speaker"), (520, "default"), (520, "no_speaker")]
    scale = user_scale.main(["--store", "sqlite", "--sizes", "450,520", "--fill", "store"])
    for row in scale["rows"]:
        mine = rows[(row["size"], "default")]
        assert mine["answers_digest"] == row["answers_digest"], "the same fill and the same warm pass"
        assert mine["r10"] == row["r10"]
    # the conversation's questions name its speakers: without the speaker signal some answers come in another order
    assert rows[(520, "no_speaker")]["answers_digest"] != rows[(520, "default")]["answers_digest"]
    assert json.loads(target.read_text())["header"]["variants"]["no_speaker"] == {"speaker_weight": 0}


def test_a_variant_must_be_a_name_and_a_mapping() -> None:
    assert bench.parse_variant('wide={"distinct_read": 200}') == ("wide", {"distinct_read": 200})
    with pytest.raises(SystemExit):
        bench.parse_variant("[1, 2]")
    with pytest.raises(SystemExit):
        bench.parse_variant("x=[1, 2]")
