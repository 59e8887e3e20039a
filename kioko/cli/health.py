"""What ``kioko doctor`` finds in a store besides opening it: its mark, sizes, index and pending maintenance.

Everything here reads; nothing writes (the layer is opened with ``mark_store=False``). Each warning carries
what to do about it.
"""

from __future__ import annotations

import os
from typing import Any


def store_health(memory: Any, url: str, *, user: str | None, total: int | None) -> tuple[dict[str, Any], list[dict]]:
    """(facts, warnings): the store's format and embedder, its size on disk, its knn index, pending tasks."""
    from kioko_core.store.format_mark import FORMAT_VERSION, read_mark

    facts: dict[str, Any] = {}
    warnings: list[dict[str, str]] = []
    mark, _ = read_mark(memory.store)
    facts["format"] = mark.format if mark is not None else None
    facts["embedder"] = memory.store_mark.embedder
    facts["embedder_dim"] = memory.store_mark.dim
    if mark is None:
        warnings.append(
            {
                "warning": f"the store carries no format mark (written before format {FORMAT_VERSION})",
                "do": "nothing: the next kioko.connect (any command but doctor) marks it in place; it reads as it is",
            }
        )
    elif mark.reembed:
        warnings.append(
            {
                "warning": f"a re-embedding to {mark.reembed.get('embedder')!r} was started and not finished",
                "do": f"run kioko reembed --store {url} --embedder {mark.reembed.get('embedder')} again to finish it",
            }
        )
    facts["size_bytes"] = _size_on_disk(memory, url)
    facts["ann"] = _ann_state(memory)
    if facts["ann"] == "off" and total is not None and total >= _exact_below(memory):
        warnings.append(
            {
                "warning": f"{user!r} has {total} memories and knn is exact (no HNSW graph)",
                "do": "pip install 'kioko[ann]' (usearch) and open the store with ?ann=auto (the default)",
            }
        )
    pending = _pending_maintenance(memory)
    facts["pending_maintenance"] = pending
    if pending:
        warnings.append(
            {
                "warning": f"{sum(pending.values())} maintenance task(s) queued for {len(pending)} scope(s)",
                "do": "they run on the next turns of those users, or now: kioko maintain --store URL",
            }
        )
    return facts, warnings


def _size_on_disk(memory: Any, url: str) -> int | None:
    """Bytes of the store's file or directory (with SQLite's -wal/-shm and .ann/), None for a server."""
    from kioko_core.store import registry
    from kioko_core.store.url import StoreURL

    parsed = StoreURL.parse(url)
    locate = getattr(registry._resolve(parsed.scheme), "local_path", None)
    path = locate(parsed) if locate is not None else None
    if path is None or not os.path.exists(path):
        return None
    total = 0
    for candidate in (path, path + "-wal", path + "-shm", path + ".ann"):
        if os.path.isdir(candidate):
            for folder, _dirs, files in os.walk(candidate):
                total += sum(os.path.getsize(os.path.join(folder, name)) for name in files)
        elif os.path.exists(candidate):
            total += os.path.getsize(candidate)
    return total


def _ann_state(memory: Any) -> str:
    """``"on"`` / ``"off"`` for a store whose knn may use an HNSW graph (memory://, sqlite://); ``"native"``
    for a store with its own index (PostgreSQL, Qdrant)."""
    driver = getattr(memory.store, "driver", memory.store)
    if not hasattr(driver, "_ann"):
        return "native" if getattr(driver.capabilities, "native_knn", False) else "n/a"
    from kioko_backends._ann import usearch_available

    return "on" if driver._ann is not None and usearch_available() else "off"


def _exact_below(memory: Any) -> int:
    from kioko_backends._ann import DEFAULT_EXACT_BELOW

    driver = getattr(memory.store, "driver", memory.store)
    settings = getattr(driver, "_ann", None)
    return int(getattr(settings, "exact_below", DEFAULT_EXACT_BELOW))


def _pending_maintenance(memory: Any) -> dict[str, int]:
    """Tasks queued in the maintenance counters, per ``user`` (or ``user/agent``)."""
    from kioko_core.store import Scope
    from kioko_intelligence.maintenance import COUNTER_KIND, MAINTENANCE_USER

    pending: dict[str, int] = {}
    for record in memory.store.scan(Scope(MAINTENANCE_USER, None)):
        queued = record.metadata.get("pending")
        if record.kind == COUNTER_KIND and isinstance(queued, list) and queued:
            who = str(record.metadata.get("user_id"))
            agent = record.metadata.get("agent_id")
            pending[f"{who}/{agent}" if agent else who] = len(queued)
    return pending
