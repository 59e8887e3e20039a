"""Write planning: what one ``update_many`` transaction sends, gathered so it travels in one pipeline."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Json

from kioko_backends._changes import REMOVAL, batch_changes
from kioko_backends.postgresql.tables import _forgotten_generation, _Names
from kioko_core.store import (
    Op,
    Record,
    Scope,
    Upsert,
    plan_batch,
)

CHANGES_KEPT = 256
"""Generations per scope whose written ids ``{p}_changes`` keeps: a cache further behind rebuilds."""


class _LostBeforeWriting(Exception):
    """The connection failed while a write was still reading versions: nothing can have been applied."""

    def __init__(self, error: psycopg.OperationalError) -> None:
        super().__init__(str(error))
        self.error = error


# ---------------------------------------------------------------------- planning (mirrors MemoryStore)


class _Existing:
    """A locked row as the write transaction found it."""

    __slots__ = ("id", "scope", "version", "terms", "created_at", "has_embedding")

    def __init__(
        self,
        record_id: str,
        user_id: str,
        agent_id: str,
        version: int,
        terms: list[str],
        created_at: float,
        has_embedding: bool,
    ) -> None:
        self.id = record_id
        self.scope = Scope(user_id, agent_id or None)
        self.version = version
        self.terms = list(terms)
        self.created_at = created_at
        self.has_embedding = has_embedding


def _plan(
    ops: Sequence[Op], existing: dict[str, _Existing], foreign: dict[str, Scope]
) -> list[tuple[Op, Record | None, bool]]:
    """Check every op against the state the batch would see: the protocol's shared rules.

    ``foreign`` holds ids that belong to users outside the batch (tables split by user): only their
    scope matters, since an upsert of one is refused and a delete of one does nothing.
    """
    current = {key: (scope, 1) for key, scope in foreign.items() if key not in existing}
    current.update({key: (row.scope, row.version) for key, row in existing.items()})
    return plan_batch(ops, current)


def _only_inserts(ops: Sequence[Op]) -> bool:
    """True for a batch of upserts of distinct ids that all expect no record (expected_version=0)."""
    ids = [op.record.id for op in ops if isinstance(op, Upsert) and op.expected_version == 0]
    return len(ids) == len(ops) and len(set(ids)) == len(ids)


class _Writes:
    """The statements one transaction sends, gathered first so they travel in one pipeline."""

    def __init__(self) -> None:
        self.inserts: list[tuple[Any, ...]] = []
        self.updates: list[tuple[Any, ...]] = []
        self.deleted_ids: list[str] = []
        self.new_owners: list[tuple[str, str]] = []
        """(id, user_id) of inserted rows, for {p}_ids when the tables are split by user."""
        self.postings_out: list[tuple[str, str, str, float, str]] = []
        self.postings_in: list[tuple[str, str, str, float, str]] = []
        self.finals: list[tuple[str, Scope | None, Scope | None]] = []
        """(id, scope before, scope after) of every changed row, for {p}_changes."""
        self.counts: dict[tuple[str, str], list[int]] = {}
        """Per scope touched (every one, even at no change), the change in (records with terms, records with
        an embedding); each of these scopes' generation advances by one."""

    def insert(self, record: Record, metadata: Any) -> None:
        self.inserts.append(_row(record, metadata))
        self.new_owners.append((record.id, record.user_id))
        self.finals.append((record.id, None, record.scope))
        self._postings(None, record)
        self._count(record.scope, bool(record.terms), record.embedding is not None)

    def update(self, before: _Existing, record: Record, metadata: Any) -> None:
        """Replace a locked row. Its scope may differ: a batch may delete an id, then reuse it elsewhere."""
        self.updates.append(_row(record, metadata)[1:] + (record.id,))
        self.finals.append((record.id, before.scope, record.scope))
        self._postings(before, record)
        self._count(record.scope, bool(record.terms), record.embedding is not None)
        self._count(before.scope, bool(before.terms), before.has_embedding, sign=-1)

    def delete(self, before: _Existing) -> None:
        self.deleted_ids.append(before.id)
        self.finals.append((before.id, before.scope, None))
        self._postings(before, None)
        self._count(before.scope, bool(before.terms), before.has_embedding, sign=-1)

    def touch(self, row: _Existing) -> None:
        """A locked row whose links alone changed (LinkStore): a record the batch wrote, its terms unchanged."""
        self.finals.append((row.id, row.scope, row.scope))
        self._count(row.scope, False, False)

    def _postings(self, before: _Existing | None, record: Record | None) -> None:
        """Only the difference: a record whose scope, terms and created_at stay put touches no posting."""
        keep: set[str] = set()
        if (
            before is not None
            and record is not None
            and (before.scope, before.created_at) == (record.scope, record.created_at)
        ):
            keep = set(record.terms).intersection(before.terms)
        if before is not None:
            user, agent = before.scope.user_id, before.scope.agent_id or ""
            self.postings_out += [(user, agent, t, before.created_at, before.id) for t in before.terms if t not in keep]
        if record is not None:
            user, agent = record.user_id, record.agent_id or ""
            self.postings_in += [(user, agent, t, record.created_at, record.id) for t in record.terms if t not in keep]

    def _count(self, scope: Scope, with_terms: bool, with_embedding: bool, sign: int = 1) -> None:
        delta = self.counts.setdefault((scope.user_id, scope.agent_id or ""), [0, 0])
        delta[0] += sign * with_terms
        delta[1] += sign * with_embedding

    def send(self, cursor: psycopg.Cursor, names: _Names) -> None:
        if self.postings_out:
            cursor.execute(
                sql.SQL(
                    """DELETE FROM {} p USING unnest(%s::text[], %s::text[], %s::text[], %s::float8[], %s::text[])
                           AS d(user_id, agent_id, term, created_at, id)
                       WHERE p.user_id = d.user_id AND p.agent_id = d.agent_id AND p.term = d.term
                         AND p.created_at = d.created_at AND p.id = d.id"""
                ).format(names.postings),
                _columns(self.postings_out, 5),
            )
        if self.deleted_ids:
            cursor.execute(
                sql.SQL("DELETE FROM {} WHERE id = ANY(%s::text[])").format(names.records), [self.deleted_ids]
            )
            if names.sharded:
                cursor.execute(
                    sql.SQL("DELETE FROM {} WHERE id = ANY(%s::text[])").format(names.sharded_ids), [self.deleted_ids]
                )
        # rows in id order, so two batches touching the same ids wait for each other instead of deadlocking
        self.updates.sort(key=lambda row: row[-1])
        self.inserts.sort(key=lambda row: row[0])
        if self.updates:
            # split by user, the row's user (the same before and after) names its partition or shard
            cursor.executemany(
                sql.SQL(
                    "UPDATE {} SET user_id = %s, agent_id = %s, kind = %s, content = %s, metadata = %s, "
                    "terms = %s::text[], embedding = %s, session_id = %s, created_at = %s, updated_at = %s, "
                    "version = %s WHERE id = %s{}"
                ).format(names.records, sql.SQL(" AND user_id = %s") if names.sharded else sql.SQL("")),
                [row + (row[0],) for row in self.updates] if names.sharded else self.updates,
            )
        if self.inserts and names.sharded:
            # the primary key of {p}_ids refuses an id another user holds, as the records' key does unsplit
            cursor.execute(
                sql.SQL("INSERT INTO {} (id, user_id) SELECT * FROM unnest(%s::text[], %s::text[])").format(
                    names.sharded_ids
                ),
                _columns(sorted(self.new_owners), 2),
            )
        if self.inserts:
            cursor.executemany(
                sql.SQL(
                    "INSERT INTO {} (id, user_id, agent_id, kind, content, metadata, terms, embedding, "
                    "session_id, created_at, updated_at, version) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s::text[], %s, %s, %s, %s, %s)"
                ).format(names.records),
                self.inserts,
            )
        if self.postings_in:
            cursor.execute(
                sql.SQL(
                    "INSERT INTO {} (user_id, agent_id, term, created_at, id) "
                    "SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::float8[], %s::text[])"
                ).format(names.postings),
                _columns(self.postings_in, 5),
            )
        self._send_df(cursor, names)
        # every scope the batch touched, even one whose counts stay put (a neighbour's new link): its
        # generation must move. Sorted, and after the df rows, so two transactions lock the counters
        # in one order (df rows by (scope, term), then scope rows by scope) and never deadlock.
        touched = sorted(self.counts.items())
        if touched:
            cursor.execute(
                sql.SQL(
                    """INSERT INTO {scopes} AS s (user_id, agent_id, with_terms, with_embedding, generation)
                       SELECT *, 1 + {forgotten} FROM unnest(%s::text[], %s::text[], %s::int8[], %s::int8[])
                       ORDER BY 1, 2
                       ON CONFLICT (user_id, agent_id) DO UPDATE
                       SET with_terms = s.with_terms + excluded.with_terms,
                           with_embedding = s.with_embedding + excluded.with_embedding,
                           generation = s.generation + 1"""
                ).format(scopes=names.scopes, forgotten=_forgotten_generation(names)),
                [
                    [k[0] for k, _ in touched],
                    [k[1] for k, _ in touched],
                    [d[0] for _, d in touched],
                    [d[1] for _, d in touched],
                ],
            )
            self._send_changes(cursor, names, [key for key, _ in touched])

    def _send_changes(self, cursor: psycopg.Cursor, names: _Names, touched: list[tuple[str, str]]) -> None:
        """{p}_changes for this batch, at each touched scope's new generation (read from its counter row,
        which this transaction holds locked), and the scopes' rows older than CHANGES_KEPT generations."""
        removed: list[tuple[str, str, str]] = []
        logged: list[tuple[str, str, str]] = []
        for scope, (written, gone) in batch_changes(self.finals).items():
            user, agent = scope.user_id, scope.agent_id or ""
            removed += [(user, agent, record_id) for record_id in gone]
            logged += [(user, agent, REMOVAL)] if gone else [(user, agent, record_id) for record_id in written]
        if removed:
            # the removed ids leave the log with their records; the '' row sends caches to a rebuild
            cursor.execute(
                sql.SQL(
                    """DELETE FROM {changes} c USING unnest(%s::text[], %s::text[], %s::text[]) AS g(user_id, agent_id, id)
                       WHERE c.user_id = g.user_id AND c.agent_id = g.agent_id AND c.id = g.id"""
                ).format(changes=names.changes),
                _columns(removed, 3),
            )
        if logged:
            cursor.execute(
                sql.SQL(
                    """INSERT INTO {changes} (user_id, agent_id, generation, id)
                       SELECT c.user_id, c.agent_id, s.generation, c.id
                       FROM unnest(%s::text[], %s::text[], %s::text[]) AS c(user_id, agent_id, id)
                       JOIN {scopes} s ON s.user_id = c.user_id AND s.agent_id = c.agent_id
                       ON CONFLICT DO NOTHING"""
                ).format(changes=names.changes, scopes=names.scopes),
                _columns(logged, 3),
            )
        cursor.execute(
            sql.SQL(
                """DELETE FROM {changes} c USING {scopes} s, unnest(%s::text[], %s::text[]) AS t(user_id, agent_id)
                   WHERE s.user_id = t.user_id AND s.agent_id = t.agent_id AND s.generation %% 16 = 0
                     AND c.user_id = s.user_id AND c.agent_id = s.agent_id AND c.generation <= s.generation - %s"""
            ).format(changes=names.changes, scopes=names.scopes),
            [[k[0] for k in touched], [k[1] for k in touched], CHANGES_KEPT],
        )

    def _send_df(self, cursor: psycopg.Cursor, names: _Names) -> None:
        """Every term's df moved by this transaction's postings, in one statement.

        The rows go in (scope, term) order, as the scope counters after them, so two transactions that
        share terms take the row locks in one order and wait for each other instead of deadlocking.
        """
        deltas: dict[tuple[str, str, str], int] = {}
        for user, agent, term, _, _ in self.postings_in:
            deltas[user, agent, term] = deltas.get((user, agent, term), 0) + 1
        for user, agent, term, _, _ in self.postings_out:
            deltas[user, agent, term] = deltas.get((user, agent, term), 0) - 1
        changed = sorted((key, delta) for key, delta in deltas.items() if delta)
        if not changed:
            return
        cursor.execute(
            sql.SQL(
                """INSERT INTO {df} AS d (user_id, agent_id, term, df)
                   SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::int8[]) ORDER BY 1, 2, 3
                   ON CONFLICT (user_id, agent_id, term) DO UPDATE SET df = d.df + excluded.df"""
            ).format(df=names.term_df),
            [
                [k[0] for k, _ in changed],
                [k[1] for k, _ in changed],
                [k[2] for k, _ in changed],
                [d for _, d in changed],
            ],
        )
        gone = [key for key, delta in changed if delta < 0]
        if gone:
            # a term no record holds any more leaves no row: a forgotten memory's words do not linger
            cursor.execute(
                sql.SQL(
                    """DELETE FROM {df} d USING unnest(%s::text[], %s::text[], %s::text[]) AS g(user_id, agent_id, term)
                       WHERE d.user_id = g.user_id AND d.agent_id = g.agent_id AND d.term = g.term AND d.df <= 0"""
                ).format(df=names.term_df),
                [[k[0] for k in gone], [k[1] for k in gone], [k[2] for k in gone]],
            )


def _row(record: Record, metadata: Any) -> tuple[Any, ...]:
    return (
        record.id,
        record.user_id,
        record.agent_id or "",
        record.kind,
        record.content,
        metadata,
        record.terms,
        record.embedding,
        record.session_id,
        record.created_at,
        record.updated_at,
        record.version,
    )


def _columns(rows: list[tuple[Any, ...]], width: int) -> list[list[Any]]:
    return [[row[i] for row in rows] for i in range(width)] if rows else [[] for _ in range(width)]


def _encode_records(ops: Sequence[Op]) -> dict[int, Any]:
    """Each upsert's metadata as JSON text, keyed by op position.

    The column is ``json``, not ``jsonb``: it keeps this text verbatim, so key order and float spelling
    (``1e+16`` stays a float) come back as given. validate_ops let only JSON through.
    """
    return {
        position: Json(json.dumps(op.record.metadata, ensure_ascii=False, separators=(",", ":")), dumps=_already_json)
        for position, op in enumerate(ops)
        if isinstance(op, Upsert)
    }


def _already_json(value: str) -> str:
    return value
