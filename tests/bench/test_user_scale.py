"""benchmarks/user_scale.py: its filler is spoken as the flags say, and a small run reports every column."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from benchmarks import locomo_recall as locomo
from benchmarks import user_scale as bench

DATA = locomo.DEFAULT_DATA


def _need_data() -> None:
    if not (DATA / "26.json").exists():
        pytest.skip(f"the LoCoMo development split is not at {DATA} (it lives in the project's shared/ folder)")


def test_renamed_filler_is_spoken_by_the_asked_conversations_speakers() -> None:
    _need_data()
    conversations = {p.stem: locomo.load_conversation(p) for p in sorted(DATA.glob("*.json"))}
    asked, others = conversations["26"], [c for name, c in conversations.items() if name != "26"]
    theirs = {s for c in others for s in bench._speakers(c)}
    renamed = list(itertools.islice(bench.filler(asked, others, renamed=True), 2_000))
    assert {speaker for speaker, _ in renamed} == set(bench._speakers(asked))
    assert not any(name in text.split() for _, text in renamed for name in theirs)
    own = list(itertools.islice(bench.filler(asked, others, renamed=False), 2_000))
    assert {speaker for speaker, _ in own} <= theirs
    assert own == list(itertools.islice(bench.filler(asked, others, renamed=False), 2_000)), "seeded: reproducible"


def test_a_small_run_on_memory_reports_each_size(tmp_path: Path) -> None:
    _need_data()
    target = tmp_path / "scale.json"
    result = bench.main(["--store", "memory", "--sizes", "450,520", "--json", str(target), "--fill", "store"])
    rows = result["rows"]
    assert [r["held"] for r in rows] == [450, 520]
    for row in rows:
        assert 0.0 <= row["r5"] <= row["r10"] <= 1.0
        assert 0.0 <= row["bm25_r10"] <= 1.0
        assert row["knn_recall_vs_exact"] == 1.0  # below exact_below the knn is exact
        assert row["recall_cpu_p95_ms"] >= row["recall_cpu_p50_ms"]
        assert row["server_cpu_ms_per_recall"] is None, "an in-process store has no server"
    assert json.loads(target.read_text())["header"]["fill"] == "store"
    again = bench.main(["--store", "memory", "--sizes", "450,520"])
    assert [r["r10"] for r in again["rows"]] == [r["r10"] for r in rows], "add_many and store batches rank alike"
    assert [r["answers_digest"] for r in again["rows"]] == [r["answers_digest"] for r in rows]
    assert rows[0]["answers_digest"] != rows[1]["answers_digest"], "the filler added at 520 changes some answers"


def test_each_filler_session_is_a_stretch_of_one_conversation() -> None:
    _need_data()
    conversations = {p.stem: locomo.load_conversation(p) for p in sorted(DATA.glob("*.json"))}
    asked, others = conversations["26"], [c for name, c in conversations.items() if name != "26"]
    heads = {}  # conversation -> its turns' first halves, in order, as the filler begins a memory with them
    for other in others:
        halves = [t.text.split() for t in other.turns if len(t.text.split()) >= 2]
        heads[other.name] = [" ".join(words[: max(1, len(words) // 2)]) for words in halves]
    size = bench.FILLER_SESSION

    def one_stretch(block: list[tuple[str, str]]) -> bool:
        """True when every text of ``block`` begins with the first half of a turn of one stretch of ``size``
        consecutive turns of one conversation."""
        for starts in heads.values():
            for first in range(max(1, len(starts) - size + 1)):
                stretch = starts[first : first + size]
                if all(any(t == s or t.startswith(s + " ") for s in stretch) for _, t in block):
                    return True
        return False

    coherent = list(itertools.islice(bench.filler(asked, others, renamed=False), 6 * size))
    assert all(one_stretch(coherent[i : i + size]) for i in range(0, len(coherent), size))
    mixed = list(itertools.islice(bench.filler(asked, others, renamed=False, sessions=False), 6 * size))
    assert not any(one_stretch(mixed[i : i + size]) for i in range(0, len(mixed), size))


def test_on_postgresql_the_servers_cpu_is_counted_apart(
    postgresql_store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _need_data()
    monkeypatch.setenv("KIOKO_TEST_POSTGRES_URL", postgresql_store_url)
    (row,) = bench.main(["--store", "postgresql", "--sizes", "450", "--fill", "store"])["rows"]
    assert row["server_cpu_ms_per_recall"] is not None, "the test server runs on this machine"
    assert row["server_cpu_ms_per_recall"] > 0.0, "150 recalls' queries cost the server some CPU"
    assert row["round_trips_per_recall"] >= 1.0
