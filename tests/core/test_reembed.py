"""Moving a store to another embedder (kioko.reembed, memory.reembed, ``kioko reembed``).

Every record keeps its id, text, metadata, links and supersede history; only its vector changes, and the
store's mark names the new embedder. A run killed with SIGKILL (a real ``python -m kioko reembed`` process)
finishes when started again.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kioko
from benchmarks.synthetic import generate_notes
from kioko_core.embedding.embedders import OfflineEmbedder
from kioko_core.layer.records import LayerStore
from kioko_core.layer.reembed import listed_scopes
from kioko_core.store import Record
from kioko_core.store.format_mark import read_mark

ROOT = Path(__file__).resolve().parents[2]
SEMANTIC = all(
    importlib.util.find_spec(m) is not None for m in ("tokenizers", "safetensors", "all_minilm_l6_v2", "onnxruntime")
)
needs_semantic = pytest.mark.skipif(not SEMANTIC, reason="the semantic embedder (kioko[semantic] + model) is missing")


def _fill(url: str, users: list[str], notes: int) -> None:
    with kioko.connect(url, embedder="offline", auto_link=True) as memory:
        for number, user in enumerate(users):
            rows = [
                {"content": n.content, "memory_type": n.memory_type, "created_at": n.created_at}
                for n in generate_notes(notes, seed=number + 3)
            ]
            memory.add_many(rows, user_id=user)
            old = memory.decisions.add("Deploy on Tuesdays.", user_id=user, metadata={"team": "ops"})
            memory.decisions.supersede(old.id, "Deploy on Thursdays after the freeze.", user_id=user)


def _snapshot(url: str) -> dict[str, dict[str, Any]]:
    """Every record of every scope as the layer reads it, but its vector and store version."""
    store = LayerStore(kioko.open_store(url))
    try:
        kept: dict[str, dict[str, Any]] = {}
        for scope in listed_scopes(store) or []:
            if scope.user_id == "@kioko":
                continue
            for record in store.scan(scope):
                kept[record.id] = record.model_dump(exclude={"embedding", "version"}) | {
                    "has_vector": record.embedding is not None
                }
        return kept
    finally:
        store.close()


def _vectors(url: str) -> dict[str, np.ndarray]:
    store = kioko.open_store(url)
    try:
        return {
            r.id: r.embedding
            for scope in listed_scopes(store) or []
            for r in store.scan(scope)
            if r.embedding is not None
        }
    finally:
        store.close()


@needs_semantic
def test_offline_to_semantic_keeps_every_link_history_and_metadata(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.db'}"
    _fill(url, ["kumar", "asha"], 120)
    before = _snapshot(url)
    assert any(r["system"] and r["system"].get("links") for r in before.values()), "nothing linked: a void test"
    assert any(r["metadata"].get("superseded_by") for r in before.values())

    report = kioko.reembed(url, "semantic")
    assert report.reembedded == sum(r["has_vector"] for r in before.values())
    assert report.dim == 384
    assert _snapshot(url) == before
    vectors = _vectors(url)
    assert {v.shape[0] for v in vectors.values()} == {384}
    with kioko.connect(url) as memory:  # no embedder named: the mark's
        assert memory.store_mark.embedder == "semantic"
        assert memory.embedder.dim == 384
        hits = memory.search("On which weekday do we deploy?", user_id="kumar", limit=5)
        assert any("Thursdays" in h.content for h in hits), [h.content for h in hits]
    with pytest.raises(kioko.EmbedderMismatchError):
        kioko.connect(url, embedder="offline")
    assert (tmp_path / "k.db.before-reembed").exists(), "the store as it was is kept beside"


class Salted:
    """Another embedder of the same length (256): other vectors, so a store can move in place."""

    name = "salted"
    dim = 256
    lexical = True

    def embed(self, text: str) -> np.ndarray:
        return OfflineEmbedder(256).embed("salt " + text)


def test_memory_reembed_in_place_with_an_embedder_of_the_same_length(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'same.db'}"
    _fill(url, ["kumar"], 60)
    before, old_vectors = _snapshot(url), _vectors(url)
    with kioko.connect(url, embedder="offline") as memory:
        done: list[int] = []
        report = memory.reembed(Salted(), progress=done.append)
        assert sum(done) >= report.reembedded > 0
        assert memory.store_mark.embedder == "salted"
        assert memory.search("deploy Thursdays", user_id="kumar", limit=3)
    assert _snapshot(url) == before
    new_vectors = _vectors(url)
    assert new_vectors.keys() == old_vectors.keys()
    salted = Salted()
    for memory_id, vector in new_vectors.items():
        assert np.allclose(vector, salted.embed(before[memory_id]["content"]), atol=1e-6)
    with pytest.raises(kioko.EmbedderMismatchError, match="'salted'"):
        kioko.connect(url, embedder="offline")


def _cursor(work: Path) -> int:
    """How many scopes the run under way has finished (0 before its work store exists)."""
    if not work.exists():
        return 0
    store = kioko.open_store(f"sqlite:///{work}")
    try:
        mark, _ = read_mark(store)
    finally:
        store.close()
    return len((mark.reembed or {}).get("done", [])) if mark is not None else 0


@needs_semantic
def test_a_run_killed_with_sigkill_finishes_when_started_again(tmp_path: Path) -> None:
    users = [f"user{n}" for n in range(8)]
    url = f"sqlite:///{tmp_path / 'big.db'}"
    _fill(url, users, 150)
    before = _snapshot(url)
    work = tmp_path / "big.db.reembed"
    command = [sys.executable, "-m", "kioko", "reembed", "--store", url, "--embedder", "semantic", "--json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300
        # the kill waits for a state of the run (a scope finished), read from its work store, not for a time
        while _cursor(work) < 1 and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert run.poll() is None, f"the run ended before it could be killed: {run.communicate()}"
        run.send_signal(signal.SIGKILL)
    finally:
        run.wait()
    assert run.returncode == -signal.SIGKILL
    interrupted = _cursor(work)
    assert 1 <= interrupted < len(users) + 2, "killed mid-run: some scopes done, not all"

    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    result = json.loads(again.stdout)
    assert result["resumed_after"] >= interrupted
    assert result["embedder"] == "semantic"
    assert not work.exists()
    assert _snapshot(url) == before
    assert {v.shape[0] for v in _vectors(url).values()} == {384}
    with kioko.connect(url) as memory:
        assert memory.store_mark.embedder == "semantic"
        assert memory.store_mark.reembed is None


def test_a_server_store_of_another_length_needs_a_destination(tmp_path: Path) -> None:
    class Wide(OfflineEmbedder):
        name = "wide"

    with kioko.connect("memory://", embedder="offline") as memory:
        memory.add("The payments deploy broke on Tuesday.", user_id="kumar")
        with pytest.raises(kioko.InvalidRecordError, match="cannot change in place"):
            memory.reembed(Wide(512))


def test_records_without_vectors_are_copied_as_they_were(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'plain.db'}"
    store = kioko.open_store(url)
    store.update_many(
        [kioko.Upsert(record=Record(id="note", user_id="@maintenance", kind="counters", metadata={"turns": 2}))]
    )
    store.close()
    kioko.connect(url, embedder="offline").close()

    class Wide(OfflineEmbedder):
        name = "wide"

    report = kioko.reembed(url, Wide(512))
    assert report.copied == 1
    assert report.reembedded == 0
    store = kioko.open_store(url)
    assert store.dim == 512
    assert store.get(kioko.Scope("@maintenance"), ["note"])[0].metadata == {"turns": 2}
    store.close()
