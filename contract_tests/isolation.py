"""Scope isolation: no method ever returns, changes or counts a record of another scope."""

from __future__ import annotations

import numpy as np
import pytest

from contract_tests.base import StoreContractBase
from contract_tests.support import as_stored, make_record, unique, vectors
from kioko_core.store import ConflictError, Delete, Filter, IdTaken, Record, Scope, Store, Upsert


class IsolationContract(StoreContractBase):
    """Four neighbouring scopes: a user alone, the same user's agent, another user, and that user's agent."""

    @pytest.fixture
    def scopes(self) -> dict[str, Scope]:
        user, stranger, agent = unique("user"), unique("user"), unique("agent")
        return {
            "mine": Scope(user, None),
            "my_agent": Scope(user, agent),
            "stranger": Scope(stranger, None),
            "stranger_agent": Scope(stranger, agent),
        }

    @pytest.fixture
    def populated(self, store: Store, scopes: dict[str, Scope]) -> dict[str, list[Record]]:
        """Each scope gets a different number of records, all sharing the term 'shared' and nearby vectors."""
        query = vectors(1, seed=301)[0]
        written: dict[str, list[Record]] = {}
        for count, (name, scope) in enumerate(scopes.items(), start=1):
            noise = vectors(count * 2, seed=302 + count) * (0.01 if name != "mine" else 0.5)
            written[name] = [
                make_record(scope, terms=["shared", name], embedding=query + n, kind="fact", session_id="same-session")
                for n in noise
            ]
        store.update_many([Upsert(record=r) for records in written.values() for r in records])
        return written

    def test_get(self, store: Store, scopes: dict[str, Scope], populated: dict[str, list[Record]]) -> None:
        """Each scope reads its own ids and None for every other scope's, agent None included."""
        every_id = [r.id for records in populated.values() for r in records]
        for name, scope in scopes.items():
            got = store.get(scope, every_id)
            own = {r.id for r in populated[name]}
            assert {r.id for r in got if r is not None} == own, f"get in scope {name}"
            assert all(r is None or r.scope == scope for r in got)

    def test_postings(self, store: Store, scopes: dict[str, Scope], populated: dict[str, list[Record]]) -> None:
        """df, ids and n of one scope ignore the same term in every other scope."""
        for name, scope in scopes.items():
            postings = store.postings(scope, ["shared", *scopes], limit=100)
            own = populated[name]
            assert postings.n == len(own), f"n in scope {name}"
            assert postings.df == {"shared": len(own), **{other: len(own) if other == name else 0 for other in scopes}}
            assert set(postings.ids["shared"]) == {r.id for r in own}

    def test_knn(self, store: Store, scopes: dict[str, Scope], populated: dict[str, list[Record]]) -> None:
        """knn of a scope returns only its records, though other scopes' vectors are closer to the query."""
        query = vectors(1, seed=301)[0]
        for name, scope in scopes.items():
            result = store.knn(scope, query, k=50)
            assert {n.id for n in result} == {r.id for r in populated[name]}, f"knn in scope {name}"

    def test_scan(self, store: Store, scopes: dict[str, Scope], populated: dict[str, list[Record]]) -> None:
        """scan of a scope yields its records only, with or without a filter."""
        for name, scope in scopes.items():
            own = sorted(r.id for r in populated[name])
            assert [r.id for r in store.scan(scope)] == own, f"scan in scope {name}"
            assert [r.id for r in store.scan(scope, Filter(kinds=frozenset({"fact"})), batch=1)] == own

    def test_an_ids_filter_cannot_reach_into_another_scope(
        self, store: Store, scopes: dict[str, Scope], populated: dict[str, list[Record]]
    ) -> None:
        """Naming another scope's ids in a filter finds nothing in knn or scan."""
        foreign = Filter(ids=frozenset(r.id for r in populated["stranger"] + populated["my_agent"]))
        assert list(store.scan(scopes["mine"], foreign)) == []
        assert store.knn(scopes["mine"], np.ones(self.dim), 10, foreign) == []

    def test_delete_of_another_scopes_id_is_a_no_op(
        self, store: Store, scopes: dict[str, Scope], populated: dict[str, list[Record]]
    ) -> None:
        """Deleting an id from the wrong scope answers None and leaves the record where it lives."""
        target = populated["my_agent"][0]
        for name in ("mine", "stranger", "stranger_agent"):
            assert store.update_many([Delete(id=target.id, scope=scopes[name])]) == [None]
        assert store.get(scopes["my_agent"], [target.id]) == [as_stored(target, 1)]

    def test_delete_of_another_scopes_id_expecting_its_version_conflicts(
        self, store: Store, scopes: dict[str, Scope], populated: dict[str, list[Record]]
    ) -> None:
        """From the wrong scope the record looks missing, so expecting version 1 is a conflict."""
        target = populated["stranger"][0]
        with pytest.raises(ConflictError):
            store.update_many([Delete(id=target.id, scope=scopes["mine"], expected_version=1)])
        assert store.get(scopes["stranger"], [target.id]) == [as_stored(target, 1)]

    def test_upsert_of_another_scopes_id_conflicts(
        self, store: Store, scopes: dict[str, Scope], populated: dict[str, list[Record]]
    ) -> None:
        """Writing an id that lives in another scope (even the same user's other agent) is a conflict."""
        for owner, intruder in (("mine", "my_agent"), ("my_agent", "mine"), ("stranger", "mine")):
            target = populated[owner][0]
            claim = make_record(scopes[intruder], target.id, content="not yours")
            for expected in (None, 0, 1):
                with pytest.raises(IdTaken):  # a conflict no retry can resolve
                    store.update_many([Upsert(record=claim, expected_version=expected)])
            assert store.get(scopes[owner], [target.id]) == [as_stored(target, 1)]
            assert store.get(scopes[intruder], [target.id]) == [None]
