"""The per-scope change log that SQLite and PostgreSQL keep for :class:`~kioko_core.store.ScopeChanges`.

Each committed batch adds, at each touched scope's new generation, one row per id it wrote into the
scope; a batch that removed a record from the scope (a delete, or a move to another scope) adds a single
row of id ``''`` instead and takes the removed ids' earlier rows away with their records, so no id of a
deleted record is left in the log. A cache asking for the changes after generation g gets them only when
every generation after g has its rows and none is a removal; otherwise it rebuilds, as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kioko_core.store import Scope, ScopeChangeSet

REMOVAL = ""
"""The id of the row that marks a batch which removed records from the scope."""


def batch_changes(finals: Iterable[tuple[str, Scope | None, Scope | None]]) -> dict[Scope, tuple[list[str], list[str]]]:
    """Per touched scope, (ids written into it, ids removed from it), from each changed id's
    (id, scope before or None, scope after or None)."""
    changes: dict[Scope, tuple[list[str], list[str]]] = {}
    for record_id, before, after in finals:
        if before is not None and before != after:
            changes.setdefault(before, ([], []))[1].append(record_id)
        if after is not None:
            changes.setdefault(after, ([], []))[0].append(record_id)
    return changes


def changes_from_rows(asked: int, rows: Sequence[Sequence[Any]]) -> ScopeChangeSet | None:
    """The answer to ``changes_since(scope, asked)`` from rows of (current generation, row generation or
    None, row id or None), all read in one consistent state; None unless the rows cover every generation
    after ``asked`` without a removal."""
    if not rows:
        return None
    now = int(rows[0][0])
    if now < asked:
        return None  # the scope's count restarted (its counter row was removed): nothing can be said
    covered: set[int] = set()
    ids: set[str] = set()
    for _, generation, record_id in rows:
        if generation is None:
            continue
        if record_id == REMOVAL:
            return None
        covered.add(int(generation))
        ids.add(record_id)
    if len(covered) != now - asked or (covered and (min(covered) != asked + 1 or max(covered) != now)):
        return None  # a batch without rows: pruned, or written by a Kioko that keeps no log
    return ScopeChangeSet(generation=now, ids=frozenset(ids))
