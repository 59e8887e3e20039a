"""benchmarks/long_text.py runs: its texts are deterministic and hold no secret, and the stages it times are
each counted once (the embedder calls analysis inside it) and put back afterwards."""

from __future__ import annotations

import sys
from pathlib import Path

from kioko_core.embedding.embedders import OfflineEmbedder
from kioko_core.privacy.secrets import DropSecrets
from kioko_core.reading import analysis as text_module

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import long_text  # noqa: E402


def test_texts_are_deterministic_sized_and_hold_no_secret() -> None:
    for make in long_text.TEXTS.values():
        text = make(20_000, 1)
        assert text == make(20_000, 1) != make(20_000, 2)
        assert 19_000 <= len(text.encode()) <= 20_000
        assert DropSecrets().check(text) == []


def test_a_tiny_run_times_every_stage_inside_the_add_and_restores_them() -> None:
    originals = (DropSecrets.check, OfflineEmbedder.embed_analysis, text_module.analyze)
    clock = long_text.StageClock()
    restore = long_text.instrument(clock)
    try:
        results = long_text.measure("memory://", [5_000, 10_000], 1, clock)
    finally:
        restore()
    assert (DropSecrets.check, OfflineEmbedder.embed_analysis, text_module.analyze) == originals
    for row in results.values():
        assert set(row) == {"total", *long_text.STAGES}
        assert row["secrets"] > 0
        assert row["analysis"] > 0
        assert row["embedding"] > 0
        assert row["rest"] > 0  # nested stages counted twice would leave less than nothing for the rest
    assert "| 10 KB |" in "\n".join(long_text.table("memory://", results))
