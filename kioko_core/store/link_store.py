"""``LinkStore``: an optional store capability that keeps each memory's links (its adjacency) apart from its record.

Without it the layer keeps a memory's links inside the record (``metadata["_kioko"]["links"]``), so adding one
link rewrites both memories' whole records. A store that implements this protocol keeps one row (entry, key,
point payload ...) per (scope, owner, other memory), and a batch writes only the entries that changed.

The rules a driver follows (``contract_tests/link_store.py`` checks them):

- An entry is a JSON object (the metadata rule of :data:`kioko_core.store.INPUT_RULE`) that the store keeps
  exactly, keyed by ``(scope, owner, other)``. The store does not read inside it.
- :meth:`LinkStore.update_with_links` is one unit: its ops exactly as :meth:`~kioko_core.store.Store.update_many`
  would apply them, then each :class:`LinkChange` in order; any refusal (an op's conflict, a change's
  ``expected_version``, a malformed entry) applies nothing of the call.
- A change removes the ``drop`` entries (and every entry of the owner when ``replace``), then puts each ``put``
  entry, which replaces the owner's entry for the same other memory and becomes the owner's last.
  :meth:`LinkStore.links` answers the entries in that order: the order the layer's lists had.
- A change whose owner does not exist in its scope once the ops are applied is refused with ``ConflictError``
  when it carries ``expected_version``, and otherwise skipped: no entry is ever kept for a missing record.
- A change bumps its owner's version by one, unless an op of the same call wrote the owner (one step per call,
  as for a record written once); so a version read before still guards the record *and* its links, and caches
  keyed by version stay right. For :class:`~kioko_core.store.ScopeGenerations` /
  :class:`~kioko_core.store.ScopeChanges` the owners count as records the call wrote.
- Deleting a record (a ``Delete``, or a forgotten scope) deletes the entries it owns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from kioko_core.store import ConflictError as ConflictError
from kioko_core.store import InvalidRecordError, Op, Record, Scope, check_scope, is_storable_text, metadata_problem


@dataclass(frozen=True)
class LinkChange:
    """What one call changes of one memory's links (see the module for the rules)."""

    scope: Scope
    owner: str
    """The id of the memory whose links these are."""
    put: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    """``(other memory's id, entry)`` pairs, in the order they become the owner's last entries."""
    drop: tuple[str, ...] = ()
    """Ids of other memories whose entries go."""
    replace: bool = False
    """Every entry of the owner goes first: the owner's links become exactly ``put``."""
    expected_version: int | None = field(default=None)
    """The owner's version this change was computed from (checked after the call's ops); None: not checked."""


@runtime_checkable
class LinkStore(Protocol):
    """Optional: a memory's links kept entry by entry (see the module). A store without it keeps the layer's
    links inside the record's metadata, which every store can hold."""

    def links(self, scope: Scope, ids: Sequence[str]) -> list[list[dict[str, Any]]]:
        """Per asked id, in the order asked: its entries in the order they were last put; ``[]`` for an id
        with none, a missing id or another scope's. One read for all ids."""
        ...

    def update_with_links(
        self, ops: Sequence[Op], changes: Sequence[LinkChange]
    ) -> tuple[list[Record | None], list[int | None]]:
        """Apply ``ops`` and then ``changes`` as one unit; return what ``update_many(ops)`` returns, and per
        change the owner's version after the call (None for a change skipped because its owner is missing)."""
        ...


@runtime_checkable
class LinkedGet(Protocol):
    """Optional, for a LinkStore whose database can answer a record read and its link entries in one round
    trip: the layer then reads a memory once instead of ``get`` followed by ``links``."""

    def get_with_links(
        self, scope: Scope, ids: Sequence[str]
    ) -> tuple[list[Record | None], dict[str, list[dict[str, Any]]]]:
        """What ``get(scope, ids)`` answers, and per id found the entries ``links`` would answer (ids without
        entries may be left out)."""
        ...


def validate_changes(changes: Sequence[LinkChange]) -> list[LinkChange]:
    """Check every change before anything is written: :class:`InvalidRecordError` for a malformed one."""
    if isinstance(changes, (str, bytes, LinkChange)) or not isinstance(changes, Sequence):
        raise InvalidRecordError(f"changes must be a list of LinkChange, got {type(changes).__name__}")
    checked: list[LinkChange] = []
    for change in changes:
        if not isinstance(change, LinkChange):
            raise InvalidRecordError(f"changes must be LinkChange values, got {type(change).__name__}")
        scope = check_scope(change.scope)
        if not _an_id(change.owner):
            raise InvalidRecordError(f"a link change's owner must be an id, got {change.owner!r}")
        for other in change.drop:
            if not _an_id(other):
                raise InvalidRecordError(f"a link change drops an entry by id, got {other!r}")
        for pair in change.put:
            if not isinstance(pair, tuple) or len(pair) != 2 or not _an_id(pair[0]):
                raise InvalidRecordError("a link change puts (other id, entry) pairs")
            entry = pair[1]
            problem = metadata_problem(entry if type(entry) is dict or not isinstance(entry, Mapping) else dict(entry))
            if problem:
                raise InvalidRecordError(
                    f"the link entry of {change.owner!r} for {pair[0]!r}: {problem.replace('metadata', 'entry', 1)}"
                )
        expected = change.expected_version
        if expected is not None and (type(expected) is not int or expected < 1):
            raise InvalidRecordError(f"a link change's expected_version must be None or >= 1, got {expected!r}")
        checked.append(change if scope == change.scope and type(change.scope) is Scope else _with_scope(change, scope))
    return checked


def _with_scope(change: LinkChange, scope: Scope) -> LinkChange:
    return LinkChange(scope, change.owner, change.put, change.drop, change.replace, change.expected_version)


def _an_id(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= 200 and is_storable_text(value)


def apply_change(entries: dict[str, dict[str, Any]], change: LinkChange) -> None:
    """``change`` applied to one owner's entries held as an insertion-ordered dict (other id -> entry): the
    reference semantics a driver reproduces (memory:// keeps its adjacency this way)."""
    if change.replace:
        entries.clear()
    for other in change.drop:
        entries.pop(other, None)
    for other, entry in change.put:
        entries.pop(other, None)  # a put moves the entry last
        entries[other] = _json_copy(entry)


def _json_copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _json_copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_copy(v) for v in value]
    return value


__all__ = ["LinkChange", "LinkStore", "apply_change", "validate_changes"]
