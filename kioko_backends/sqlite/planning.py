"""Planning a batch: the protocol's rules over the rows it found, and what changes per scope."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from kioko_backends.sqlite.rows import _Row, _State
from kioko_backends.sqlite.vectors import VectorChange
from kioko_core.store import (
    Op,
    Scope,
    plan_batch,
)

# --------------------------------------------------------------------------- planning a batch


@dataclass
class _Plan:
    """The outcome of a batch: the version each upsert stamps, and the final state of every id it changes."""

    versions: list[int | None]
    """Per op: the version its record is stored with, None for a delete."""
    final: dict[str, int | None]
    """id -> index of the op whose record is stored, or None to delete it.

    Only the last state of an id reaches the database; the states in between are invisible anyway.
    """


def _plan(ops: Sequence[Op], current: dict[str, _State]) -> _Plan:
    """The batch checked by the protocol's :func:`plan_batch`, as versions and final states."""
    planned = plan_batch(ops, {record_id: (state.scope, state.version) for record_id, state in current.items()})
    versions: list[int | None] = []
    final: dict[str, int | None] = {}
    for index, (op, stored, exists) in enumerate(planned):
        versions.append(stored.version if stored is not None else None)
        if stored is not None:
            final[stored.id] = index
        elif exists:
            final[op.id] = None  # type: ignore[union-attr]
    return _Plan(versions, final)


# --------------------------------------------------------------------------- helpers


def _scope_deltas(plan: _Plan, rows: list[_Row | None], current: dict[str, _State]) -> dict[Scope, int]:
    """Per changed scope (every one, even at 0), how its count of records with terms moves."""
    deltas: dict[Scope, int] = defaultdict(int)
    for record_id, index in plan.final.items():
        before = current.get(record_id)
        if before is not None:
            deltas[before.scope] -= int(before.has_terms)
        row = rows[index] if index is not None else None
        if row is not None:
            deltas[row.scope] += int(bool(row.terms))
    return deltas


def _vector_changes(plan: _Plan, rows: list[_Row | None], current: dict[str, _State]) -> list[VectorChange]:
    """Per changed id: the scope it left (or None), the scope it is in now (or None), its vector bytes."""
    changes = []
    for record_id, index in plan.final.items():
        before = current.get(record_id)
        row = rows[index] if index is not None else None
        changes.append(
            (record_id, before.scope if before else None, row.scope if row else None, row.embedding if row else None)
        )
    return changes
