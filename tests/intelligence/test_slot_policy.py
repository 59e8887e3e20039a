"""The supersede policy per kind is read from the kinds registry's columns: these are the members it had when the
sets were spelled in slots.py, so a changed row changes them on purpose, not by accident."""

from __future__ import annotations

from kioko_core.kinds.registry import KINDS
from kioko_intelligence import slots


def test_kinds_holding_a_value() -> None:
    assert slots.VALUE_KINDS == {
        "factual",
        "preference",
        "semantic",
        "instruction",
        "episodic",
        "goal",
        "decision",
        "procedural",
        "strategy",
        "profile",
    }


def test_operations_whose_add_gives_a_value() -> None:
    assert slots.ADDING == {
        "fact",
        "preference",
        "knowledge",
        "instruction",
        "episode",
        "goal",
        "decision",
        "procedure",
    }


def test_kinds_stating_the_users_own_value() -> None:
    assert slots._STATED_KINDS == {"factual", "preference", "profile", "instruction", "decision", "goal", "procedural"}


def test_kinds_read_by_kind_not_through_the_term_index() -> None:
    assert slots.UNINDEXED == {"instruction", "profile"}


def test_kinds_a_correction_restates() -> None:
    assert slots._OP_OF == {
        "factual": "fact",
        "preference": "preference",
        "semantic": "knowledge",
        "instruction": "instruction",
        "goal": "goal",
        "procedural": "procedure",
        "strategy": "strategy",
    }


def test_kinds_an_event_stands_in_for() -> None:
    assert slots._HELD_KINDS == {"factual", "preference", "semantic", "instruction"}


def test_only_kinds_holding_a_value_carry_the_other_columns() -> None:
    for info in KINDS:
        if not info.holds_value:
            assert not (info.users_own or info.gives_values or info.restated), info.name
