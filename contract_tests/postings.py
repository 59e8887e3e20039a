"""Contract of ``postings``: document frequencies, newest-first ids and n, kept right through writes."""

from __future__ import annotations

import pytest

from contract_tests.base import StoreContractBase
from contract_tests.support import BASE_TIME, make_record, unique
from kioko_core.store import Delete, InvalidRecordError, Scope, Store, Upsert


class PostingsContract(StoreContractBase):
    """``postings(scope, terms, limit)`` answers df, up to ``limit`` ids newest first (ties by id), and n."""

    def test_df_ids_and_n(self, store: Store, scope: Scope) -> None:
        """df counts the scope's holders of each term, ids lists them newest first, n counts records with terms."""
        older = make_record(scope, terms=["tea", "kumar"], created_at=BASE_TIME + 1)
        newer = make_record(scope, terms=["tea"], created_at=BASE_TIME + 2)
        other = make_record(scope, terms=["coffee"], created_at=BASE_TIME + 3)
        store.update_many([Upsert(record=r) for r in (older, newer, other)])
        postings = store.postings(scope, ["tea", "kumar", "coffee"], limit=10)
        assert postings.n == 3
        assert postings.df == {"tea": 2, "kumar": 1, "coffee": 1}
        assert postings.ids == {"tea": [newer.id, older.id], "kumar": [older.id], "coffee": [other.id]}

    def test_an_unknown_term_has_df_zero_and_no_ids(self, store: Store, scope: Scope) -> None:
        """Every asked term is answered, even one no record holds."""
        store.update_many([Upsert(record=make_record(scope, terms=["known"]))])
        postings = store.postings(scope, ["unknown", "known"], limit=5)
        assert postings.df == {"unknown": 0, "known": 1}
        assert postings.ids["unknown"] == []

    def test_an_empty_scope(self, store: Store, scope: Scope) -> None:
        """A scope without records answers n 0 and df 0, not an error."""
        assert tuple(store.postings(scope, ["anything"], limit=3)) == (0, {"anything": 0}, {"anything": []})

    def test_no_terms_asked(self, store: Store, scope: Scope) -> None:
        """Asking for no terms still reports n."""
        store.update_many([Upsert(record=make_record(scope, terms=["a"]))])
        assert tuple(store.postings(scope, [], limit=3)) == (1, {}, {})

    def test_a_term_asked_twice_is_answered_once(self, store: Store, scope: Scope) -> None:
        """Repeated terms in the request collapse to one entry."""
        record = make_record(scope, terms=["twice"])
        store.update_many([Upsert(record=record)])
        postings = store.postings(scope, ["twice", "twice"], limit=5)
        assert postings.df == {"twice": 1} and postings.ids == {"twice": [record.id]}

    def test_ids_are_capped_by_limit_newest_first_ties_by_id(self, store: Store, scope: Scope) -> None:
        """``limit`` caps the ids, never df; equal created_at falls back to ascending id."""
        stamp = [BASE_TIME + 5, BASE_TIME + 9, BASE_TIME + 9, BASE_TIME + 9, BASE_TIME + 1, BASE_TIME + 7]
        base = unique("tie")
        records = [
            make_record(scope, f"{base}-{name}", terms=["shared"], created_at=at) for name, at in zip("fbdcae", stamp)
        ]
        store.update_many([Upsert(record=r) for r in records])
        expected = sorted(records, key=lambda r: (-r.created_at, r.id))
        for limit in (0, 1, 3, 6, 50):
            postings = store.postings(scope, ["shared"], limit=limit)
            assert postings.df == {"shared": 6}
            assert postings.ids["shared"] == [r.id for r in expected[:limit]], f"limit={limit}"

    def test_n_counts_only_records_that_have_terms(self, store: Store, scope: Scope) -> None:
        """Records with no terms are not documents of the index."""
        store.update_many(
            [
                Upsert(record=make_record(scope, terms=["x"])),
                Upsert(record=make_record(scope)),
                Upsert(record=make_record(scope, terms=["y", "x"])),
            ]
        )
        assert store.postings(scope, ["x"], limit=0).n == 2

    def test_terms_match_exactly(self, store: Store, scope: Scope) -> None:
        """Terms are exact strings: case, accents and prefixes make different terms."""
        record = make_record(scope, terms=["Tea", "café"])
        store.update_many([Upsert(record=record)])
        postings = store.postings(scope, ["tea", "Tea", "cafe", "café", "Te"], limit=3)
        assert postings.df == {"tea": 0, "Tea": 1, "cafe": 0, "café": 1, "Te": 0}

    def test_postings_follow_replacements(self, store: Store, scope: Scope) -> None:
        """A replaced record leaves its dropped terms and joins its new ones; losing every term leaves n."""
        record = make_record(scope, terms=["old", "kept"])
        bystander = make_record(scope, terms=["kept"], created_at=BASE_TIME - 1)
        store.update_many([Upsert(record=record), Upsert(record=bystander)])
        store.update_many([Upsert(record=record.model_copy(update={"terms": ["kept", "new"]}))])
        postings = store.postings(scope, ["old", "kept", "new"], limit=5)
        assert postings.n == 2
        assert postings.df == {"old": 0, "kept": 2, "new": 1}
        assert postings.ids == {"old": [], "kept": [record.id, bystander.id], "new": [record.id]}
        store.update_many([Upsert(record=record.model_copy(update={"terms": []}))])
        postings = store.postings(scope, ["kept", "new"], limit=5)
        assert (postings.n, postings.df) == (1, {"kept": 1, "new": 0})

    def test_a_new_created_at_reorders_ids(self, store: Store, scope: Scope) -> None:
        """The newest-first order follows a replacement that changes created_at."""
        first = make_record(scope, terms=["t"], created_at=BASE_TIME + 1)
        second = make_record(scope, terms=["t"], created_at=BASE_TIME + 2)
        store.update_many([Upsert(record=first), Upsert(record=second)])
        store.update_many([Upsert(record=first.model_copy(update={"created_at": BASE_TIME + 3}))])
        assert store.postings(scope, ["t"], limit=5).ids == {"t": [first.id, second.id]}

    def test_postings_follow_deletes(self, store: Store, scope: Scope) -> None:
        """A deleted record leaves df, ids and n."""
        records = [make_record(scope, terms=["t", f"only-{i}"], created_at=BASE_TIME + i) for i in range(3)]
        store.update_many([Upsert(record=r) for r in records])
        store.update_many([Delete(id=records[1].id, scope=scope)])
        postings = store.postings(scope, ["t", "only-1", "only-2"], limit=5)
        assert postings.n == 2
        assert postings.df == {"t": 2, "only-1": 0, "only-2": 1}
        assert postings.ids["t"] == [records[2].id, records[0].id]
        store.update_many([Delete(id=r.id, scope=scope) for r in records])
        assert tuple(store.postings(scope, ["t"], limit=5)) == (0, {"t": 0}, {"t": []})

    def test_a_negative_limit_is_refused(self, store: Store, scope: Scope) -> None:
        """limit must be a non-negative integer: InvalidRecordError, as for any malformed argument."""
        with pytest.raises(InvalidRecordError):
            store.postings(scope, ["t"], limit=-1)
