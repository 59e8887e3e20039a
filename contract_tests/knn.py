"""Contract of ``knn``: cosine neighbours of one scope, checked against an exact numpy reference.

Exactness policy: a store that declares ``approximate_knn=False`` must return the true top k on every
query (ties in any order). A store that declares ``approximate_knn=True`` must still return exactly
``min(k, matching)`` matching records, each with its true cosine score, best first, and must reach a
recall of at least :data:`MIN_RECALL` over the queries of a test. The sets here are small (at most a few
hundred vectors per scope), where a sound ANN index is exact in practice, so the bound is not generous
to an index that drops filtered or scoped records.
"""

from __future__ import annotations

import numpy as np
import pytest

from contract_tests.base import StoreContractBase
from contract_tests.support import BASE_TIME, DIM, check_knn, make_record, unique, vectors
from kioko_core.store import Delete, Filter, InvalidRecordError, Record, Scope, Store, Upsert

MIN_RECALL = 0.9
"""Mean recall an approximate store must reach over one test's queries."""


class KnnContract(StoreContractBase):
    """``knn(scope, vector, k, filter)``: up to k matching records with a vector, most similar first."""

    def put(self, store: Store, records: list[Record]) -> list[Record]:
        store.update_many([Upsert(record=r) for r in records])
        return records

    def approximate(self, store: Store) -> bool:
        return self.capabilities(store).approximate_knn

    def test_matches_the_exact_cosine_reference(self, store: Store, scope: Scope) -> None:
        """Over many queries and several k, the answer is the numpy top k (recall bound if approximate)."""
        records = [make_record(scope, embedding=v) for v in vectors(120, seed=101)]
        records += [make_record(scope, terms=["no-vector"]) for _ in range(10)]
        self.put(store, records)
        recalls = [
            check_knn(store.knn(scope, query, k), records, query, k, approximate=self.approximate(store))
            for query in vectors(12, seed=102)
            for k in (1, 5, 10)
        ]
        assert float(np.mean(recalls)) >= MIN_RECALL, f"mean recall {np.mean(recalls):.3f} < {MIN_RECALL}"

    def test_scores_are_cosine_similarity(self, store: Store, scope: Scope) -> None:
        """Same direction scores 1 whatever the length, opposite -1, orthogonal 0."""
        axis, other_axis = np.eye(DIM, dtype=np.float32)[0], np.eye(DIM, dtype=np.float32)[1]
        same, longer, opposite, orthogonal = (
            make_record(scope, embedding=v) for v in (axis, 7.5 * axis, -axis, other_axis)
        )
        self.put(store, [same, longer, opposite, orthogonal])
        result = store.knn(scope, 0.25 * axis, k=4)
        scores = {n.id: n.score for n in result}
        assert scores[same.id] == pytest.approx(1.0, abs=1e-4)
        assert scores[longer.id] == pytest.approx(1.0, abs=1e-4)
        assert scores[orthogonal.id] == pytest.approx(0.0, abs=1e-4)
        assert scores[opposite.id] == pytest.approx(-1.0, abs=1e-4)
        assert result[-1].id == opposite.id

    def test_k_larger_than_the_scope_returns_all(self, store: Store, scope: Scope) -> None:
        """With fewer vectors than k, every vector of the scope is returned, best first."""
        records = self.put(store, [make_record(scope, embedding=v) for v in vectors(4, seed=103)])
        query = vectors(1, seed=104)[0]
        check_knn(store.knn(scope, query, k=50), records, query, 50, approximate=self.approximate(store))

    def test_k_zero_returns_nothing(self, store: Store, scope: Scope) -> None:
        """k=0 is a valid question with an empty answer."""
        self.put(store, [make_record(scope, embedding=vectors(1, seed=105)[0])])
        assert store.knn(scope, np.ones(DIM), k=0) == []

    def test_an_empty_scope_returns_nothing(self, store: Store, scope: Scope) -> None:
        """A scope without records answers an empty list."""
        assert store.knn(scope, np.ones(DIM), k=5) == []

    def test_records_without_a_vector_are_never_neighbours(self, store: Store, scope: Scope) -> None:
        """Only records with an embedding take part."""
        with_vector = make_record(scope, embedding=vectors(1, seed=106)[0])
        self.put(store, [with_vector] + [make_record(scope, terms=["t"]) for _ in range(5)])
        assert [n.id for n in store.knn(scope, np.ones(DIM), k=10)] == [with_vector.id]

    def test_identical_vectors_tie(self, store: Store, scope: Scope) -> None:
        """Two records with one vector score the same."""
        vector = vectors(1, seed=107)[0]
        twins = self.put(store, [make_record(scope, embedding=vector), make_record(scope, embedding=vector)])
        result = store.knn(scope, vector, k=2)
        assert {n.id for n in result} == {r.id for r in twins}
        assert result[0].score == pytest.approx(result[1].score, abs=1e-5)

    def test_ties_are_broken_by_id(self, store: Store, scope: Scope) -> None:
        """The tie rule of Store.knn: equal scores in id order, and the cut at k keeps the smallest ids."""
        vector, other = vectors(2, seed=121)
        # ids chosen so that their order differs from the order they are written in
        tied = [
            make_record(scope, f"{scope.user_id}-{name}", embedding=vector)
            for name in ("m", "c", "x", "a", "q", "f", "z", "b", "k", "d", "s", "h")
        ]
        best = make_record(scope, f"{scope.user_id}-zz-best", embedding=vector + 0.5 * other)
        self.put(store, tied + [best])
        query = vector + 0.5 * other
        by_id = sorted(r.id for r in tied)
        for k in (1, 3, 5, 12, 13):
            result = store.knn(scope, query, k)
            assert [n.id for n in result] == ([best.id] + by_id)[:k], f"k={k}"
        flt = Filter(ids=frozenset(r.id for r in tied))
        assert [n.id for n in store.knn(scope, vector, 4, flt)] == by_id[:4]

    def test_a_selective_filter_still_returns_k(self, store: Store, scope: Scope) -> None:
        """Six 'rare' records among 600 that sit nearer the query: a kinds filter still yields all six."""
        query = vectors(1, seed=108)[0]
        noise = vectors(600, seed=109) * 0.05
        crowd = [make_record(scope, kind="common", embedding=query + n) for n in noise]
        rare = [make_record(scope, kind="rare", embedding=v, session_id="s-rare") for v in vectors(6, seed=110)]
        records = self.put(store, crowd + rare)
        approximate = self.approximate(store)
        for flt in (
            Filter(kinds=frozenset({"rare"})),
            Filter(session_id="s-rare"),
            Filter(ids=frozenset(r.id for r in rare[:3])),
        ):
            due = sum(1 for r in records if flt.matches(r))
            result = store.knn(scope, query, k=due, filter=flt)
            assert len(result) == due, f"{flt} matches {due} records but knn(k={due}) returned {len(result)}"
            check_knn(result, records, query, due, flt, approximate=approximate)

    def test_each_filter_field(self, store: Store, scope: Scope) -> None:
        """kinds, session_id, created_after (inclusive), created_before (exclusive) and ids, alone and together."""
        kinds, sessions = ["fact", "episode", "entity"], ["s1", "s2", None]
        records = [
            make_record(
                scope, kind=kinds[i % 3], session_id=sessions[(i // 2) % 3], created_at=BASE_TIME + i, embedding=v
            )
            for i, v in enumerate(vectors(60, seed=111))
        ]
        self.put(store, records)
        filters = [
            Filter(kinds=frozenset({"fact"})),
            Filter(kinds=frozenset({"fact", "entity"})),
            Filter(session_id="s2"),
            Filter(created_after=BASE_TIME + 30),
            Filter(created_before=BASE_TIME + 30),
            Filter(created_after=BASE_TIME + 10, created_before=BASE_TIME + 11),
            Filter(ids=frozenset(r.id for r in records[::7])),
            Filter(
                kinds=frozenset({"episode"}),
                session_id="s1",
                created_after=BASE_TIME + 5,
                created_before=BASE_TIME + 50,
            ),
            Filter(kinds=frozenset({"nothing-has-this-kind"})),
            Filter(kinds=frozenset()),
            Filter(ids=frozenset()),
            Filter(),
        ]
        approximate, recalls = self.approximate(store), []
        for flt in filters:
            for query in vectors(3, seed=112):
                result = store.knn(scope, query, k=5, filter=flt)
                recalls.append(check_knn(result, records, query, 5, flt, approximate=approximate))
        assert float(np.mean(recalls)) >= MIN_RECALL

    def test_created_after_includes_its_bound_and_created_before_excludes_it(self, store: Store, scope: Scope) -> None:
        """A record created exactly at the bound passes created_after and fails created_before."""
        at_bound = make_record(scope, created_at=BASE_TIME + 100, embedding=vectors(1, seed=113)[0])
        self.put(store, [at_bound])
        query = np.ones(DIM)
        assert [n.id for n in store.knn(scope, query, 3, Filter(created_after=BASE_TIME + 100))] == [at_bound.id]
        assert store.knn(scope, query, 3, Filter(created_before=BASE_TIME + 100)) == []

    def test_knn_follows_writes(self, store: Store, scope: Scope) -> None:
        """A moved vector moves the neighbour; a dropped vector or a delete removes it."""
        query = vectors(1, seed=114)[0]
        near, far = make_record(scope, embedding=query), make_record(scope, embedding=-query)
        self.put(store, [near, far])
        assert [n.id for n in store.knn(scope, query, 1)] == [near.id]
        store.update_many(
            [
                Upsert(record=near.model_copy(update={"embedding": -query})),
                Upsert(record=far.model_copy(update={"embedding": query})),
            ]
        )
        assert [n.id for n in store.knn(scope, query, 1)] == [far.id]
        store.update_many([Upsert(record=far.model_copy(update={"embedding": None}))])
        assert [n.id for n in store.knn(scope, query, 5)] == [near.id]
        store.update_many([Delete(id=near.id, scope=scope)])
        assert store.knn(scope, query, 5) == []

    def test_query_may_be_a_list_or_any_float_array(self, store: Store, scope: Scope) -> None:
        """A list of floats, a float64 array and a float32 array ask the same question."""
        records = self.put(store, [make_record(scope, embedding=v) for v in vectors(10, seed=115)])
        query = vectors(1, seed=116)[0]
        answers = [store.knn(scope, q, 3) for q in (query.tolist(), query.astype(np.float64), query)]
        assert [n.id for n in answers[0]] == [n.id for n in answers[1]] == [n.id for n in answers[2]]
        check_knn(answers[0], records, query, 3, approximate=self.approximate(store))

    @pytest.mark.parametrize("problem", ["too short", "too long", "nan", "inf", "zeros", "2-d"])
    def test_a_bad_query_vector_is_refused(self, store: Store, scope: Scope, problem: str) -> None:
        """Wrong length, non-finite, all-zero or multi-dimensional queries raise InvalidRecordError."""
        bad = {
            "too short": np.ones(DIM - 1),
            "too long": np.ones(DIM + 1),
            "zeros": np.zeros(DIM),
            "nan": np.full(DIM, np.nan),
            "inf": np.full(DIM, np.inf),
            "2-d": np.ones((2, DIM)),
        }[problem]
        self.put(store, [make_record(scope, embedding=vectors(1, seed=117)[0])])
        with pytest.raises(InvalidRecordError):
            store.knn(scope, bad, k=3)

    def test_a_negative_k_is_refused(self, store: Store, scope: Scope) -> None:
        """k must be a non-negative integer."""
        with pytest.raises(InvalidRecordError):
            store.knn(scope, np.ones(DIM), k=-1)

    def test_other_scopes_crowding_the_query_do_not_hide_this_scopes_neighbours(
        self, store: Store, scope: Scope
    ) -> None:
        """Four hundred closer vectors in other scopes: this scope's k neighbours still all come back."""
        query = vectors(1, seed=118)[0]
        crowd_scope = Scope(scope.user_id, unique("agent"))
        crowd = [make_record(crowd_scope, embedding=query + n) for n in vectors(400, seed=119) * 0.05]
        mine = [make_record(scope, embedding=v) for v in vectors(5, seed=120)]
        self.put(store, crowd + mine)
        result = store.knn(scope, query, k=5)
        check_knn(result, mine, query, 5, approximate=self.approximate(store))
