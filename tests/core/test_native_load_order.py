"""ONNX Runtime (the semantic embedder) and usearch (the HNSW graph) in one process.

Both are pybind11 extensions built apart: ONNX Runtime loaded after usearch crashes the interpreter (a
segmentation fault that took down a whole CI run). Each check runs in a fresh interpreter, since the failure
is a crash, not an exception.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

needs_both = pytest.mark.skipif(
    importlib.util.find_spec("usearch") is None or importlib.util.find_spec("onnxruntime") is None,
    reason="needs usearch (kioko[ann]) and onnxruntime (kioko[semantic]) installed",
)


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


@needs_both
def test_the_graph_loads_usearch_after_onnx_runtime_so_the_embedder_still_loads() -> None:
    done = _run(
        "import numpy as np\n"
        "from kioko_backends._ann import HnswGraph\n"
        "graph = HnswGraph.build(np.eye(4, dtype=np.float32))\n"
        "import onnxruntime\n"
        "print(sorted(graph.index.search(np.eye(4, dtype=np.float32)[1], 1).keys.tolist()))\n"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[1]"


@needs_both
def test_after_usearch_loaded_by_hand_the_embedder_says_so_instead_of_crashing() -> None:
    done = _run(
        "import usearch.index\n"
        "from kioko_core.errors import MissingExtraError\n"
        "from kioko_core.embedding.semantic import default_runtime\n"
        "from kioko_core.embedding.semantic_onnx import OnnxEncoder\n"
        "print(default_runtime())\n"
        "try:\n"
        "    OnnxEncoder(None)\n"
        "except MissingExtraError as error:\n"
        "    print('refused:', error)\n"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    runtime, refused = done.stdout.strip().splitlines()
    assert runtime == "numpy"
    assert refused.startswith("refused: ONNX Runtime cannot be loaded after usearch")
