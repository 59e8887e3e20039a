"""benchmarks/locomo_recall.py: the data loads as its README says, and a --quick run reports every system."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import locomo_recall as bench

DATA = bench.DEFAULT_DATA


def _need_data() -> None:
    if not (DATA / "26.json").exists():
        pytest.skip(f"the LoCoMo development split is not at {DATA} (it lives in the project's shared/ folder)")


def test_conversations_load_with_sessions_dates_and_normalised_evidence() -> None:
    _need_data()
    conversation = bench.load_conversation(DATA / "26.json")
    assert conversation.turns[0].dia_id == "D1:1"
    assert conversation.turns[0].session == "session_1"
    assert conversation.turns[0].document.startswith(conversation.turns[0].speaker + ": ")
    stamps = [t.created_at for t in conversation.turns]
    assert stamps == sorted(stamps), "turns keep the conversation's order in time"
    known = {t.dia_id for t in conversation.turns}
    assert conversation.questions
    assert all(q.evidence <= known for q in conversation.questions)
    assert {q.category for q in conversation.questions} <= set(bench.CATEGORIES)


def test_quick_run_reports_recall_for_every_system(tmp_path: Path) -> None:
    _need_data()
    target = tmp_path / "locomo.json"
    results = bench.main(
        ["--quick", "--store", "memory", "--systems", "kioko,kioko-links,kioko-nolink,bm25", "--json", str(target)]
    )
    assert [r["system"] for r in results] == ["kioko", "kioko-links", "kioko-nolink", "bm25"]
    for row in results:
        assert 0.0 <= row["R@5"] <= row["R@10"] <= 1.0
        assert row["recall p50 ms"] >= 0
    written = json.loads(target.read_text())
    assert written["header"]["questions"] == 50
    assert written["results"] == results
    # retrieval finds something on real data: a broken pipeline scores 0
    assert all(r["R@10"] > 0.1 for r in results)


def test_the_split_parts_are_fixed_disjoint_and_cover_the_development_half() -> None:
    _need_data()
    conversations = [bench.load_conversation(path) for path in sorted(DATA.glob("*.json"))]
    parts = bench.split_parts(conversations, "all,A,B")
    names = {part: [c.name for c in members] for part, members in parts.items()}
    assert names == {"all": ["26", "30", "41", "42", "43"], "A": ["26", "42"], "B": ["30", "41", "43"]}
    # a sample that is not the development half has no parts: all of it, whatever is asked
    sample = [bench.load_conversation(p) for p in sorted((bench.ROOT / "benchmarks/data/locomo_sample").glob("*.json"))]
    assert list(bench.split_parts(sample, "A,B")) == ["all"]
    with pytest.raises(SystemExit):
        bench.split_parts(conversations, "C")
