"""One policy for read-modify-writes that race another writer: read fresh, apply again, or fail loudly.

Every change the layer makes to stored memories (an update, an outcome or progress counter, a manual
link or unlink, a merge, feedback) reads the records, computes the new versions and writes them with
``expected_version``. When another writer got there first the store raises :class:`ConflictError` and
applies nothing; :func:`retry_conflicts` then runs the whole step again, *from a fresh read*, so the
other writer's change is kept and ours is applied on top of it. Re-sending the stale copy is never done:
that is how an update used to erase another process's committed metadata.

A conflict no retry can resolve (:class:`IdTaken`: the id is another scope's, or a new record's id exists)
is raised at once. A call that returns normally has been applied. After at least :data:`WRITE_ATTEMPTS` lost races and
:data:`RETRY_SECONDS` of trying, the call raises :class:`ConflictError` (nothing of that call was
applied) and the caller may try again later.
"""

from __future__ import annotations

import functools
import random
import time
from typing import Any, Callable, TypeVar

from kioko_core.store import ConflictError, IdTaken

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

WRITE_ATTEMPTS = 12
"""A read-modify-write is tried at least this many times before :class:`ConflictError` reaches the caller."""

RETRY_SECONDS = 10.0
"""...and for at least this long: a slow write (a content update is analysed and linked again) can lose
many races in a row to quick ones on a loaded machine, and must still get its turn."""

BACKOFF_SECONDS = 0.002
"""First wait after a lost race; doubled after each (with jitter), capped at :data:`MAX_BACKOFF_SECONDS`."""

MAX_BACKOFF_SECONDS = 0.1


def retry_conflicts(
    what: str, attempt: Callable[[], T], attempts: int | None = None, seconds: float | None = None
) -> T:
    """Run ``attempt`` (which must read what it changes afresh each time) until no ConflictError stops it.

    ``what`` describes the call for the final error ("update of memory 'abc'"); ``attempts`` and
    ``seconds`` default to :data:`WRITE_ATTEMPTS` and :data:`RETRY_SECONDS`.
    """
    attempts = WRITE_ATTEMPTS if attempts is None else attempts
    deadline = time.monotonic() + (RETRY_SECONDS if seconds is None else seconds)
    lost = 0
    while True:
        try:
            return attempt()
        except IdTaken:
            raise  # an id that is taken stays taken: no fresh read changes that
        except ConflictError as error:
            lost += 1
            if lost >= attempts and time.monotonic() >= deadline:
                raise ConflictError(
                    f"{what} lost the race to other writers {lost} times in a row, so nothing of it was "
                    "applied; try again"
                ) from error
            # random waits keep racing writers from colliding again in lock step
            time.sleep(random.uniform(0, min(MAX_BACKOFF_SECONDS, BACKOFF_SECONDS * 2 ** min(lost, 10))))


def retrying(what: str) -> Callable[[F], F]:
    """Decorate a method whose every run reads what it changes afresh: it is retried as a whole on a conflict."""

    def decorate(method: F) -> F:
        @functools.wraps(method)
        def run(*args: Any, **kwargs: Any) -> Any:
            return retry_conflicts(what, lambda: method(*args, **kwargs))

        return run  # type: ignore[return-value]

    return decorate
