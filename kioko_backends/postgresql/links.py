"""LinkStore on PostgreSQL: which link entries one ``update_with_links`` transaction writes, and its answer.

``{p}_links`` holds one row per (user, owner, other memory) with the entry as ``json`` (kept as written, like
the records' metadata) and ``seq``, the next number of ``{p}_links_order`` taken when the entry was put: an
owner's entries read in ``seq`` order are in the order they were last put. The owners' record rows are locked
(``FOR UPDATE``) in the transaction's first round trip, with the ops' rows, so the versions checked here are
the ones the commit replaces, and two calls writing one owner's entries take their numbers in commit order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import psycopg
from psycopg import sql

from kioko_backends.postgresql.tables import _Names
from kioko_backends.postgresql.writes import _columns, _Existing
from kioko_core.store import ConflictError, Delete, Op, Record, Scope
from kioko_core.store.link_store import LinkChange

_Planned = list[tuple[Op, Record | None, bool]]


class _Net:
    """What a call's changes do to one owner's entries, folded into one clear, one drop and one put."""

    __slots__ = ("scope", "cleared", "dropped", "puts")

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.cleared = False
        self.dropped: dict[str, None] = {}
        self.puts: dict[str, Mapping[str, Any]] = {}

    def apply(self, change: LinkChange) -> None:
        # the same result as apply_change run change by change: a put moves its entry last, a drop or a
        # replace forgets what an earlier change of the call put
        if change.replace:
            self.cleared = True
            self.dropped.clear()
            self.puts.clear()
        for other in change.drop:
            self.puts.pop(other, None)
            self.dropped[other] = None
        for other, entry in change.put:
            self.puts.pop(other, None)
            self.puts[other] = entry


class LinkWrites:
    """The link statements' rows of one transaction (sent by ``_Writes.send``)."""

    def __init__(self) -> None:
        self.cleared: list[tuple[str, str]] = []
        """(user, owner) whose entries all go: a replace, or a record deleted by the call."""
        self.dropped: list[tuple[str, str, str]] = []
        self.put: list[tuple[str, str, str, str, str]] = []
        """(user, agent, owner, other, entry as JSON text) in the order they are put."""
        self.bumped: list[_Existing] = []
        """Owners whose links alone changed: their version moves by one, their scope counts them as written."""


def plan_links(
    changes: Sequence[LinkChange], planned: _Planned, existing: Mapping[str, _Existing]
) -> tuple[LinkWrites, list[int | None]]:
    """The link writes of ``changes`` applied after the ops ``planned`` (locked rows ``existing``), and each
    change's owner version after the call; ``ConflictError`` when a change's ``expected_version`` does not hold."""
    after: dict[str, tuple[Scope, int] | None] = {}  # each id an op wrote, as the ops leave it
    writes = LinkWrites()
    for op, stored, exists in planned:
        if stored is not None:
            after[stored.id] = (stored.scope, stored.version)
        elif exists:  # a delete of another scope's id leaves it as it is
            assert isinstance(op, Delete)
            after[op.id] = None
            writes.cleared.append((op.scope.user_id, op.id))  # a deleted record's entries go with it

    def owner(change: LinkChange) -> tuple[Scope, int] | None:
        if change.owner in after:
            found = after[change.owner]
        else:
            row = existing.get(change.owner)
            found = None if row is None else (row.scope, row.version)
        return found if found is not None and found[0] == change.scope else None

    for change in changes:
        found = owner(change)
        if change.expected_version is not None and (found is None or found[1] != change.expected_version):
            shown = "missing" if found is None else f"at version {found[1]}"
            raise ConflictError(f"record {change.owner!r} is {shown}, expected {change.expected_version}")
    nets: dict[str, _Net] = {}
    bumped: dict[str, _Existing] = {}
    versions: list[int | None] = []
    for change in changes:
        found = owner(change)
        if found is None:
            versions.append(None)  # no entry is ever kept for a missing record
            continue
        nets.setdefault(change.owner, _Net(change.scope)).apply(change)
        if change.owner not in after:
            bumped[change.owner] = existing[change.owner]
        versions.append(found[1] + (change.owner in bumped))
    for owner_id, net in nets.items():
        user, agent = net.scope.user_id, net.scope.agent_id or ""
        if net.cleared:
            writes.cleared.append((user, owner_id))
        writes.dropped += [(user, owner_id, other) for other in net.dropped]
        writes.put += [(user, agent, owner_id, other, _json(entry)) for other, entry in net.puts.items()]
    writes.bumped = list(bumped.values())
    return writes, versions


def _json(entry: Mapping[str, Any]) -> str:
    return json.dumps(dict(entry), ensure_ascii=False, separators=(",", ":"))


def send_links(cursor: psycopg.Cursor, names: _Names, writes: LinkWrites) -> None:
    """Queue the link statements (after the records': every owner's row is locked by then, so two
    transactions never wait for each other's link rows in opposite orders)."""
    if writes.cleared:
        cursor.execute(
            sql.SQL(
                """DELETE FROM {} l USING unnest(%s::text[], %s::text[]) AS d(user_id, owner)
                   WHERE l.user_id = d.user_id AND l.owner = d.owner"""
            ).format(names.links),
            _columns(writes.cleared, 2),
        )
    if writes.dropped:
        cursor.execute(
            sql.SQL(
                """DELETE FROM {} l USING unnest(%s::text[], %s::text[], %s::text[]) AS d(user_id, owner, other)
                   WHERE l.user_id = d.user_id AND l.owner = d.owner AND l.other = d.other"""
            ).format(names.links),
            _columns(writes.dropped, 3),
        )
    if writes.put:
        # numbered in the order given (nextval runs per row as the ordinality-ordered rows are produced); a put
        # of an entry already there takes a new number, which moves it last
        cursor.execute(
            sql.SQL(
                """INSERT INTO {links} AS l (user_id, agent_id, owner, other, seq, entry)
                   SELECT p.user_id, p.agent_id, p.owner, p.other, nextval({order}), p.entry::json
                   FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[])
                        WITH ORDINALITY AS p(user_id, agent_id, owner, other, entry, n)
                   ORDER BY p.n
                   ON CONFLICT (user_id, owner, other) DO UPDATE
                   SET agent_id = excluded.agent_id, seq = excluded.seq, entry = excluded.entry"""
            ).format(links=names.links, order=sql.Literal(f"{names.prefix}_links_order")),
            _columns(writes.put, 5),
        )
    if writes.bumped:
        ids = sorted(row.id for row in writes.bumped)
        if names.sharded:
            users = sorted({row.scope.user_id for row in writes.bumped})
            cursor.execute(
                sql.SQL(
                    "UPDATE {} SET version = version + 1 WHERE user_id = ANY(%s::text[]) AND id = ANY(%s::text[])"
                ).format(names.records),
                [users, ids],
            )
        else:
            cursor.execute(
                sql.SQL("UPDATE {} SET version = version + 1 WHERE id = ANY(%s::text[])").format(names.records), [ids]
            )
