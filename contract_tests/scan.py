"""Contract of ``scan``: every matching record of a scope, in id order, exactly once even under writes."""

from __future__ import annotations

import random

import pytest

from contract_tests.base import StoreContractBase
from contract_tests.support import BASE_TIME, as_stored, check_scan_order, make_record, unique, vectors
from kioko_core.store import Delete, Filter, Scope, Store, Upsert


class ScanContract(StoreContractBase):
    """``scan(scope, filter, batch)`` pages through a scope by id."""

    @pytest.mark.parametrize("batch", [1, 3, 7, 500])
    def test_yields_every_record_once_in_id_order(self, store: Store, scope: Scope, batch: int) -> None:
        """Whatever the page size, each record comes once, ordered by id in code point order."""
        base = unique("scan")
        # mixed case and punctuation: a locale collation would order these differently from code points
        suffixes = ["B", "a", "_x", "Z1", "z", "A", "b-2", "0", "é", "~", "aa", "Ab", "😀", "ß"]
        records = [
            make_record(scope, f"{base}-{suffix}", embedding=v)
            for suffix, v in zip(suffixes, vectors(len(suffixes), seed=201))
        ]
        store.update_many([Upsert(record=r) for r in records])
        scanned = list(store.scan(scope, batch=batch))
        check_scan_order([r.id for r in scanned])
        assert scanned == sorted((as_stored(r, 1) for r in records), key=lambda r: r.id)

    def test_ids_beyond_the_basic_plane_come_in_code_point_order(self, store: Store, scope: Scope) -> None:
        """Code point order is UTF-8 byte order, not UTF-16's: U+1F600 comes after U+FF5A, where a store
        comparing UTF-16 code units (surrogate pairs sort below U+E000) would put it before."""
        base = unique("plane")
        suffixes = ["\uff5a", "\U0001f600", "\ue000", "\U00010000", "z", "\u00e9", "\ufffd", "\ud7ff"]
        records = [make_record(scope, f"{base}-{suffix}") for suffix in suffixes]
        store.update_many([Upsert(record=r) for r in records])
        for batch in (1, 3, 500):
            assert [r.id for r in store.scan(scope, batch=batch)] == sorted(r.id for r in records), f"batch={batch}"

    def test_an_empty_scope_yields_nothing(self, store: Store, scope: Scope) -> None:
        """No records, no pages, no error."""
        assert list(store.scan(scope)) == []

    def test_filter_fields(self, store: Store, scope: Scope) -> None:
        """kinds, session_id, created_after, created_before and ids narrow the scan as they narrow knn."""
        records = [
            make_record(
                scope,
                kind=["fact", "episode"][i % 2],
                session_id=["s1", "s2", None][i % 3],
                created_at=BASE_TIME + i,
                embedding=v if i % 4 else None,
            )
            for i, v in enumerate(vectors(40, seed=202))
        ]
        store.update_many([Upsert(record=r) for r in records])
        filters = [
            Filter(kinds=frozenset({"fact"})),
            Filter(session_id="s2"),
            Filter(created_after=BASE_TIME + 20),
            Filter(created_before=BASE_TIME + 20),
            Filter(created_after=BASE_TIME + 3, created_before=BASE_TIME + 4),
            Filter(ids=frozenset(r.id for r in records[::5]) | {unique("missing")}),
            Filter(kinds=frozenset({"episode"}), session_id="s1", created_after=BASE_TIME + 10),
            Filter(kinds=frozenset()),
            Filter(ids=frozenset()),
            Filter(),
        ]
        for flt in filters:
            for batch in (2, 500):
                expected = sorted(r.id for r in records if flt.matches(r))
                got = [r.id for r in store.scan(scope, flt, batch=batch)]
                assert got == expected, f"scan({flt}, batch={batch})"

    def test_a_selective_filter_pages_through_a_large_scope(self, store: Store, scope: Scope) -> None:
        """Three matches spread among 300 records come back whole even with a page size of 1."""
        records = [make_record(scope, kind="rare" if i in (5, 150, 299) else "common") for i in range(300)]
        store.update_many([Upsert(record=r) for r in records])
        expected = sorted(r.id for r in records if r.kind == "rare")
        assert [r.id for r in store.scan(scope, Filter(kinds=frozenset({"rare"})), batch=1)] == expected

    def test_scanned_records_are_complete(self, store: Store, scope: Scope) -> None:
        """A scanned record equals what get returns: every field, vector and version."""
        record = make_record(
            scope,
            kind="fact",
            content="full",
            terms=["a", "b"],
            metadata={"k": [1, 2]},
            embedding=vectors(1, seed=203)[0],
            session_id="s",
        )
        store.update_many([Upsert(record=record), Upsert(record=record)])
        assert list(store.scan(scope)) == store.get(scope, [record.id]) == [as_stored(record, 2)]

    def test_writes_during_a_scan_do_not_skip_or_repeat(self, store: Store, scope: Scope) -> None:
        """Records present at the start and never deleted come exactly once, while others are written.

        Between pages the test inserts records at random places in the id order, replaces records
        (already seen and not yet seen) and deletes some. New and deleted records may or may not appear;
        no id may appear twice.
        """
        rng = random.Random(204)
        base = unique("live")
        initial = [make_record(scope, f"{base}-{i:03d}", terms=["t"]) for i in range(0, 120, 2)]
        store.update_many([Upsert(record=r) for r in initial])
        survivors = {r.id for r in initial}
        deleted: set[str] = set()
        seen: list[str] = []
        for position, record in enumerate(store.scan(scope, batch=4)):
            seen.append(record.id)
            if position % 3:
                continue
            fresh = make_record(scope, f"{base}-{rng.randrange(0, 120):03d}-new{position}")
            victim = rng.choice(sorted(survivors - {record.id}))
            touched = store.get(scope, [rng.choice(sorted(survivors - {victim}))])[0]
            store.update_many(
                [
                    Upsert(record=fresh),
                    Delete(id=victim, scope=scope),
                    Upsert(record=touched.model_copy(update={"content": f"touched at {position}"})),
                ]
            )
            survivors.discard(victim)
            deleted.add(victim)
        assert len(seen) == len(set(seen)), f"scan repeated ids: {sorted({i for i in seen if seen.count(i) > 1})}"
        missing = survivors - set(seen)
        assert not missing, f"scan skipped records that existed throughout: {sorted(missing)}"
        check_scan_order(seen)
        assert all(i.startswith(base) for i in seen)

    def test_a_page_size_of_zero_is_refused(self, store: Store, scope: Scope) -> None:
        """batch must be at least 1; the error is a ValueError at the latest when iteration starts."""
        store.update_many([Upsert(record=make_record(scope))])
        with pytest.raises(ValueError):
            list(store.scan(scope, batch=0))
