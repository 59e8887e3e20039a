"""StoreBase and the option parsing every built-in driver shares (kioko_core.store.driver)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import kioko
from kioko_core.store import InvalidRecordError, Record, Scope, Upsert
from kioko_core.store.driver import Option, StoreBase, flag, positive_float, positive_int, read_options
from kioko_core.store.url import StoreURL


def test_a_misspelt_sqlite_option_names_the_known_ones(tmp_path: Path) -> None:
    """``?timout=5`` is refused, and the message lists what sqlite:// does take."""
    with pytest.raises(InvalidRecordError) as raised:
        kioko.open_store(f"sqlite:///{tmp_path / 'x.db'}?timout=5")
    message = str(raised.value)
    assert "'timout'" in message
    assert "ann, dim, exact_below, timeout, vector_cache_mb" in message
    assert not (tmp_path / "x.db").exists(), "nothing may be created for a refused URL"


@pytest.mark.parametrize("url", ["memory://?dim=-3", "memory://?dim=0", "memory://?dim=2.5", "memory://?dim=abc"])
def test_a_bad_dim_in_the_url_is_refused(url: str) -> None:
    with pytest.raises(InvalidRecordError, match="dim must be a positive integer"):
        kioko.open_store(url)


def test_a_keyword_option_wins_over_the_url_and_none_counts_as_not_given() -> None:
    known = {"dim": Option(positive_int, 256), "timeout": Option(positive_float, 30.0)}
    url = StoreURL.parse("memory://?dim=8&timeout=2")
    assert read_options(url, {"dim": 16, "timeout": None}, known) == {"dim": 16, "timeout": 2.0}
    assert read_options(StoreURL.parse("memory://"), {}, known) == {"dim": 256, "timeout": 30.0}


def test_unknown_query_parameters_pass_when_the_driver_hands_them_on() -> None:
    known = {"dim": Option(positive_int, 256)}
    url = StoreURL.parse("postgresql://h/db?sslmode=require&dim=8")
    assert read_options(url, {}, known, other_query=True) == {"dim": 8}
    with pytest.raises(InvalidRecordError, match="'sslmode'"):
        read_options(url, {}, known)
    with pytest.raises(InvalidRecordError, match="'pool'"):
        read_options(url, {"pool": 3}, known, other_query=True)  # keywords are always checked


@pytest.mark.parametrize(("value", "expected"), [("true", True), ("0", False), (True, True), ("", False)])
def test_flag_reads_the_usual_spellings(value: object, expected: bool) -> None:
    assert flag(value, "https") is expected


def test_flag_refuses_anything_else() -> None:
    with pytest.raises(InvalidRecordError):
        flag("maybe", "https")


def test_with_closes_the_store(tmp_path: Path) -> None:
    """Every built-in store is a context manager; leaving the block closes it."""
    with kioko.open_store(f"sqlite:///{tmp_path / 'with.db'}", dim=4) as store:
        store.update_many([Upsert(record=Record(id="a", user_id="u", kind="note"))])
    with pytest.raises(kioko.StoreError, match="closed"):
        store.get(Scope("u"), ["a"])


def test_get_hands_out_an_independent_copy_per_position() -> None:
    store = kioko.open_store("memory://", dim=4)
    store.update_many(
        [Upsert(record=Record(id="a", user_id="u", kind="note", metadata={"n": [1]}, embedding=np.ones(4)))]
    )
    first, second = store.get(Scope("u"), ["a", "a"])
    assert first == second
    assert first is not second
    first.metadata["n"].append(2)
    assert second.metadata == {"n": [1]}
    assert store.get(Scope("u"), ["a"])[0].metadata == {"n": [1]}


def test_a_subclass_without_hooks_says_what_is_missing() -> None:
    class Half(StoreBase):
        dim = 4

    with pytest.raises(NotImplementedError, match="open_url"):
        Half.from_url("half://")
    assert Half().update_many([]) == []  # an empty batch never reaches a hook
