"""``LinkStoreContract``: the optional capability that keeps each memory's links entry by entry
(:class:`~kioko_core.store.link_store.LinkStore`). A store without ``links`` / ``update_with_links`` skips these
tests (the layer then keeps links inside the records' metadata, which every store can hold).
"""

from __future__ import annotations

import pytest

from contract_tests.base import StoreContractBase
from contract_tests.support import make_record, new_scope
from kioko_core.store import (
    ConflictError,
    Delete,
    InvalidRecordError,
    Scope,
    ScopeChanges,
    ScopeGenerations,
    Store,
    Upsert,
)
from kioko_core.store.link_store import LinkChange, LinkStore


def _entry(other: str, weight: float = 0.5, **more: object) -> dict[str, object]:
    """An entry as the layer writes one (the store keeps it as given, whatever its keys)."""
    return {"id": other, "type": "related_to", "dir": "out", "w": weight, "by": "auto", "why": "shared words", **more}


class LinkStoreContract(StoreContractBase):
    """Entries kept per (scope, owner, other), in the order last put; written with the record batch as one unit."""

    @staticmethod
    def linking(store: Store) -> LinkStore:
        if not isinstance(store, LinkStore):
            pytest.skip(
                "the store has no links()/update_with_links() (LinkStore is optional): the layer keeps links "
                "inside the records' metadata on it"
            )
        return store

    def test_entries_come_back_in_the_order_last_put(self, store: Store, scope: Scope) -> None:
        links = self.linking(store)
        owner = make_record(scope)
        links.update_with_links([Upsert(record=owner)], [])
        put = tuple((other, _entry(other)) for other in ("c", "a", "b"))
        links.update_with_links([], [LinkChange(scope, owner.id, put=put)])
        assert [e["id"] for e in links.links(scope, [owner.id])[0]] == ["c", "a", "b"]
        # a put of an entry already there replaces it and moves it last; a drop removes one
        links.update_with_links([], [LinkChange(scope, owner.id, put=(("c", _entry("c", 0.9)),), drop=("a",))])
        assert links.links(scope, [owner.id])[0] == [_entry("b"), _entry("c", 0.9)]
        # replace: exactly the entries put
        links.update_with_links([], [LinkChange(scope, owner.id, put=(("z", _entry("z")),), replace=True)])
        assert links.links(scope, [owner.id])[0] == [_entry("z")]

    def test_an_entry_is_kept_exactly(self, store: Store, scope: Scope) -> None:
        links = self.linking(store)
        owner = make_record(scope)
        entry = _entry(
            "x", 0.1234, at=1.5e9, seen=1.7e9, shared=True, why='naïve 漢字 \u2028 "quoted"', nested={"a": [1, None]}
        )
        links.update_with_links([Upsert(record=owner)], [LinkChange(scope, owner.id, put=(("x", entry),))])
        assert links.links(scope, [owner.id]) == [[entry]]

    def test_links_answers_per_id_in_the_order_asked(self, store: Store, scope: Scope) -> None:
        links = self.linking(store)
        first, second, bare = make_record(scope), make_record(scope), make_record(scope)
        links.update_with_links(
            [Upsert(record=r) for r in (first, second, bare)],
            [
                LinkChange(scope, first.id, put=((second.id, _entry(second.id)),)),
                LinkChange(scope, second.id, put=((first.id, _entry(first.id, dir="in")),)),
            ],
        )
        answer = links.links(scope, [second.id, "no-such-id", bare.id, first.id])
        assert answer == [[_entry(first.id, dir="in")], [], [], [_entry(second.id)]]
        assert links.links(new_scope(), [first.id]) == [[]], "another scope's record has no links there"

    def test_a_change_bumps_its_owners_version_once_per_call(self, store: Store, scope: Scope) -> None:
        links = self.linking(store)
        owner, other = make_record(scope), make_record(scope)
        stored, versions = links.update_with_links([Upsert(record=owner), Upsert(record=other)], [])
        assert [r.version for r in stored if r is not None] == [1, 1] and versions == []
        _, versions = links.update_with_links(
            [],
            [
                LinkChange(scope, owner.id, put=(("a", _entry("a")),), expected_version=1),
                LinkChange(scope, owner.id, put=(("b", _entry("b")),)),
            ],
        )
        assert versions == [2, 2], "two changes of one owner in one call are one step of its version"
        found = store.get(scope, [owner.id, other.id])
        assert [r.version for r in found if r is not None] == [2, 1]
        assert found[0] is not None and found[0].metadata == owner.metadata and found[0].content == owner.content
        # an owner written by an op of the same call takes that op's step only
        stored, versions = links.update_with_links(
            [Upsert(record=other, expected_version=1)], [LinkChange(scope, other.id, put=(("a", _entry("a")),))]
        )
        assert stored[0] is not None and stored[0].version == 2 and versions == [2]

    def test_expected_version_guards_the_links_as_it_guards_the_record(self, store: Store, scope: Scope) -> None:
        links = self.linking(store)
        owner, bystander = make_record(scope), make_record(scope)
        links.update_with_links([Upsert(record=owner)], [])
        with pytest.raises(ConflictError):
            links.update_with_links(
                [Upsert(record=bystander)], [LinkChange(scope, owner.id, put=(("a", _entry("a")),), expected_version=7)]
            )
        assert store.get(scope, [bystander.id]) == [None], "a refused change applies nothing of the call"
        assert links.links(scope, [owner.id]) == [[]]
        with pytest.raises(ConflictError):  # a missing owner expected at a version is a conflict too
            links.update_with_links(
                [], [LinkChange(scope, "never-written", put=(("a", _entry("a")),), expected_version=1)]
            )

    def test_a_changes_expected_version_is_read_after_the_ops_and_before_the_bump(
        self, store: Store, scope: Scope
    ) -> None:
        """A change's expected_version is the owner's version once the call's ops ran and before the call's own
        step: the same for every change of one owner in one call. A skipped change answers None."""
        links = self.linking(store)
        owner = make_record(scope)
        links.update_with_links([Upsert(record=owner)], [])  # version 1
        with pytest.raises(ConflictError):  # an op of the call wrote the owner: 1 is the version before the ops
            links.update_with_links(
                [Upsert(record=owner, expected_version=1)],
                [LinkChange(scope, owner.id, put=(("a", _entry("a")),), expected_version=1)],
            )
        assert [r.version for r in store.get(scope, [owner.id]) if r is not None] == [1]
        _, versions = links.update_with_links(
            [Upsert(record=owner, expected_version=1)],
            [LinkChange(scope, owner.id, put=(("a", _entry("a")),), expected_version=2)],
        )
        assert versions == [2], "the op's step is the owner's only one in the call"
        _, versions = links.update_with_links(
            [],
            [
                LinkChange(scope, owner.id, put=(("b", _entry("b")),), expected_version=2),
                LinkChange(scope, owner.id, put=(("c", _entry("c")),), expected_version=2),
            ],
        )
        assert versions == [3, 3], "both changes are checked against 2, and the call steps the version once"
        with pytest.raises(ConflictError):  # a later change of the call does not see the call's own step
            links.update_with_links(
                [],
                [
                    LinkChange(scope, owner.id, drop=("a",), expected_version=3),
                    LinkChange(scope, owner.id, drop=("b",), expected_version=4),
                ],
            )
        assert [e["id"] for e in links.links(scope, [owner.id])[0]] == ["a", "b", "c"]
        passing = make_record(scope)
        _, versions = links.update_with_links(
            [Upsert(record=passing), Delete(id=passing.id, scope=scope)],
            [LinkChange(scope, passing.id, put=(("a", _entry("a")),)), LinkChange(scope, owner.id, drop=("c",))],
        )
        assert versions == [None, 4], "a change whose owner is gone once the ops ran is skipped, and says None"
        assert links.links(scope, [passing.id, owner.id]) == [[], [_entry("a"), _entry("b")]]

    def test_a_conflicting_op_applies_no_change(self, store: Store, scope: Scope) -> None:
        links = self.linking(store)
        owner = make_record(scope)
        links.update_with_links([Upsert(record=owner)], [])
        with pytest.raises(ConflictError):
            links.update_with_links(
                [Upsert(record=owner, expected_version=5)], [LinkChange(scope, owner.id, put=(("a", _entry("a")),))]
            )
        assert links.links(scope, [owner.id]) == [[]]
        assert [r.version for r in store.get(scope, [owner.id]) if r is not None] == [1]

    def test_a_change_of_a_missing_owner_keeps_nothing(self, store: Store, scope: Scope) -> None:
        links = self.linking(store)
        elsewhere = make_record(new_scope())
        links.update_with_links([Upsert(record=elsewhere)], [])
        _, versions = links.update_with_links(
            [],
            [
                LinkChange(scope, "never-written", put=(("a", _entry("a")),)),
                LinkChange(scope, elsewhere.id, put=(("a", _entry("a")),)),  # the id lives in another scope
            ],
        )
        assert versions == [None, None]
        assert links.links(elsewhere.scope, [elsewhere.id]) == [[]]
        # a record written later under that id starts without links
        late = make_record(scope, "never-written")
        links.update_with_links([Upsert(record=late)], [])
        assert links.links(scope, [late.id]) == [[]]

    def test_a_deleted_record_takes_its_links_with_it(self, store: Store, scope: Scope) -> None:
        links = self.linking(store)
        owner, other = make_record(scope), make_record(scope)
        links.update_with_links(
            [Upsert(record=owner), Upsert(record=other)],
            [LinkChange(scope, owner.id, put=((other.id, _entry(other.id)),))],
        )
        # a change of the owner in the same call as its delete is skipped (the owner is gone once the ops ran)
        _, versions = links.update_with_links(
            [Delete(id=owner.id, scope=scope)], [LinkChange(scope, owner.id, put=(("b", _entry("b")),))]
        )
        assert versions == [None]
        store.update_many([Upsert(record=owner.model_copy(update={"version": 0}), expected_version=0)])
        assert links.links(scope, [owner.id]) == [[]], "a record written again under a deleted id has no old links"
        # an upsert replacing a record keeps its links
        links.update_with_links([], [LinkChange(scope, owner.id, put=(("c", _entry("c")),))])
        store.update_many([Upsert(record=owner.model_copy(update={"content": "changed"}))])
        assert [e["id"] for e in links.links(scope, [owner.id])[0]] == ["c"]

    def test_malformed_changes_are_refused_before_anything_is_written(self, store: Store, scope: Scope) -> None:
        links = self.linking(store)
        owner, fresh = make_record(scope), make_record(scope)
        links.update_with_links([Upsert(record=owner)], [])
        bad = [
            [LinkChange(scope, owner.id, put=(("a", {"w": float("nan")}),))],
            [LinkChange(scope, owner.id, put=(("a", {"why": "nul\x00"}),))],
            [LinkChange(scope, owner.id, put=(("", _entry("a")),))],
            [LinkChange(scope, owner.id, put=(("a", {"set": {1, 2}}),))],  # type: ignore[dict-item]
            [LinkChange(scope, "", put=(("a", _entry("a")),))],
            [LinkChange(scope, owner.id, drop=("a\x00",))],
            [LinkChange(scope, owner.id, expected_version=-1)],
            ["not a change"],
        ]
        for changes in bad:
            with pytest.raises(InvalidRecordError):
                links.update_with_links([Upsert(record=fresh)], changes)  # type: ignore[arg-type]
        assert store.get(scope, [fresh.id]) == [None]
        assert links.links(scope, [owner.id]) == [[]]

    def test_a_call_counts_once_and_names_its_owners(self, store: Store, scope: Scope) -> None:
        """With ScopeGenerations: one step per call touching the scope; with ScopeChanges: the owners are among
        the records written (a cache holding the owner at its old version must read it again)."""
        links = self.linking(store)
        if not isinstance(store, ScopeGenerations):
            pytest.skip("the store has no generation(scope) (optional): nothing to count")
        owner = make_record(scope)
        links.update_with_links([Upsert(record=owner)], [])
        before = store.generation(scope)
        links.update_with_links(
            [], [LinkChange(scope, owner.id, put=(("a", _entry("a")),)), LinkChange(scope, owner.id, drop=("a",))]
        )
        assert store.generation(scope) == before + 1
        if isinstance(store, ScopeChanges):
            changes = store.changes_since(scope, before)
            assert changes is not None and owner.id in changes.ids

    def test_links_outlive_a_reopen_and_another_handle_sees_them(
        self, store: Store, store_url: str, scope: Scope
    ) -> None:
        links = self.linking(store)
        capabilities = self.capabilities(store)
        if not (capabilities.persistent or capabilities.multi_process):
            pytest.skip("the store is neither persistent nor shared by several handles: nothing to read back")
        owner = make_record(scope)
        links.update_with_links([Upsert(record=owner)], [LinkChange(scope, owner.id, put=(("a", _entry("a")),))])
        if not capabilities.multi_process:
            store.close()  # a second handle may not open beside the first: read it back after a reopen
        other = self.open(store_url)
        try:
            assert isinstance(other, LinkStore)
            assert other.links(scope, [owner.id]) == [[_entry("a")]]
        finally:
            other.close()
