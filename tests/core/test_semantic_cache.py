"""The semantic model's prepared copy in the user's cache (kioko_core.embedding.semantic_cache): written once, atomically,
read back identical, ignored when damaged or unwritable, keyed by the weights and the code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from kioko_core.embedding import semantic_cache
from kioko_core.errors import MissingExtraError


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(semantic_cache.CACHE_SETTING, str(folder))
    return folder


def _zip_or_skip() -> Path:
    from kioko_core.embedding.semantic import model_zip_path

    try:
        return model_zip_path()
    except MissingExtraError as error:
        if os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}:
            pytest.fail(f"CI installs the semantic extra, yet: {error}", pytrace=False)
        pytest.skip(f"the semantic embedder is not installed: {error}")


ARRAYS = {"a": np.arange(12, dtype=np.float32).reshape(3, 4), "b": np.array([0.5, -1.25], dtype=np.float32)}


def test_arrays_written_and_mapped_back_unchanged(cache):
    folder = cache / "models" / (semantic_cache.PREFIX + "k1")
    assert semantic_cache.save_prepared(folder, ARRAYS, {"heads": 12}, '{"t": 1}')
    arrays, constants, tokenizer = semantic_cache.load_prepared(folder)
    for name, array in ARRAYS.items():
        np.testing.assert_array_equal(arrays[name], array)
        assert arrays[name].ctypes.data % semantic_cache.ALIGN == 0
        assert not arrays[name].flags.writeable
    assert constants == {"heads": 12}
    assert tokenizer == '{"t": 1}'
    assert [p.name for p in folder.parent.iterdir()] == [folder.name]  # no staging folder left


def test_a_second_writer_keeps_the_first_copy_and_says_it_is_there(cache):
    folder = cache / "models" / (semantic_cache.PREFIX + "k1")
    assert semantic_cache.save_prepared(folder, ARRAYS, {"n": 1}, "{}")
    assert semantic_cache.save_prepared(folder, {"a": np.zeros(2, np.float32)}, {"n": 2}, "{}")
    assert semantic_cache.load_prepared(folder)[1] == {"n": 1}
    assert len(list(folder.parent.iterdir())) == 1


def test_a_damaged_copy_is_not_read(cache):
    folder = cache / "models" / (semantic_cache.PREFIX + "k1")
    semantic_cache.save_prepared(folder, ARRAYS, {}, "{}")
    data = (folder / semantic_cache.ARRAYS).read_bytes()
    (folder / semantic_cache.ARRAYS).write_bytes(data[:-8])
    assert semantic_cache.load_prepared(folder) is None
    (folder / semantic_cache.MANIFEST).write_text("{not json")
    assert semantic_cache.load_prepared(folder) is None
    assert semantic_cache.load_prepared(cache / "missing") is None


def test_an_unwritable_cache_is_only_not_kept(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("the cache folder's parent is a file")
    folder = blocker / "models" / (semantic_cache.PREFIX + "k1")
    assert not semantic_cache.save_prepared(folder, ARRAYS, {}, "{}")
    assert semantic_cache.cached_file(folder, "graph.onnx", lambda: b"built") == b"built"
    assert semantic_cache.cached_file(None, "graph.onnx", lambda: b"built") == b"built"


def test_a_new_copy_replaces_copies_for_other_weights(cache):
    models = cache / "models"
    old = models / (semantic_cache.PREFIX + "old")
    semantic_cache.save_prepared(old, ARRAYS, {}, "{}")
    semantic_cache.save_prepared(models / (semantic_cache.PREFIX + "new"), ARRAYS, {}, "{}")
    assert [p.name for p in models.iterdir()] == [semantic_cache.PREFIX + "new"]


def test_the_key_follows_the_weights(tmp_path):
    def zipped(name: str, payload: bytes) -> Path:
        path = tmp_path / name
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("model.safetensors", payload)
        return path

    same_a, same_b = zipped("a.zip", b"weights"), zipped("b.zip", b"weights")
    assert semantic_cache.prepared_key(same_a) == semantic_cache.prepared_key(same_b)
    assert semantic_cache.prepared_key(same_a) != semantic_cache.prepared_key(zipped("c.zip", b"weightz"))


def test_the_prepared_model_embeds_as_the_zip_does(cache):
    from kioko_core.embedding import semantic
    from kioko_core.embedding.semantic_onnx import OnnxEncoder

    _zip_or_skip()
    fresh = semantic.load_prepared_model()  # nothing in the cache: read from the zip, then written
    assert fresh.prepared is not None
    assert (fresh.prepared / semantic_cache.ARRAYS).is_file()
    again = semantic.load_prepared_model()  # read back from the cache
    assert again.prepared == fresh.prepared
    assert isinstance(again.word, np.memmap)
    texts = ["I drive a red automobile.", "what car do I have?"]
    np.testing.assert_array_equal(semantic.embed_texts(fresh, texts), semantic.embed_texts(again, texts))
    assert not [p for p in fresh.prepared.iterdir() if p.name.startswith("graph-")]
    first = OnnxEncoder(fresh)  # builds the int8 graph and keeps it beside the arrays
    assert [p.name for p in fresh.prepared.iterdir() if p.name.startswith("graph-")] == [
        f"graph-int8-{first.weight_bits}bit.onnx"
    ]
    second = OnnxEncoder(again)  # reads it
    ids = np.asarray([semantic.tokenize(fresh, texts[:1])[0]], dtype=np.int64)
    embedded = semantic.embed_tokens(fresh, ids)
    np.testing.assert_array_equal(first(embedded, np.ones_like(ids)), second(embedded, np.ones_like(ids)))
    manifest = json.loads((fresh.prepared / semantic_cache.MANIFEST).read_text())
    assert manifest["constants"] == {"layers": 6, "heads": 12, "eps": fresh.eps}


def test_a_second_process_reads_the_copy_the_first_wrote(cache):
    _zip_or_skip()
    script = (
        "from kioko_core.embedding.semantic import MiniLMEmbedder, shared_model\n"
        "import numpy as np, sys\n"
        "v = MiniLMEmbedder().embed('I drive a red automobile.')\n"
        "print(type(shared_model().word).__name__, float(v[0]), float(v[1]))\n"
    )
    env = {**os.environ, semantic_cache.CACHE_SETTING: str(cache)}
    runs = [
        subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    ]
    # the first read the zip (plain arrays), the second mapped the prepared copy; the same vector both times
    assert runs[0].split()[0] == "ndarray"
    assert runs[1].split()[0] == "memmap"
    assert runs[0].split()[1:] == runs[1].split()[1:]
