"""benchmarks/memory_truth.py reports the LLM router's row when a model is configured and prints why it is
skipped when none is (no key, nothing named); nothing here reaches a network (#33)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "intelligence"))

import memory_truth  # noqa: E402


def test_without_a_model_the_row_is_skipped_with_how_to_configure_one(monkeypatch) -> None:
    monkeypatch.delenv(memory_truth.LLM_ENV, raising=False)
    model, reason = memory_truth.configured_llm(None)
    assert model is None
    assert reason is not None
    assert "--llm" in reason
    assert memory_truth.LLM_ENV in reason


def test_a_provider_without_its_key_is_skipped_naming_the_variable(monkeypatch) -> None:
    pytest.importorskip("httpx", reason="provider strings need the llm extra (httpx)")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv(memory_truth.LLM_ENV, "openai:gpt-4o-mini")
    model, reason = memory_truth.configured_llm(None)
    assert model is None
    assert "OPENAI_API_KEY" in (reason or "")


def test_a_configured_model_gets_its_row(monkeypatch, tmp_path, capsys) -> None:
    """A ``module:function`` model (a scripted stand-in, answering no operation) from the environment: the run
    reports an ``llm`` row beside the offline one for the same scenes."""
    monkeypatch.setenv(memory_truth.LLM_ENV, "intelligence_models:ask")
    model, reason = memory_truth.configured_llm(None)
    assert callable(model)
    assert reason is None
    scenes = memory_truth.load("dev_forget")[:2]
    runs = {
        "offline": {"dev_forget": memory_truth.measure("offline", None, scenes)},
        "llm": {"dev_forget": memory_truth.measure("llm", model, scenes)},
    }
    text = memory_truth.report(runs, "test", 0.0, None)
    assert "## offline" in text
    assert "## llm" in text
    assert "skipped" not in text
    assert memory_truth.summarise(runs["llm"]["dev_forget"])["probes"] == sum(len(s.probes) for s in scenes)
