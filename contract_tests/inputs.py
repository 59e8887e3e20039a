"""The input rule (``kioko_core.store.INPUT_RULE``): every store accepts and refuses the same records.

Each refused case is a record that one store or another used to keep (or keep differently): it must
raise :class:`InvalidRecordError` on every store, with nothing of its batch written. Records are
broken with ``model_copy(update=...)``, which skips pydantic's checks, as a careless caller could.
Each accepted case must come back the same way everywhere. Also here: the argument checks of the
reads, and the options a store is opened with.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from contract_tests.base import StoreContractBase
from contract_tests.support import DIM, as_stored, make_record, unique, vectors
from kioko_core.store import (
    Delete,
    Filter,
    InvalidRecordError,
    Record,
    Scope,
    ScopeChanges,
    ScopeGenerations,
    Store,
    Upsert,
)
from kioko_core.store.link_store import LinkChange, LinkStore
from kioko_core.store.registry import open_store

NAN, INF = float("nan"), float("inf")

REFUSED_FIELDS: dict[str, dict[str, Any]] = {
    "NUL in content": {"content": "before\x00after"},
    "lone surrogate in content": {"content": "broken \ud800 half"},
    "NUL in id": {"id": "id\x00tail"},
    "lone surrogate in kind": {"kind": "fact\udfff"},
    "NUL in session_id": {"session_id": "s\x00"},
    "NUL in a term": {"terms": ["fine", "bad\x00"]},
    "lone surrogate in a term": {"terms": ["\ud83d"]},
    "a term that is not a string": {"terms": ["fine", 3]},
    "empty kind": {"kind": ""},
    "content that is not a string": {"content": None},
    "id longer than 200 characters": {"id": "x" * 201},
    "created_at NaN": {"created_at": NAN},
    "created_at infinity": {"created_at": INF},
    "created_at minus infinity": {"created_at": -INF},
    "updated_at NaN": {"updated_at": NAN},
    "created_at as text": {"created_at": "yesterday"},
    "created_at as a bool": {"created_at": True},
    "embedding as a list": {"embedding": [1.0] * DIM},
    "embedding of text": {"embedding": np.array(["a"] * DIM)},
    "embedding 2-d": {"embedding": np.ones((2, DIM), dtype=np.float32)},
    "embedding beyond float32": {"embedding": np.full(DIM, 1e39)},
}

REFUSED_METADATA: dict[str, Any] = {
    "NaN": {"score": NAN},
    "infinity": {"score": INF},
    "minus infinity nested in a list": {"scores": [1.0, [2.0, -INF]]},
    "bytes": {"raw": b"\x00\x01"},
    "a datetime": {"when": datetime.datetime(2024, 1, 1)},
    "a set": {"tags": {"a", "b"}},
    "an object": {"thing": object()},
    "a Decimal": {"price": decimal.Decimal("1.10")},
    "a numpy float": {"score": np.float32(0.5)},
    "an int key": {1: "one"},
    "a tuple key": {("a", "b"): 1},
    "a key with NUL": {"k\x00": 1},
    "a value with NUL": {"note": "a\x00b"},
    "a value with a lone surrogate": {"note": "\udc80"},
    "a lone surrogate deep inside": {"a": [{"b": {"c": ["ok", "\ud800"]}}]},
}


UNHOLDABLE_TEXT = {"a NUL": "who\x00", "a lone surrogate": "who\ud800"}
"""Text no record can hold (:data:`kioko_core.store.INPUT_RULE`), sent where a read or a delete takes a scope or a
filter value: refused with InvalidRecordError before the driver sees it (StoreBase and check_scope do it)."""

UNHOLDABLE_FILTERS: dict[str, Filter] = {
    "NUL in kinds": Filter(kinds=frozenset({"note", "note\x00"})),
    "lone surrogate in kinds": Filter(kinds=frozenset({"\udfff"})),
    "NUL in session_id": Filter(session_id="s\x00"),
    "lone surrogate in session_id": Filter(session_id="s\ud800"),
    "NUL in ids": Filter(ids=frozenset({"ok", "id\x00"})),
    "lone surrogate in ids": Filter(ids=frozenset({"\ud83d"})),
    "created_after NaN": Filter(created_after=NAN),
    "created_before NaN": Filter(created_before=NAN),
    # model_construct skips pydantic's checks, as a careless caller could
    "kinds as a bare string": Filter.model_construct(kinds="note"),
    "ids as a list": Filter.model_construct(ids=["a", "b"]),
    "session_id not a string": Filter.model_construct(session_id=7),
    "created_after as text": Filter.model_construct(created_after="yesterday"),
}


def _refused_by_all(calls: dict[str, Callable[[], object]]) -> None:
    """Each call raises InvalidRecordError; the failure names every call that did not."""
    let_through = []
    for name, call in calls.items():
        try:
            call()
        except InvalidRecordError:
            continue
        except Exception as error:  # noqa: BLE001 - reported: a database error where the typed one belongs
            let_through.append(f"{name} raised {type(error).__name__}: {error}")
        else:
            let_through.append(f"{name} answered instead of raising InvalidRecordError")
    assert not let_through, "; ".join(let_through)


class InputRuleContract(StoreContractBase):
    """Every store refuses the same malformed records, and accepts the same well-formed ones."""

    def refuse(self, store: Store, scope: Scope, bad: Record) -> None:
        good = make_record(scope, embedding=vectors(1, seed=5)[0])
        with pytest.raises(InvalidRecordError):
            store.update_many([Upsert(record=good), Upsert(record=bad)])
        assert store.get(scope, [good.id]) == [None], "a refused batch wrote its good record"
        assert list(store.scan(scope)) == []

    @pytest.mark.parametrize("case", sorted(REFUSED_FIELDS))
    def test_a_record_breaking_the_rule_is_refused(self, store: Store, scope: Scope, case: str) -> None:
        """Text with NUL or a lone surrogate, non-finite timestamps, malformed fields: InvalidRecordError."""
        bad = make_record(scope).model_copy(update=REFUSED_FIELDS[case])
        self.refuse(store, scope, bad)

    @pytest.mark.parametrize("case", sorted(REFUSED_METADATA))
    def test_metadata_that_is_not_json_is_refused(self, store: Store, scope: Scope, case: str) -> None:
        """Metadata is JSON only: string keys, finite numbers, no bytes, dates, sets or objects."""
        self.refuse(store, scope, make_record(scope).model_copy(update={"metadata": REFUSED_METADATA[case]}))

    @pytest.mark.parametrize("field", ["user_id", "agent_id"])
    def test_a_scope_with_a_nul_is_refused(self, store: Store, scope: Scope, field: str) -> None:
        """The scope's own strings follow the rule too."""
        self.refuse(store, scope, make_record(scope).model_copy(update={field: "who\x00"}))

    def test_a_vector_set_after_construction_is_checked(self, store: Store, scope: Scope) -> None:
        """A float64 vector given through model_copy is stored as float32, the same on every store."""
        vector = vectors(1, seed=8)[0].astype(np.float64)
        record = make_record(scope).model_copy(update={"embedding": vector})
        [stored] = store.update_many([Upsert(record=record)])
        [fetched] = store.get(scope, [record.id])
        assert stored is not None and fetched is not None
        assert fetched.embedding is not None and fetched.embedding.dtype == np.float32
        assert np.array_equal(fetched.embedding, vector.astype(np.float32))

    def test_repeated_terms_given_after_construction_count_once(self, store: Store, scope: Scope) -> None:
        """Terms repeated through model_copy are stored once, as the Record's own validator would."""
        record = make_record(scope).model_copy(update={"terms": ["echo", "echo", "other"]})
        store.update_many([Upsert(record=record)])
        [fetched] = store.get(scope, [record.id])
        assert fetched is not None and fetched.terms == ["echo", "other"]
        assert store.postings(scope, ["echo"], limit=5).df == {"echo": 1}

    def test_json_metadata_round_trips_the_same_everywhere(self, store: Store, scope: Scope) -> None:
        """Tuples come back as lists; big ints, negative zero, escapes and unicode come back as given."""
        metadata = {
            "pair": (1, "two"),
            "nested": [(3.5, None)],
            "big": 2**70,
            "neg": -0.0,
            "escapes": 'tab\tquote"backslash\\',
            "emoji": "🧠",
            "empty": {},
        }
        record = make_record(scope, metadata=metadata)
        store.update_many([Upsert(record=record)])
        [fetched] = store.get(scope, [record.id])
        assert fetched is not None
        assert fetched.metadata == {**metadata, "pair": [1, "two"], "nested": [[3.5, None]]}
        assert type(fetched.metadata["pair"]) is list and type(fetched.metadata["nested"][0]) is list

    def test_a_nul_in_what_is_asked_finds_nothing(self, store: Store, scope: Scope) -> None:
        """Ids and terms no record can hold are simply absent: None from get, df 0 from postings."""
        record = make_record(scope, terms=["t"])
        store.update_many([Upsert(record=record)])
        assert store.get(scope, ["x\x00", record.id, "\ud800"]) == [None, as_stored(record, 1), None]
        postings = store.postings(scope, ["t\x00", "t", "\udfff"], limit=5)
        assert postings.df == {"t\x00": 0, "t": 1, "\udfff": 0}
        assert postings.ids == {"t\x00": [], "t": [record.id], "\udfff": []}


