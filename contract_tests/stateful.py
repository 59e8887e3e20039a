"""Random operation sequences against the store under test and ``memory://`` side by side.

Hypothesis drives a state machine whose one rule is "apply a random batch": upserts and deletes of ids
from a small pool (so replacements, cross-scope conflicts and re-inserts are common) in three scopes
(a user, the same user's agent, another user), with random terms, vectors (a small pool with duplicates,
so knn ties happen), timestamps with ties, right and wrong ``expected_version`` values, and now and then
a malformed op. After every step the two stores must answer get, postings, scan and knn the same way:
knn is checked with :func:`contract_tests.support.check_knn` against the reference's records, which
accepts any order of tied records (and, for an approximate store, bounds the recall instead).

Content is any Unicode text except NUL, which PostgreSQL's text type cannot hold; the suite does not
ask drivers to escape it.
"""

from __future__ import annotations

import uuid
from typing import Any, ClassVar

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from contract_tests.base import StoreContractBase
from contract_tests.support import BASE_TIME, check_knn, vectors
from kioko_backends.memory import MemoryStore
from kioko_core.store import (
    ConflictError,
    Delete,
    Filter,
    InvalidRecordError,
    Op,
    Record,
    Scope,
    Store,
    Upsert,
)

ID_POOL = 6
VOCABULARY = ("alpha", "beta", "gamma", "délta", "🙂")
KINDS = ("note", "fact")

text = st.text(st.characters(codec="utf-8", exclude_characters="\x00", exclude_categories=("Cs",)), max_size=12)
metadata_values = st.one_of(
    st.integers(-1000, 1000),
    st.floats(-1e6, 1e6),
    text,
    st.booleans(),
    st.none(),
    st.lists(st.integers(0, 9), max_size=3),
)
scope_choice = st.sampled_from([0, 0, 0, 1, 2])
"""Mostly the first scope, so ids get replaced often; the others bring cross-scope conflicts."""
upsert_ops = st.fixed_dictionaries(
    {
        "op": st.just("upsert"),
        "slot": st.integers(0, ID_POOL - 1),
        "scope": scope_choice,
        "kind": st.sampled_from(KINDS),
        "content": text,
        "terms": st.lists(st.sampled_from(VOCABULARY), max_size=3),
        "vector": st.one_of(st.none(), st.integers(0, 5)),
        "created": st.integers(0, 2),
        "session": st.sampled_from([None, "s1"]),
        "metadata": st.dictionaries(st.sampled_from(["a", "b", "ü"]), metadata_values, max_size=3),
        "expect": st.sampled_from([None, None, None, "current", "current", 0, 1, 2]),
    }
)
delete_ops = st.fixed_dictionaries(
    {
        "op": st.just("delete"),
        "slot": st.integers(0, ID_POOL - 1),
        "scope": scope_choice,
        "expect": st.sampled_from([None, None, "current", 0, 1]),
    }
)
batches = st.lists(st.one_of(upsert_ops, upsert_ops, delete_ops), max_size=4)
poisons = st.sampled_from([None] * 10 + ["wrong-dim", "bad-scope"])


def outcome(store: Store, ops: list[Op]) -> tuple[str, list[Record | None] | None]:
    """What a batch did: ("ok", answer) or (the StoreError's class name, None)."""
    try:
        return "ok", store.update_many(ops)
    except (ConflictError, InvalidRecordError) as error:
        return type(error).__name__, None


