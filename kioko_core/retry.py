"""One policy for read-modify-writes that race another writer: read fresh, apply again, or fail loudly.

Every change the layer makes to stored memories (an update, an outcome or progress counter, a manual
link or unlink, a merge, feedback) reads the records, computes the new versions and writes them with
``expected_version``. When another writer got there first the store raises :class:`ConflictError` and
applies nothing; :func:`retry_conflicts` then runs the whole step again, *from a fresh read*, so the
other writer's change is kept and ours is applied on top of it. Re-sending the stale copy is never done:
that is how an update used to erase another process's committed metadata.

A call that returns normally has been applied. After :data:`WRITE_ATTEMPTS` lost races the call raises
:class:`ConflictError` (nothing of that call was applied) and the caller may try again later.
"""

from __future__ import annotations

import functools
import random
import time
from typing import Any, Callable, TypeVar

from .store import ConflictError

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

WRITE_ATTEMPTS = 12
"""How many times a read-modify-write is tried before :class:`ConflictError` reaches the caller."""

BACKOFF_SECONDS = 0.002
"""First wait after a lost race; doubled after each (with jitter), capped at :data:`MAX_BACKOFF_SECONDS`."""

MAX_BACKOFF_SECONDS = 0.1


def retry_conflicts(what: str, attempt: Callable[[], T], attempts: int = WRITE_ATTEMPTS) -> T:
    """Run ``attempt`` (which must read what it changes afresh each time) until no ConflictError stops it.

    ``what`` describes the call for the final error ("update of memory 'abc'").
    """
    for number in range(attempts):
        try:
            return attempt()
        except ConflictError as error:
            if number + 1 == attempts:
                raise ConflictError(
                    f"{what} lost the race to other writers {attempts} times in a row, so nothing of it was "
                    "applied; try again") from error
            # random waits keep racing writers from colliding again in lock step
            time.sleep(random.uniform(0, min(MAX_BACKOFF_SECONDS, BACKOFF_SECONDS * 2 ** number)))
    raise AssertionError("unreachable: the loop returns or raises")


def retrying(what: str) -> Callable[[F], F]:
    """Decorate a method whose every run reads what it changes afresh: it is retried as a whole on a conflict."""

    def decorate(method: F) -> F:
        @functools.wraps(method)
        def run(*args: Any, **kwargs: Any) -> Any:
            return retry_conflicts(what, lambda: method(*args, **kwargs))

        return run  # type: ignore[return-value]

    return decorate