class ArgumentContract(StoreContractBase):
    """Bad arguments to the reads raise the same InvalidRecordError on every store."""

    @pytest.mark.parametrize("batch", [0, -1, 2.5, True])
    def test_a_bad_scan_batch_is_refused(self, store: Store, scope: Scope, batch: Any) -> None:
        """batch must be an integer >= 1: InvalidRecordError, at the latest when iteration starts."""
        with pytest.raises(InvalidRecordError):
            list(store.scan(scope, batch=batch))

    @pytest.mark.parametrize("limit", [-1, 1.5, None, True])
    def test_a_bad_postings_limit_is_refused(self, store: Store, scope: Scope, limit: Any) -> None:
        with pytest.raises(InvalidRecordError):
            store.postings(scope, ["t"], limit=limit)

    @pytest.mark.parametrize("k", [-1, 2.0, None, False])
    def test_a_bad_k_is_refused(self, store: Store, scope: Scope, k: Any) -> None:
        with pytest.raises(InvalidRecordError):
            store.knn(scope, np.ones(DIM), k=k)

    def test_a_string_where_a_list_belongs_is_refused(self, store: Store, scope: Scope) -> None:
        """``get(scope, "abc")`` would otherwise ask for "a", "b" and "c"."""
        with pytest.raises(InvalidRecordError):
            store.get(scope, "abc")
        with pytest.raises(InvalidRecordError):
            store.postings(scope, "abc", limit=3)

    def test_a_filter_of_the_wrong_type_is_refused(self, store: Store, scope: Scope) -> None:
        with pytest.raises(InvalidRecordError):
            store.knn(scope, np.ones(DIM), k=1, filter={"kinds": ["fact"]})  # type: ignore[arg-type]
        with pytest.raises(InvalidRecordError):
            list(store.scan(scope, filter="fact"))  # type: ignore[arg-type]

    @pytest.mark.parametrize("field", ["user_id", "agent_id"])
    @pytest.mark.parametrize("text", sorted(UNHOLDABLE_TEXT))
    def test_a_scope_no_record_can_have_is_refused(self, store: Store, scope: Scope, field: str, text: str) -> None:
        """A NUL or a lone surrogate in a scope's user_id or agent_id: InvalidRecordError from every method that
        takes a scope (the optional ones a store has too), not None, not a database error; nothing changes."""
        bad = UNHOLDABLE_TEXT[text]
        broken = Scope(bad, None) if field == "user_id" else Scope(scope.user_id, bad)
        record = make_record(scope, terms=["t"], embedding=vectors(1, seed=10)[0])
        store.update_many([Upsert(record=record)])
        calls: dict[str, Callable[[], object]] = {
            "get": lambda: store.get(broken, [record.id]),
            "postings": lambda: store.postings(broken, ["t"], limit=3),
            "knn": lambda: store.knn(broken, np.ones(DIM), k=3),
            "scan": lambda: list(store.scan(broken)),
            "update_many with a Delete": lambda: store.update_many([Delete(id=record.id, scope=broken)]),
        }
        if isinstance(store, ScopeGenerations):
            calls["generation"] = lambda: store.generation(broken)  # type: ignore[attr-defined]
        if isinstance(store, ScopeChanges):
            calls["changes_since"] = lambda: store.changes_since(broken, 0)  # type: ignore[attr-defined]
        if isinstance(store, LinkStore):
            calls["links"] = lambda: store.links(broken, [record.id])  # type: ignore[attr-defined]
            change = LinkChange(broken, record.id, put=(("other", {"w": 1.0}),))
            calls["update_with_links"] = lambda: store.update_with_links([], [change])  # type: ignore[attr-defined]
        _refused_by_all(calls)
        assert store.get(scope, [record.id]) == [as_stored(record, 1)]

    @pytest.mark.parametrize("case", sorted(UNHOLDABLE_FILTERS))
    def test_a_filter_value_no_record_can_have_is_refused(self, store: Store, scope: Scope, case: str) -> None:
        """kinds, session_id or ids holding a NUL or a lone surrogate, a NaN bound, a value of the wrong type:
        InvalidRecordError from knn and scan, as for a scope (a NaN bound matched all or nothing by database)."""
        flt = UNHOLDABLE_FILTERS[case]
        store.update_many([Upsert(record=make_record(scope, embedding=vectors(1, seed=11)[0]))])
        _refused_by_all(
            {
                "knn": lambda: store.knn(scope, np.ones(DIM), k=3, filter=flt),
                "scan": lambda: list(store.scan(scope, flt)),
            }
        )

    def test_an_empty_filter_set_matches_nothing(self, store: Store, scope: Scope) -> None:
        """kinds or ids given as an empty set match no record."""
        store.update_many([Upsert(record=make_record(scope, embedding=vectors(1, seed=9)[0]))])
        for flt in (Filter(kinds=frozenset()), Filter(ids=frozenset())):
            assert store.knn(scope, np.ones(DIM), k=3, filter=flt) == []
            assert list(store.scan(scope, flt)) == []


class OptionContract(StoreContractBase):
    """Opening refuses options the store does not know, and a dim that is not a positive integer."""

    @pytest.mark.parametrize("dim", [-3, 0, 2.5, "eight", True])
    def test_a_bad_dim_is_refused(self, store_url: str, dim: Any) -> None:
        with pytest.raises(InvalidRecordError):
            open_store(store_url, dim=dim).close()

    def test_an_unknown_option_is_refused(self, store_url: str) -> None:
        """A misspelt keyword option fails loudly instead of being ignored."""
        with pytest.raises(InvalidRecordError):
            open_store(store_url, dim=DIM, timout_seconds=5).close()

    def test_an_unknown_url_option_is_refused(self, store_url: str) -> None:
        """A misspelt ``?option=`` in the URL fails loudly too."""
        name = unique("no_such_option").replace("-", "_")
        url = store_url + ("&" if "?" in store_url else "?") + f"{name}=1"
        with pytest.raises(InvalidRecordError):
            open_store(url, dim=DIM).close()
