"""Contracts of ``get`` and ``update_many``: round trips, versions, validation and atomicity."""

from __future__ import annotations

import numpy as np
import pytest

from contract_tests.base import StoreContractBase
from contract_tests.support import BASE_TIME, DIM, as_stored, make_record, new_scope, unique, vectors
from kioko_core.store import (
    ConflictError,
    Delete,
    Filter,
    IdTaken,
    InvalidRecordError,
    Record,
    Scope,
    Store,
    StoreError,
    Upsert,
)


def snapshot(store: Store, scope: Scope, ids: list[str], terms: list[str]) -> tuple:
    """Everything observable about ``ids`` and ``terms`` in ``scope``: to prove a failed batch changed nothing."""
    records = store.get(scope, ids)
    postings = store.postings(scope, terms, limit=50)
    scanned = [r.id for r in store.scan(scope)]
    query = np.ones(DIM, dtype=np.float32)
    neighbours = [n.id for n in store.knn(scope, query, k=50)]
    return records, postings, scanned, sorted(neighbours)


class GetContract(StoreContractBase):
    """``get`` returns exactly what was stored, in the order asked, None for what is not there."""

    def test_get_returns_records_in_the_order_asked(self, store: Store, scope: Scope) -> None:
        """Ids come back in the order of the request, not in storage or id order."""
        records = [make_record(scope, unique(name), content=name) for name in ("c", "a", "b")]
        store.update_many([Upsert(record=r) for r in records])
        asked = [records[2].id, records[0].id, records[1].id]
        assert [r.id for r in store.get(scope, asked)] == asked

    def test_missing_ids_are_none_in_place(self, store: Store, scope: Scope) -> None:
        """A missing id yields None at its own position; found ids around it are unaffected."""
        record = make_record(scope)
        store.update_many([Upsert(record=record)])
        got = store.get(scope, [unique("missing"), record.id, unique("missing")])
        assert got[0] is None and got[2] is None
        assert got[1] == as_stored(record, 1)

    def test_get_of_no_ids_is_an_empty_list(self, store: Store, scope: Scope) -> None:
        """An empty request is answered with an empty list, not an error."""
        assert store.get(scope, []) == []

    def test_get_of_only_missing_ids(self, store: Store, scope: Scope) -> None:
        """A scope that holds nothing answers None for every id asked."""
        assert store.get(scope, [unique("a"), unique("b")]) == [None, None]

    def test_an_id_asked_twice_is_answered_twice(self, store: Store, scope: Scope) -> None:
        """Repeating an id in the request repeats the record in the answer."""
        record = make_record(scope)
        store.update_many([Upsert(record=record)])
        first, second = store.get(scope, [record.id, record.id])
        assert first == second == as_stored(record, 1)

    def test_every_field_survives_a_round_trip(self, store: Store) -> None:
        """Every field comes back exactly as given (float32 vector bit for bit), version stamped 1."""
        scope = new_scope(agent_id=unique("agent"))
        record = make_record(
            scope,
            kind="fact",
            content="Kumar prefers tea",
            terms=["kumar", "tea", "prefer"],
            embedding=vectors(1, seed=7)[0],
            metadata={"importance": 0.75, "tags": ["a", "b"], "n": 3},
            session_id=unique("session"),
            created_at=BASE_TIME + 0.123456,
            updated_at=BASE_TIME + 9.5,
        )
        [returned] = store.update_many([Upsert(record=record)])
        [fetched] = store.get(scope, [record.id])
        assert returned == as_stored(record, 1)
        assert fetched == as_stored(record, 1)
        assert fetched.embedding is not None and fetched.embedding.dtype == np.float32

    def test_record_without_embedding_round_trips(self, store: Store, scope: Scope) -> None:
        """A record may have no vector; it comes back with ``embedding`` None."""
        record = make_record(scope, content="no vector here", terms=["plain"])
        store.update_many([Upsert(record=record)])
        [fetched] = store.get(scope, [record.id])
        assert fetched is not None and fetched.embedding is None
        assert fetched == as_stored(record, 1)

    def test_unicode_and_emoji_round_trip(self, store: Store) -> None:
        """Non-ASCII text survives in every string field: ids, scope, kind, content, terms, metadata, session."""
        scope = Scope(unique("用户-ü"), "агент-🤖")
        text = "Zoë 🧠 remembers: 東京 → القاهرة, e\u0301 (combining), 𝔘𝔫𝔦𝔠𝔬𝔡𝔢, 👩\u200d💻, \u202eRTL"
        record = make_record(
            scope,
            unique("ïd/with spaces:and🙂"),
            kind="émotion",
            content=text,
            terms=["東京", "zoë", "🧠", "القاهرة"],
            metadata={"ключ": "значение 🎉", "😀": ["ß", "ℵ"]},
            session_id="séance-🗓",
            embedding=vectors(1, seed=11)[0],
        )
        store.update_many([Upsert(record=record)])
        [fetched] = store.get(scope, [record.id])
        assert fetched == as_stored(record, 1)
        postings = store.postings(scope, ["東京", "🧠"], limit=5)
        assert postings.df == {"東京": 1, "🧠": 1}
        assert [r.id for r in store.scan(scope)] == [record.id]

    def test_one_megabyte_content_round_trips(self, store: Store, scope: Scope) -> None:
        """Content of over a million characters (multi-byte ones among them) is kept whole."""
        chunk = "The quick brown fox 🦊 jumps over 怠惰な犬. "
        content = (chunk * (1_100_000 // len(chunk) + 1))[:1_100_000]
        record = make_record(scope, content=content, terms=["fox"])
        store.update_many([Upsert(record=record)])
        [fetched] = store.get(scope, [record.id])
        assert fetched is not None and len(fetched.content) == len(content)
        assert fetched.content == content

    def test_large_nested_metadata_round_trips(self, store: Store, scope: Scope) -> None:
        """Thousands of metadata keys, nesting, and every JSON type come back equal, types intact."""
        metadata: dict = {f"key-{i}": {"i": i, "half": i / 2, "s": f"v{i}", "ok": i % 2 == 0} for i in range(3000)}
        metadata.update(
            {
                "nested": {"a": [1, [2, [3, {"deep": None}]]], "empty_list": [], "empty_dict": {}},
                "big_int": 2**53,
                "negative": -17,
                "float": 1e-300,
                "zero": 0.0,
                "true": True,
                "none": None,
                "links": [{"to": unique("m"), "weight": 0.5, "type": "supports"} for _ in range(200)],
            }
        )
        record = make_record(scope, metadata=metadata)
        store.update_many([Upsert(record=record)])
        [fetched] = store.get(scope, [record.id])
        assert fetched is not None
        assert fetched.metadata == metadata
        assert isinstance(fetched.metadata["big_int"], int) and isinstance(fetched.metadata["zero"], float)
        assert isinstance(fetched.metadata["key-3"]["half"], float) and isinstance(fetched.metadata["key-3"]["i"], int)

    def test_terms_keep_their_order(self, store: Store, scope: Scope) -> None:
        """``terms`` is a list: the order the core gave is the order read back."""
        record = make_record(scope, terms=["zeta", "alpha", "mu", "beta"])
        store.update_many([Upsert(record=record)])
        [fetched] = store.get(scope, [record.id])
        assert fetched is not None and fetched.terms == ["zeta", "alpha", "mu", "beta"]

    def test_get_never_returns_a_record_of_another_scope(self, store: Store, scope: Scope) -> None:
        """An id that exists in another scope reads as None."""
        other = new_scope()
        record = make_record(other)
        store.update_many([Upsert(record=record)])
        assert store.get(scope, [record.id]) == [None]
        assert store.get(Scope(other.user_id, unique("agent")), [record.id]) == [None]


class UpdateManyContract(StoreContractBase):
    """``update_many`` applies ops in order as one unit, stamps versions, and refuses bad batches whole."""

    def test_empty_batch_is_a_no_op(self, store: Store, scope: Scope) -> None:
        """No ops: an empty answer and nothing changes."""
        record = make_record(scope, terms=["t"])
        store.update_many([Upsert(record=record)])
        assert store.update_many([]) == []
        assert store.get(scope, [record.id]) == [as_stored(record, 1)]

    def test_answer_has_stored_record_per_upsert_and_none_per_delete(self, store: Store, scope: Scope) -> None:
        """The answer lines up with the ops: the stamped record for an upsert, None for a delete."""
        first, second = make_record(scope), make_record(scope)
        store.update_many([Upsert(record=first)])
        answer = store.update_many([Delete(id=first.id, scope=scope), Upsert(record=second)])
        assert answer == [None, as_stored(second, 1)]

    def test_new_record_gets_version_one_whatever_it_carries(self, store: Store, scope: Scope) -> None:
        """The store stamps versions; a version set by the caller is ignored."""
        record = make_record(scope, version=41)
        [stored] = store.update_many([Upsert(record=record)])
        assert stored is not None and stored.version == 1
        assert store.get(scope, [record.id])[0].version == 1

    def test_every_write_bumps_the_version(self, store: Store, scope: Scope) -> None:
        """Each replacement stores previous + 1, and the new fields."""
        record = make_record(scope, content="v1")
        for expected in (1, 2, 3):
            record = record.model_copy(update={"content": f"v{expected}"})
            [stored] = store.update_many([Upsert(record=record)])
            assert stored is not None and stored.version == expected
        [fetched] = store.get(scope, [record.id])
        assert fetched is not None and (fetched.version, fetched.content) == (3, "v3")

    def test_repeating_an_upsert_is_idempotent(self, store: Store, scope: Scope) -> None:
        """Upserting the same record twice leaves one record, counted once everywhere (version aside)."""
        record = make_record(scope, terms=["echo"], embedding=vectors(1, seed=3)[0])
        store.update_many([Upsert(record=record)])
        store.update_many([Upsert(record=record)])
        assert store.get(scope, [record.id]) == [as_stored(record, 2)]
        postings = store.postings(scope, ["echo"], limit=10)
        assert (postings.n, postings.df, postings.ids) == (1, {"echo": 1}, {"echo": [record.id]})
        assert [r.id for r in store.scan(scope)] == [record.id]
        assert [n.id for n in store.knn(scope, record.embedding, k=10)] == [record.id]

    def test_an_upsert_replaces_every_field(self, store: Store, scope: Scope) -> None:
        """A replacement is not a merge: dropped metadata keys, terms and the vector are gone."""
        record = make_record(
            scope,
            content="old",
            terms=["old", "shared"],
            embedding=vectors(1, seed=5)[0],
            metadata={"keep": 1, "drop": 2},
            session_id="s1",
        )
        store.update_many([Upsert(record=record)])
        replacement = make_record(
            scope,
            record.id,
            kind="fact",
            content="new",
            terms=["shared", "new"],
            metadata={"keep": 10},
            created_at=BASE_TIME + 5,
        )
        store.update_many([Upsert(record=replacement)])
        assert store.get(scope, [record.id]) == [as_stored(replacement, 2)]

    def test_delete_removes_the_record(self, store: Store, scope: Scope) -> None:
        """A deleted record is gone from get, postings, knn and scan."""
        record = make_record(scope, terms=["gone"], embedding=vectors(1, seed=9)[0])
        keeper = make_record(scope, terms=["gone"], embedding=vectors(1, seed=10)[0])
        store.update_many([Upsert(record=record), Upsert(record=keeper)])
        store.update_many([Delete(id=record.id, scope=scope)])
        assert store.get(scope, [record.id, keeper.id]) == [None, as_stored(keeper, 1)]
        assert store.postings(scope, ["gone"], limit=10).ids == {"gone": [keeper.id]}
        assert [n.id for n in store.knn(scope, record.embedding, k=10)] == [keeper.id]
        assert [r.id for r in store.scan(scope)] == [keeper.id]

    def test_deleting_a_missing_id_is_not_an_error(self, store: Store, scope: Scope) -> None:
        """Deleting what is not there succeeds, answers None, and leaves other records alone."""
        record = make_record(scope)
        store.update_many([Upsert(record=record)])
        assert store.update_many([Delete(id=unique("never"), scope=scope)]) == [None]
        assert store.update_many([Delete(id=record.id, scope=scope), Delete(id=record.id, scope=scope)]) == [None, None]
        assert store.get(scope, [record.id]) == [None]

    def test_a_record_inserted_again_after_delete_starts_at_version_one(self, store: Store, scope: Scope) -> None:
        """Versions belong to a record's life: after a delete, the id is new again."""
        record = make_record(scope)
        store.update_many([Upsert(record=record)])
        store.update_many([Upsert(record=record)])
        store.update_many([Delete(id=record.id, scope=scope, expected_version=2)])
        [stored] = store.update_many([Upsert(record=record, expected_version=0)])
        assert stored is not None and stored.version == 1

    def test_ops_apply_in_order_within_a_batch(self, store: Store, scope: Scope) -> None:
        """Later ops see earlier ones: upsert, delete, upsert of one id ends as a fresh version 1."""
        first = make_record(scope, content="first")
        last = make_record(scope, first.id, content="last")
        answer = store.update_many([Upsert(record=first), Delete(id=first.id, scope=scope), Upsert(record=last)])
        assert answer == [as_stored(first, 1), None, as_stored(last, 1)]
        assert store.get(scope, [first.id]) == [as_stored(last, 1)]

    def test_expected_versions_see_earlier_ops_of_the_same_batch(self, store: Store, scope: Scope) -> None:
        """Two upserts of one id in a batch: the second expects the version the first stamped."""
        record = make_record(scope, content="one")
        second = record.model_copy(update={"content": "two"})
        answer = store.update_many(
            [Upsert(record=record, expected_version=0), Upsert(record=second, expected_version=1)]
        )
        assert [r.version for r in answer if r is not None] == [1, 2]
        assert store.get(scope, [record.id]) == [as_stored(second, 2)]

    def test_a_large_batch_is_applied_whole(self, store: Store, scope: Scope) -> None:
        """Five hundred upserts in one call all land, each at version 1."""
        records = [
            make_record(scope, f"{unique('bulk')}-{i:03d}", terms=[f"t{i % 7}"], embedding=v)
            for i, v in enumerate(vectors(500, seed=21))
        ]
        answer = store.update_many([Upsert(record=r) for r in records])
        assert [r.id for r in answer if r is not None] == [r.id for r in records]
        assert store.get(scope, [r.id for r in records]) == [as_stored(r, 1) for r in records]
        assert store.postings(scope, ["t0"], limit=0).n == 500


class VersionContract(StoreContractBase):
    """``expected_version``: optimistic concurrency that either holds entirely or applies nothing."""

    def test_expected_version_zero_means_must_not_exist(self, store: Store, scope: Scope) -> None:
        """0 inserts a new record, and conflicts once the record exists (IdTaken: no retry can help)."""
        record = make_record(scope, content="original")
        store.update_many([Upsert(record=record, expected_version=0)])
        with pytest.raises(IdTaken):
            store.update_many([Upsert(record=record.model_copy(update={"content": "clobber"}), expected_version=0)])
        assert store.get(scope, [record.id]) == [as_stored(record, 1)]

    def test_matching_expected_version_writes(self, store: Store, scope: Scope) -> None:
        """The version read is the version to expect; the write then succeeds."""
        record = make_record(scope, content="a")
        store.update_many([Upsert(record=record)])
        [current] = store.get(scope, [record.id])
        [stored] = store.update_many(
            [Upsert(record=current.model_copy(update={"content": "b"}), expected_version=current.version)]
        )
        assert stored is not None and (stored.version, stored.content) == (2, "b")

    @pytest.mark.parametrize("stale", [1, 3, 99])
    def test_wrong_expected_version_conflicts_and_writes_nothing(self, store: Store, scope: Scope, stale: int) -> None:
        """A stale or future version raises ConflictError; the record keeps its content and version."""
        record = make_record(scope, content="a")
        store.update_many([Upsert(record=record), Upsert(record=record)])  # now at version 2
        with pytest.raises(ConflictError):
            store.update_many([Upsert(record=record.model_copy(update={"content": "b"}), expected_version=stale)])
        assert store.get(scope, [record.id]) == [as_stored(record, 2)]

    def test_expected_version_on_a_missing_record_conflicts(self, store: Store, scope: Scope) -> None:
        """Expecting version 1 of a record that does not exist is a conflict, and nothing is created."""
        record = make_record(scope)
        with pytest.raises(ConflictError):
            store.update_many([Upsert(record=record, expected_version=1)])
        assert store.get(scope, [record.id]) == [None]

    def test_delete_with_expected_version(self, store: Store, scope: Scope) -> None:
        """A delete expecting the wrong version conflicts and keeps the record; the right one deletes."""
        record = make_record(scope)
        store.update_many([Upsert(record=record)])
        with pytest.raises(ConflictError):
            store.update_many([Delete(id=record.id, scope=scope, expected_version=2)])
        assert store.get(scope, [record.id]) == [as_stored(record, 1)]
        store.update_many([Delete(id=record.id, scope=scope, expected_version=1)])
        assert store.get(scope, [record.id]) == [None]

    def test_delete_of_a_missing_id_expecting_a_version_conflicts(self, store: Store, scope: Scope) -> None:
        """Expecting version 1 of a missing record fails; expecting 0 (absent) succeeds as a no-op."""
        missing = unique("missing")
        with pytest.raises(ConflictError):
            store.update_many([Delete(id=missing, scope=scope, expected_version=1)])
        assert store.update_many([Delete(id=missing, scope=scope, expected_version=0)]) == [None]

    def test_conflict_error_is_a_store_error(self) -> None:
        """Callers may catch StoreError for every store failure, ConflictError for retries."""
        assert issubclass(ConflictError, StoreError) and issubclass(InvalidRecordError, StoreError)
        assert issubclass(InvalidRecordError, ValueError)


class ValidationContract(StoreContractBase):
    """A malformed op raises InvalidRecordError before anything of its batch is written."""

    def test_wrong_vector_length_is_refused_with_a_clear_error(self, store: Store, scope: Scope) -> None:
        """A vector of the wrong length fails the whole batch; the message names both lengths."""
        good = make_record(scope, embedding=vectors(1, seed=1)[0])
        wrong = make_record(scope, embedding=vectors(1, seed=2, dim=DIM + 3)[0])
        with pytest.raises(InvalidRecordError) as raised:
            store.update_many([Upsert(record=good), Upsert(record=wrong)])
        message = str(raised.value)
        assert str(DIM) in message and str(DIM + 3) in message, f"the error should name both lengths: {message}"
        assert store.get(scope, [good.id, wrong.id]) == [None, None]
        assert list(store.scan(scope)) == []

    @pytest.mark.parametrize("bad_value", [float("nan"), float("inf"), float("-inf")])
    def test_non_finite_vector_is_refused(self, store: Store, scope: Scope, bad_value: float) -> None:
        """A NaN or infinite component (set after validation, as a careless caller could) is refused."""
        good = make_record(scope, embedding=vectors(1, seed=1)[0])
        poisoned_vector = vectors(1, seed=4)[0].copy()
        poisoned_vector[3] = bad_value
        # Record's own validator refuses NaN; model_copy skips it, so the store must check too
        poisoned = make_record(scope).model_copy(update={"embedding": poisoned_vector})
        with pytest.raises(InvalidRecordError):
            store.update_many([Upsert(record=good), Upsert(record=poisoned)])
        assert store.get(scope, [good.id, poisoned.id]) == [None, None]

    def test_vector_mutated_in_place_to_nan_is_refused(self, store: Store, scope: Scope) -> None:
        """A record whose numpy vector was changed after construction is checked again at write time."""
        record = make_record(scope, embedding=vectors(1, seed=6)[0])
        record.embedding[0] = np.nan
        with pytest.raises(InvalidRecordError):
            store.update_many([Upsert(record=record)])
        assert store.get(scope, [record.id]) == [None]

    def test_record_refuses_nan_at_construction(self, scope: Scope) -> None:
        """The first line of defence: a Record cannot be built with a NaN or all-zero vector."""
        vector = np.ones(DIM, dtype=np.float32)
        vector[0] = np.nan
        with pytest.raises(ValueError):
            make_record(scope, embedding=vector)
        with pytest.raises(ValueError):
            make_record(scope, embedding=np.zeros(DIM, dtype=np.float32))

    @pytest.mark.parametrize("bad_scope", [("", None), ("user", "")])
    def test_malformed_scope_is_refused(self, store: Store, scope: Scope, bad_scope: tuple) -> None:
        """An empty user id or an empty-string agent id fails the batch with InvalidRecordError."""
        good = make_record(scope)
        with pytest.raises(InvalidRecordError):
            store.update_many([Upsert(record=good), Delete(id=unique("x"), scope=Scope(*bad_scope))])
        assert store.get(scope, [good.id]) == [None]

    def test_negative_expected_version_is_refused(self, store: Store, scope: Scope) -> None:
        """expected_version below 0 is malformed, not a conflict."""
        record = make_record(scope)
        with pytest.raises(InvalidRecordError):
            store.update_many([Upsert(record=record, expected_version=-1)])
        assert store.get(scope, [record.id]) == [None]

    @pytest.mark.parametrize("bad_scope", [("", None), ("user", ""), ("only-one",)])
    def test_reads_refuse_a_malformed_scope(self, store: Store, bad_scope: tuple) -> None:
        """get, postings, knn and scan raise InvalidRecordError for a malformed scope."""
        with pytest.raises(InvalidRecordError):
            store.get(bad_scope, ["x"])  # type: ignore[arg-type]
        with pytest.raises(InvalidRecordError):
            store.postings(bad_scope, ["x"], limit=1)  # type: ignore[arg-type]
        with pytest.raises(InvalidRecordError):
            store.knn(bad_scope, np.ones(DIM), k=1)  # type: ignore[arg-type]
        with pytest.raises(InvalidRecordError):
            list(store.scan(bad_scope))  # type: ignore[arg-type]


class AtomicityContract(StoreContractBase):
    """One invalid op fails the batch, and the batch leaves every observable trace as it was."""

    @pytest.fixture
    def seeded(self, store: Store, scope: Scope) -> tuple[Record, Record]:
        """Two records already stored: ``kept`` (to be deleted by failing batches) and ``changed``."""
        kept = make_record(scope, terms=["alpha"], embedding=vectors(1, seed=31)[0])
        changed = make_record(scope, terms=["beta"], embedding=vectors(1, seed=32)[0])
        store.update_many([Upsert(record=kept), Upsert(record=changed)])
        return kept, changed

    def failing_batch_tail(self, scope: Scope, kind: str) -> Upsert:
        if kind == "conflict":
            return Upsert(record=make_record(scope, unique("ghost")), expected_version=7)
        return Upsert(record=make_record(scope, embedding=np.ones(DIM + 1, dtype=np.float32)))

    @pytest.mark.parametrize("failure", ["conflict", "invalid"])
    def test_a_failing_last_op_undoes_the_whole_batch(
        self, store: Store, scope: Scope, seeded: tuple[Record, Record], failure: str
    ) -> None:
        """Inserts, replacements and deletes before the bad op leave no trace in any method."""
        kept, changed = seeded
        fresh = make_record(scope, terms=["alpha", "gamma"], embedding=vectors(1, seed=33)[0])
        ids, terms = [kept.id, changed.id, fresh.id], ["alpha", "beta", "gamma"]
        before = snapshot(store, scope, ids, terms)
        batch = [
            Upsert(record=fresh),
            Upsert(record=changed.model_copy(update={"terms": ["gamma"], "content": "changed"})),
            Delete(id=kept.id, scope=scope),
            self.failing_batch_tail(scope, failure),
        ]
        with pytest.raises(ConflictError if failure == "conflict" else InvalidRecordError):
            store.update_many(batch)
        assert snapshot(store, scope, ids, terms) == before

    def test_a_conflict_in_the_middle_undoes_ops_on_both_sides(
        self, store: Store, scope: Scope, seeded: tuple[Record, Record]
    ) -> None:
        """Ops after the conflicting one are not applied either."""
        kept, changed = seeded
        first, last = make_record(scope), make_record(scope)
        with pytest.raises(ConflictError):
            store.update_many([Upsert(record=first), Upsert(record=changed, expected_version=0), Upsert(record=last)])
        assert store.get(scope, [first.id, changed.id, last.id]) == [None, as_stored(changed, 1), None]

    def test_an_upsert_into_another_scopes_id_fails_the_batch(
        self, store: Store, scope: Scope, seeded: tuple[Record, Record]
    ) -> None:
        """Ids are unique across the store: claiming another scope's id is IdTaken (a conflict), nothing applies."""
        other = new_scope()
        foreign = make_record(other, content="theirs")
        store.update_many([Upsert(record=foreign)])
        mine = make_record(scope)
        with pytest.raises(IdTaken):
            store.update_many([Upsert(record=mine), Upsert(record=make_record(scope, foreign.id, content="mine"))])
        assert store.get(scope, [mine.id, foreign.id]) == [None, None]
        assert store.get(other, [foreign.id]) == [as_stored(foreign, 1)]

    def test_the_store_stays_usable_after_a_failed_batch(
        self, store: Store, scope: Scope, seeded: tuple[Record, Record]
    ) -> None:
        """A failed batch leaves no open transaction or lock behind: the next batch just works."""
        kept, _ = seeded
        with pytest.raises(ConflictError):
            store.update_many([Upsert(record=kept, expected_version=5)])
        [stored] = store.update_many([Upsert(record=kept, expected_version=1)])
        assert stored is not None and stored.version == 2

    def test_filter_unaffected_by_failed_batch(self, store: Store, scope: Scope, seeded: tuple[Record, Record]) -> None:
        """Filtered knn and scan see the same records before and after a failed batch."""
        kept, changed = seeded
        flt = Filter(ids=frozenset({kept.id, changed.id}))
        before = ([r.id for r in store.scan(scope, flt)], [n.id for n in store.knn(scope, kept.embedding, 5, flt)])
        with pytest.raises(InvalidRecordError):
            store.update_many([Delete(id=kept.id, scope=scope), self.failing_batch_tail(scope, "invalid")])
        after = ([r.id for r in store.scan(scope, flt)], [n.id for n in store.knn(scope, kept.embedding, 5, flt)])
        assert after == before
