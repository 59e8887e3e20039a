"""``kioko.reembed(url, embedder)``: a store moved to another embedder (:mod:`kioko_core.layer.reembed` does the work).

The store is opened by its driver, not through a layer: a layer would refuse it, its mark naming the old
embedder. Same vector length: in place. Another length: into ``to`` (a store URL), or, for a store kept in a
local file or directory (SQLite, Qdrant local), into a sibling that then takes the store's place, the old
one kept beside it as ``<path>.before-reembed``.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from typing import Sequence

from kioko_core.embedding.embedders import Embedder, load_embedder
from kioko_core.errors import InvalidRecordError
from kioko_core.layer.records import LayerStore
from kioko_core.layer.reembed import BATCH, Progress, ReembedReport, reembed_in_place, reembed_into, scopes_to_reembed
from kioko_core.store.format_mark import check_format, read_mark
from kioko_core.store.registry import _resolve, open_store
from kioko_core.store.url import StoreURL

WORK_SUFFIX = ".reembed"
"""The new store being filled, beside a local store (kept until the run finishes: a rerun resumes it)."""
OLD_SUFFIX = ".before-reembed"
"""The store as it was, kept beside the re-embedded one."""


def reembed(
    url: str,
    embedder: str | Embedder,
    *,
    to: str | None = None,
    users: Sequence[str] | None = None,
    batch: int = BATCH,
    progress: Progress | None = None,
    total: list[int] | None = None,
) -> ReembedReport:
    """Re-embed every memory of the store ``url`` names with ``embedder`` (a name or an Embedder).

    ``users``: only these users' scopes (their own agents' included), for a store whose driver cannot list
    its scopes and whose vector length stays (None: every scope the driver lists). ``to``: where a store of
    another vector length goes (see the module). ``total`` (a list): filled with the number of records to do,
    before the first is done (for a progress bar). Killed, the same call resumes where the run stopped.
    """
    model = load_embedder(embedder) if isinstance(embedder, str) else embedder
    parsed = StoreURL.parse(url)
    local = _local_path(parsed)
    work = local + WORK_SUFFIX if local is not None and to is None else None
    if local is not None and work is not None and not os.path.exists(local) and os.path.exists(work):
        _swap(local, work)  # killed between the two renames of a finished run
        return ReembedReport(embedder=str(embedder), dim=int(model.dim))
    source = LayerStore(open_store(parsed))
    try:
        mark, _ = read_mark(source)
        if mark is not None:
            check_format(mark, source)
        scopes = scopes_to_reembed(source, users, moving=int(model.dim) != source.dim)
        if total is not None:
            total.append(sum(1 for scope in scopes for _ in source.scan(scope)))
        if int(model.dim) == source.dim:
            return reembed_in_place(source, model, scopes, batch=batch, progress=progress)
        if to is None and work is None:
            raise InvalidRecordError(
                f"the new embedder makes {model.dim}-number vectors and {parsed.render()} holds {source.dim}: a "
                "server's store cannot change its vector length in place; name a new store with --to URL"
            )
        target_url = to if to is not None else replace(parsed, path=str(work)).render(hide_password=False)
        dest = LayerStore(open_store(StoreURL.parse(target_url), dim=int(model.dim)))
        try:
            report = reembed_into(source, dest, model, scopes, batch=batch, progress=progress)
        finally:
            dest.close()
    finally:
        source.close()
    if local is not None and work is not None:
        _swap(local, work)
    return report


def _local_path(url: StoreURL) -> str | None:
    locate = getattr(_resolve(url.scheme), "local_path", None)
    path = locate(url) if locate is not None else None
    return str(path) if path else None


def _side_files(path: str) -> list[str]:
    return [path + suffix for suffix in ("-wal", "-shm", ".ann") if os.path.exists(path + suffix)]


def _swap(path: str, work: str) -> None:
    """The finished store at ``work`` takes ``path``'s place; the old one (with its side files) is kept."""
    old = path + OLD_SUFFIX
    if os.path.exists(path):
        for stale in ([old] if os.path.exists(old) else []) + _side_files(old):
            shutil.rmtree(stale) if os.path.isdir(stale) else os.remove(stale)
        for side in _side_files(path):
            os.replace(side, old + side[len(path) :])
        os.replace(path, old)
    for side in _side_files(work):
        os.replace(side, path + side[len(work) :])
    os.replace(work, path)


__all__ = ["OLD_SUFFIX", "WORK_SUFFIX", "reembed"]
