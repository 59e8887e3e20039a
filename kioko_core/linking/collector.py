"""The cycle collector's automatic passes held off while a long write runs in batches: ``add_many``
(:mod:`kioko_core.layer.bulk`) and ``connect``'s backfill (:mod:`kioko_core.linking.relink`).

A batch's records live about a second, long enough to reach the oldest generation, so the collector kept
starting full passes, and a full pass walks every object of the process: the records an import returns, the
index cache, the caller's items. Those passes were a third of a batched memory's CPU past 6,000 memories and grew
with the import (cProfile and ``gc.callbacks`` of ``benchmarks/bulk_import.py``'s fill: 0.46 ms a memory over the
first 3,000, 1.9 ms from 6,000 to 12,000). Instead, the writer collects the young generations itself after each
batch and every generation after every :data:`FULL_PASS_BATCHES` (:func:`after_batch`), freezing (``gc.freeze``) what
such a pass leaves alive until the write ends, so a full pass walks the objects made since the last. The hold-off is the
process's (the collector is one per process): automatic collection comes back when the last such write of the
process ends, as it was before the first began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

FULL_PASS_BATCHES = 64
"""Batches between two full passes of the cycle collector during a held-off write: a safety net for cycles it lets
go. The one that mattered (a cached record and the linker's view of it) is gone: at 12,000 memories an import's peak
memory is the same with a full pass every 8 batches or none (404 MB)."""

_LOCK = threading.Lock()
_holding = [0, False, False]
"""Held-off writes running in this process; whether the collector was on before the first; whether they froze the
objects a full pass left (:func:`after_batch`)."""


@contextmanager
def held_off() -> Iterator[None]:
    """The collector's automatic passes off for the body (see the module); back as they were after the last one."""
    with _LOCK:
        if _holding[0] == 0:
            _holding[1] = gc.isenabled()
            gc.disable()
        _holding[0] += 1
    try:
        yield
    finally:
        with _LOCK:
            _holding[0] -= 1
            if _holding[0] == 0:
                if _holding[2]:
                    gc.unfreeze()  # the frozen objects go back to the oldest generation, collected as before
                    _holding[2] = False
                if _holding[1]:
                    gc.enable()


def after_batch(number: int) -> None:
    """The collection a held-off write makes after its ``number``-th batch (from 1): the young generations (a short
    pass), every generation after every :data:`FULL_PASS_BATCHES` (a full pass walks every live object; cycles a
    write let go would stay until its end without one: 14 GB at 100,000 memories while a record and its Side were
    one)."""
    if number % FULL_PASS_BATCHES:
        gc.collect(1)
        return
    gc.collect(2)
    # what the full pass left alive (the import's cached records, the caller's items) is frozen until the last
    # held-off write ends, so the next full pass walks only what was made since: each pass walked every object of
    # the process, about 0.5 s of CPU per 10,000 memories imported, a pass every 16,384 memories. Never when the
    # process froze objects itself: their unfreezing is the process's, not this module's
    with _LOCK:
        if _holding[0] and (_holding[2] or gc.get_freeze_count() == 0):
            gc.freeze()
            _holding[2] = True
