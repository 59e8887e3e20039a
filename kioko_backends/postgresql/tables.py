"""The names of one store's tables and the SQL fragments that reads, writes and the schema share."""

from __future__ import annotations

from typing import Any

from psycopg import sql

from kioko_core.store import (
    Filter,
    Scope,
)


class _Names:
    """Quoted identifiers of one store's tables and indexes."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.meta = sql.Identifier(f"{prefix}_meta")
        self.records = sql.Identifier(f"{prefix}_records")
        self.postings = sql.Identifier(f"{prefix}_postings")
        self.scopes = sql.Identifier(f"{prefix}_scopes")
        self.term_df = sql.Identifier(f"{prefix}_term_df")
        self.changes = sql.Identifier(f"{prefix}_changes")
        self.links = sql.Identifier(f"{prefix}_links")
        self.link_order = sql.Identifier(f"{prefix}_links_order")
        """The sequence that numbers link entries as they are put: an owner's entries read in this order."""
        self.sharded_ids = sql.Identifier(f"{prefix}_ids")
        self.sharded = False
        """True for tables split by user (partitioned): ids then live in {p}_ids too, and writes name the user."""

    def index(self, name: str) -> sql.Identifier:
        return sql.Identifier(f"{self.prefix}_{name}")


_RECORD_COLUMNS = sql.SQL(
    "id, user_id, agent_id, kind, content, metadata, terms, embedding, session_id, created_at, updated_at, version"
)


def _forgotten_generation(names: _Names) -> sql.Composable:
    """What a scope without a counter row reads as: above every generation a forgotten scope reached."""
    return sql.SQL("coalesce((SELECT value::bigint FROM {} WHERE key = 'forgotten_generation'), 0)").format(names.meta)


def _agent(scope: Scope) -> str:
    return scope.agent_id or ""


def _filter_sql(filter: Filter | None) -> tuple[sql.Composable, dict[str, Any]]:
    """The WHERE clauses (each starting with AND) and parameters that reproduce ``Filter.matches``."""
    if filter is None:
        return sql.SQL(""), {}
    clauses: list[str] = []
    params: dict[str, Any] = {}
    if filter.kinds is not None:
        clauses.append("kind = ANY(%(f_kinds)s::text[])")
        params["f_kinds"] = sorted(filter.kinds)
    if filter.session_id is not None:
        clauses.append("session_id = %(f_session)s")
        params["f_session"] = filter.session_id
    if filter.created_after is not None:
        clauses.append("created_at >= %(f_after)s::float8")
        params["f_after"] = float(filter.created_after)
    if filter.created_before is not None:
        clauses.append("created_at < %(f_before)s::float8")
        params["f_before"] = float(filter.created_before)
    if filter.ids is not None:
        clauses.append("id = ANY(%(f_ids)s::text[])")
        params["f_ids"] = sorted(filter.ids)
    return sql.SQL("".join(f" AND {clause}" for clause in clauses)), params
