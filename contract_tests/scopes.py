"""``ReservedScopeContract`` and ``ScopeListingContract``: what the store's mark and ``kioko reembed`` ask.

The layer keeps its mark (the store's format and embedder, :mod:`kioko_core.store.format_mark`) as a record of the
reserved user ``"@kioko"``; a driver stores it like any other record, and the first test checks that a user id
beginning with ``@`` round-trips. The optional ``scopes()`` listing lets ``kioko reembed`` (and a backup) walk
every scope of a store; a store without it skips those tests.
"""

from __future__ import annotations

import pytest

from contract_tests.base import StoreContractBase
from contract_tests.support import as_stored, make_record, new_scope, unique
from kioko_core.store import Delete, Scope, Store, Upsert

MARK_USER = "@kioko"


class ReservedScopeContract(StoreContractBase):
    """Kioko's own scopes (user ids beginning with ``@``) are stored like any other."""

    def test_the_layers_mark_round_trips_in_its_reserved_scope(self, store: Store) -> None:
        scope = Scope(MARK_USER, None)
        mark = make_record(
            scope,
            unique("contract-mark"),
            kind="store_mark",
            metadata={"format": 3, "embedder": "offline", "dim": 8, "reembed": {"done": ["kumar\x1f"]}},
        )
        try:
            store.update_many([Upsert(record=mark, expected_version=0)])
            assert store.get(scope, [mark.id]) == [as_stored(mark, 1)]
            moved = mark.model_copy(update={"metadata": {**mark.metadata, "embedder": "semantic"}})
            store.update_many([Upsert(record=moved, expected_version=1)])
            assert store.get(scope, [mark.id]) == [as_stored(moved, 2)]
            assert store.get(Scope(MARK_USER, "other"), [mark.id]) == [None], "scope isolation holds for it too"
        finally:
            store.update_many([Delete(id=mark.id, scope=scope)])


class ScopeListingContract(StoreContractBase):
    """``scopes()`` lists every (user_id, agent_id) that holds a record, and only those."""

    @staticmethod
    def listing(store: Store) -> Store:
        if not callable(getattr(store, "scopes", None)):
            pytest.skip("the store has no scopes() listing (optional): nothing to check")
        return store

    def test_every_scope_holding_a_record_is_listed_and_an_emptied_one_is_not(self, store: Store) -> None:
        lister = self.listing(store)
        kept, agent, emptied, never = new_scope(), new_scope("agent-1"), new_scope(), new_scope()
        records = [make_record(kept), make_record(agent), make_record(agent), make_record(emptied)]
        store.update_many([Upsert(record=r) for r in records])
        store.update_many([Delete(id=records[3].id, scope=emptied)])
        listed = {tuple(s) for s in lister.scopes()}  # type: ignore[attr-defined]
        assert (kept.user_id, None) in listed and (agent.user_id, "agent-1") in listed
        assert (agent.user_id, None) not in listed, "an agent's scope is not its user's scope"
        assert (emptied.user_id, None) not in listed, "a scope whose records are all deleted holds none"
        assert (never.user_id, None) not in listed
        assert all(isinstance(u, str) and (a is None or isinstance(a, str)) for u, a in listed)
