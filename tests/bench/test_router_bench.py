"""benchmarks/router_accuracy.py runs on its labelled set: the figures add up, the set is what its README
says, and the offline router stays above a floor a little under its committed figure (a regression fails)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import router_accuracy  # noqa: E402

from kioko_intelligence.ops import OPERATIONS  # noqa: E402

QUICK_FLOOR = 0.93
"""The quick subset's offline accuracy may not fall below this (measured: see benchmarks/results/router/)."""
FALSE_WRITES_CEILING = 0.07


def test_the_labelled_set_is_large_varied_and_split_as_documented() -> None:
    items = router_accuracy.load()
    assert len(items) >= 400
    assert len({item.id for item in items}) == len(items)
    by_section: dict[str, list[router_accuracy.Item]] = {}
    for item in items:
        by_section.setdefault(item.section, []).append(item)
        for alternative in item.expect:
            for op in alternative:
                kind, _, action = op.split(":", 1)[0].partition(".")
                assert action in OPERATIONS[kind], (item.id, op)
    for section in by_section.values():
        assert [i.split for i in section] == ["heldout" if n % 4 == 3 else "train" for n in range(len(section))]
    heldout = sum(item.split == "heldout" for item in items) / len(items)
    assert 0.2 <= heldout <= 0.3
    assert sum(item.expects_nothing for item in items) >= 50  # turns that must do nothing


def test_the_quick_run_counts_add_up_and_stay_above_the_floor() -> None:
    items = router_accuracy.load(quick=True)
    assert len(items) == len(router_accuracy.load()[:: router_accuracy.QUICK_EVERY])
    results = router_accuracy.run(items)
    figures, outcomes = results["offline"]
    assert figures["items"] == len(items) == len(outcomes)
    assert figures["correct"] == sum(o.correct for o in outcomes) == figures["items"] - len(figures["misses"])
    assert figures["train"][1] + figures["heldout"][1] == figures["items"]
    assert figures["train"][0] + figures["heldout"][0] == figures["correct"]
    assert sum(total for _, total in figures["by_operation"].values()) == figures["items"]
    assert sum(hits for hits, _ in figures["by_operation"].values()) == figures["correct"]
    assert figures["nothing_items"] == figures["by_operation"]["nothing"][1]
    assert figures["false_writes"] == figures["nothing_items"] - figures["by_operation"]["nothing"][0]
    assert router_accuracy.accuracy(figures) >= QUICK_FLOOR, figures["misses"]
    assert figures["false_writes"] <= FALSE_WRITES_CEILING * figures["nothing_items"]
    page = router_accuracy.markdown(results, quick=True, seconds=1.0)
    assert page.count("\n### ") == len(figures["misses"])  # every miss is listed, dry-run style
    assert Counter(o.item.split for o in outcomes)["heldout"] > 0


def test_a_configured_model_is_measured_beside_the_offline_router() -> None:
    """The LLM hook: a scripted model (a real callable, no network) that finds nothing to remember."""
    calls: list[str] = []

    def ask(prompt: str) -> str:
        calls.append(prompt)
        return '{"operations": []}'

    items = [i for i in router_accuracy.load() if i.section in ("none", "goal.add")][:12]
    results = router_accuracy.run(items, llm=ask)
    figures, outcomes = results["llm"]
    assert figures["items"] == len(items)  # the gate skips small talk; the goals reach the model
    assert calls
    assert all(o.report.router == "llm" for o in outcomes if not o.report.skipped)
    nothing = [o for o in outcomes if o.item.expects_nothing]
    assert all(o.correct for o in nothing)
    assert figures["false_writes"] == 0
    assert figures["correct"] == len(nothing)  # a model that answers nothing misses every goal


def test_the_llm_column_routes_through_a_provider_string() -> None:
    """``--llm openai-compatible:<url>#<model>``: the LLM router's column asks the model over HTTP (a loopback server)."""
    from model_server import ModelServer

    assert router_accuracy.model("ollama:llama3.1") == "ollama:llama3.1"
    items = [item for item in router_accuracy.load() if item.turn.strip()][:3]
    with ModelServer() as server:
        results = router_accuracy.run(items, f"openai-compatible:{server.url}/v1#bench-model")
    assert set(results) >= {"offline", "llm"}
    assert server.requests
    assert {r["json"]["model"] for r in server.requests} == {"bench-model"}
