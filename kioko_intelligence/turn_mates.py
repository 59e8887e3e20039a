"""The memories one routed turn wrote, read back: recall brings a found memory's turn-mates (see
:mod:`kioko_core.recall.turn_mates`).

Every memory a managed turn adds carries the turn's number (:data:`.turn.TURN_KEY`), and its session is an index
term, so a record's turn-mates are one postings call for its session and one get, never a scan.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kioko_core.reading.query_and_draft import SESSION_TERM
from kioko_core.store import Record, Scope
from kioko_intelligence.turn import turn_of

SESSION_READ = 400
"""The session's memories looked at: a turn-mate of a session longer than this may be missed (a newer one is not)."""


def turn_mates(layer: Any, scope: Scope, records: Sequence[Record]) -> dict[str, list[Record]]:
    """{record id: the other memories of ``scope`` its turn wrote, in the order they were written} for each of
    ``records`` that a numbered turn of a session wrote."""
    wanted = {r.id: (r.session_id, turn_of(r)) for r in records if r.session_id and turn_of(r) is not None}
    if not wanted:
        return {}
    terms = sorted({SESSION_TERM + str(session) for session, _ in wanted.values()})
    postings = layer.index.lookup(scope, terms, SESSION_READ)[2]
    ids = list(dict.fromkeys(i for term in terms for i in postings.get(term, [])))
    found = [r for r in layer.store.get(scope, ids) if r is not None] if ids else []
    mates: dict[str, list[Record]] = {}
    for record_id, (session, turn) in wanted.items():
        same = [r for r in found if r.id != record_id and r.session_id == session and turn_of(r) == turn]
        if same:
            mates[record_id] = sorted(same, key=lambda r: (r.created_at, r.id))
    return mates


__all__ = ["SESSION_READ", "turn_mates"]
