"""Every error Kioko raises on purpose, in one small hierarchy.

The store errors are part of the Store protocol: :mod:`kioko_core.store` re-exports them, so a driver
imports them from there and never from this module. The layer's own errors (a memory that is not in
the scope, a manager given another kind's id, a manual link a stronger link blocks, a refused secret)
live here too, so that any module can raise them without importing the layer.

::

    KiokoError
    ├── StoreError
    │   ├── ConflictError            a version expectation failed: read again, retry
    │   │   └── IdTaken              a new record's id is taken (in any scope): no retry helps
    │   ├── InvalidRecordError       bad input (also a ValueError); nothing was written
    │   │   ├── KindMismatch         memory.goals given a decision's id
    │   │   └── SecretDropped        a credential in what was to be stored
    │   ├── ConnectionLostError      the store's server went away
    │   └── MemoryNotFound           no such memory in this scope (also a KeyError)
    ├── LinkConflict                 a stronger author's link already joins the two memories
    ├── UnknownStoreError            no driver for a URL's scheme (also a ValueError)
    └── MissingExtraError            a driver's library is not installed (also an ImportError)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

_scrub: Callable[[str], str] | None = None


def scrub_messages(redact: Callable[[str], str]) -> None:
    """Redact every error message with ``redact`` from now on (:mod:`kioko_core.privacy.secrets` installs its own
    when imported; it imports this module, so this module cannot import it)."""
    global _scrub
    _scrub = redact


class KiokoError(Exception):
    """Base of every error Kioko raises on purpose.

    A message never repeats a secret: an id or a text quoted in it is redacted (``[redacted: api_key]``),
    since error messages reach logs, terminals and HTTP clients.
    """

    def __init__(self, *args: object) -> None:
        scrub = _scrub
        super().__init__(*(scrub(a) if scrub is not None and isinstance(a, str) else a for a in args))


class IntelligenceNeeded(KiokoError, AttributeError):
    """A call of the intelligence (``manage``, ``record_turn``, ``plan`` ...) asked of a layer without it: the core's
    :class:`~kioko_core.layer.memory_layer.MemoryLayer`. ``kioko.connect()``, ``kioko.MemoryLayer`` and
    ``kioko.intelligent()`` build a layer that has them. An AttributeError too: ``hasattr(layer, "manage")`` is False."""


class ExperimentalWarning(UserWarning):
    """A feature is documented as experimental: it may change or fail where its CI job is not yet green."""


class StoreError(KiokoError):
    """A store could not do what was asked; the message says why and what to do."""


class ConflictError(StoreError):
    """A write's ``expected_version`` did not match, or an id belongs to another scope.

    Nothing of the batch was applied: read the records again and retry.
    """


class IdTaken(ConflictError):
    """An upsert claims an id that is already taken: by a record of another scope, or (for a new record,
    ``expected_version=0``) by one that exists.

    Ids are unique across the whole store, so reading again and retrying cannot help: retry loops raise
    it at once, and the caller must choose another id (or update the record that has it).
    """


class IdUnavailable(IdTaken):
    """A new memory's id is taken in a scope the caller does not see (HTTP 404, as for an id that is not
    there): the answer does not confirm that another user's memory has it."""


class InvalidRecordError(StoreError, ValueError):
    """A record or argument is malformed (wrong vector length, NaN, bad scope ...). Nothing was written."""


class ConnectionLostError(StoreError):
    """The store's server went away. Nothing of the failed call is guaranteed to have been applied."""


class UnknownStoreError(KiokoError, ValueError):
    """No driver is registered for a URL's scheme."""


class MissingExtraError(KiokoError, ImportError):
    """A driver's library is not installed; the message names the ``pip install kioko[...]`` to run."""


class MemoryNotFound(StoreError, KeyError):
    """No memory with that id in this user's (and agent's) scope."""

    def __init__(self, memory_id: str, user_id: str | None = None) -> None:
        self.memory_id = memory_id
        whose = f" for user {user_id!r}" if user_id is not None else ""
        super().__init__(f"no memory {memory_id!r}{whose}")

    def __str__(self) -> str:
        return str(self.args[0])  # KeyError would show the message in quotes


class KindMismatch(InvalidRecordError):
    """The id names a memory of another kind (a decision given to ``memory.goals``); nothing was changed."""


class LinkConflict(KiokoError):
    """A link by hand was asked for where a stronger author's link already joins the two memories."""


class SecretDropped(InvalidRecordError):
    """The memory contains a credential (API key, token, password, private key ...); nothing was written.

    ``kinds`` names what was found (``["api_key"]``); the secret itself is never part of the message.
    Store a reference instead ("the deploy key is in the team vault") and write again.
    """

    def __init__(self, kinds: Iterable[str]) -> None:
        self.kinds: list[str] = list(dict.fromkeys(kinds))
        super().__init__(
            f"refused to store a secret ({', '.join(self.kinds)}): credentials never become memories. "
            "Remove it, or store where it is kept instead (for example 'the API key is in the vault'), "
            "and write again."
        )


__all__ = [
    "ConflictError",
    "ConnectionLostError",
    "IdTaken",
    "IdUnavailable",
    "IntelligenceNeeded",
    "InvalidRecordError",
    "KindMismatch",
    "KiokoError",
    "LinkConflict",
    "MemoryNotFound",
    "MissingExtraError",
    "SecretDropped",
    "StoreError",
    "UnknownStoreError",
]