def build_machine(store: Store, dim: int, approximate: bool) -> type[RuleBasedStateMachine]:
    """A state machine class bound to one opened store; each example works in fresh scopes and ids."""
    pool = vectors(4, seed=501, dim=dim)
    vector_pool = [pool[0], pool[1], pool[2], pool[0].copy(), -pool[1], 3.0 * pool[3]]

    class StoreMatchesMemory(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            prefix = uuid.uuid4().hex[:10]
            self.reference = MemoryStore(dim=dim)
            self.scopes = [Scope(f"sm-{prefix}-u1"), Scope(f"sm-{prefix}-u1", "agent"), Scope(f"sm-{prefix}-u2")]
            self.ids = [f"sm-{prefix}-{slot}" for slot in range(ID_POOL)]
            self.recalls: list[float] = []
            self.steps = 0

        def current_version(self, slot: int, scope: Scope) -> int:
            record = self.reference.get(scope, [self.ids[slot]])[0]
            return record.version if record is not None else 0

        def expected(self, spec: dict[str, Any]) -> int | None:
            expect = spec["expect"]
            return self.current_version(spec["slot"], self.scopes[spec["scope"]]) if expect == "current" else expect

        def build(self, spec: dict[str, Any]) -> Op:
            scope = self.scopes[spec["scope"]]
            if spec["op"] == "delete":
                return Delete(id=self.ids[spec["slot"]], scope=scope, expected_version=self.expected(spec))
            vector = None if spec["vector"] is None else vector_pool[spec["vector"]]
            record = Record(
                id=self.ids[spec["slot"]],
                user_id=scope.user_id,
                agent_id=scope.agent_id,
                kind=spec["kind"],
                content=spec["content"],
                terms=spec["terms"],
                embedding=vector,
                metadata=spec["metadata"],
                session_id=spec["session"],
                created_at=BASE_TIME + spec["created"],
                updated_at=BASE_TIME,
            )
            return Upsert(record=record, expected_version=self.expected(spec))

        def poisoned(self, poison: str) -> Op:
            if poison == "wrong-dim":
                record = Record(
                    id=self.ids[0],
                    user_id=self.scopes[0].user_id,
                    kind="note",
                    embedding=np.ones(dim + 2, dtype=np.float32),
                )
                return Upsert(record=record)
            return Delete(id=self.ids[1], scope=Scope("", None))

        @rule(specs=batches, poison=poisons, where=st.integers(0, 4))
        def apply_batch(self, specs: list[dict[str, Any]], poison: str | None, where: int) -> None:
            ops = [self.build(spec) for spec in specs]
            if poison is not None:
                ops.insert(min(where, len(ops)), self.poisoned(poison))
            expected, got = outcome(self.reference, ops), outcome(store, ops)
            assert got[0] == expected[0], f"the reference answered {expected[0]}, the store {got[0]}"
            assert got[1] == expected[1], "update_many answered differently from the reference"

        @invariant()
        def same_observable_state(self) -> None:
            self.steps += 1
            for scope in self.scopes:
                assert store.get(scope, self.ids) == self.reference.get(scope, self.ids), f"get in {scope}"
                assert tuple(store.postings(scope, VOCABULARY, limit=2)) == tuple(
                    self.reference.postings(scope, VOCABULARY, limit=2)
                ), f"postings in {scope}"
                reference_records = list(self.reference.scan(scope))
                assert list(store.scan(scope, batch=2)) == reference_records, f"scan in {scope}"
                query = vector_pool[self.steps % len(vector_pool)]
                for flt in (None, Filter(kinds=frozenset({"fact"}))):
                    self.recalls.append(
                        check_knn(
                            store.knn(scope, query, 3, flt), reference_records, query, 3, flt, approximate=approximate
                        )
                    )

        def teardown(self) -> None:
            if self.recalls:
                assert sum(self.recalls) / len(self.recalls) >= 0.9, "approximate knn recall fell below 0.9"

    return StoreMatchesMemory


class StateMachineContract(StoreContractBase):
    """The store and ``memory://`` stay observably identical under random batches of writes."""

    state_machine_examples: ClassVar[int] = 25
    state_machine_steps: ClassVar[int] = 20

    def test_random_operations_match_the_memory_reference(self, store: Store) -> None:
        """Every step's update_many answer or error, and get/postings/scan/knn afterwards, match memory://."""
        machine = build_machine(store, self.dim, self.capabilities(store).approximate_knn)
        run_state_machine_as_test(
            machine,
            settings=settings(
                max_examples=self.state_machine_examples,
                stateful_step_count=self.state_machine_steps,
                deadline=None,
                database=None,
                suppress_health_check=list(HealthCheck),
            ),
        )
