"""The memories a turn's slot rules read are read once per turn, as the store holds them (issue 34).

``kioko_intelligence.holders.read_once`` wraps one turn's resolve: each of its rules asks for "the current memories
holding these words", and within the block a scope's postings, records and scanned kinds are read at most once,
the records through the layer's index cache. These tests check, on memory:// and a SQLite file: the answers are
those of a fresh read; repeated asks do not read the store again; another user's reads never go through the
block (nothing of one user is handed to another); a write of another layer on the same file, and the turn's own
supersede mark, are seen by the next turn; and the readings of texts the rules keep are handed out as copies (a
caller changing one changes no other).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from call_support import calls_during

import kioko
from kioko_core.layer.records import LayerStore
from kioko_core.store import Scope
from kioko_intelligence import holders, slots
from kioko_intelligence.slot_reading import read_slot, text_terms

USER, OTHER = "ines", "tomas"
WATCHED = {LayerStore.get.__code__: "get", LayerStore.postings.__code__: "postings", LayerStore.scan.__code__: "scan"}


def reads(action: Callable[[], Any]) -> tuple[Any, Counter[str]]:
    """What ``action`` returns, and how often it called the layer's store (get, postings, scan)."""
    return calls_during(WATCHED, action)


@pytest.fixture(params=["memory", "sqlite"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'holders.db'}"


@pytest.fixture
def memory(url: str) -> Iterator[kioko.MemoryLayer]:
    with kioko.intelligent(url) as layer:
        yield layer


def _terms(text: str) -> list[str]:
    return [t for t in text_terms(text) if t.startswith("t:")]


def _as_read(record: Any) -> dict[str, Any]:
    """A record's fields (its vector aside: an array, compared apart where it matters)."""
    return record.model_dump(exclude={"embedding"})


def _said(memory: kioko.MemoryLayer, user: str, *texts: str) -> None:
    for text in texts:
        memory.record_turn(text, "Noted.", user_id=user, session_id="s1")


def test_a_turns_asks_read_the_store_once_and_answer_as_a_fresh_read(memory: kioko.MemoryLayer) -> None:
    _said(
        memory,
        USER,
        "The line 3 conveyor jammed twice this morning.",
        "To clear a jam on line 3, press stop, then open the guard.",
        "Always answer me in short sentences.",
    )
    scope, terms = Scope(USER, None), _terms("the conveyor jam on line 3")
    fresh = slots._holding(memory, scope, terms, False)
    assert fresh  # the asks below find something: a test of what they find

    with holders.read_once(memory, scope):
        answers, calls = reads(lambda: [slots._holding(memory, scope, terms, e) for e in (False, False, True, True)])
    assert [_as_read(r) for r in answers[0]] == [_as_read(r) for r in fresh]
    assert [r.id for r in answers[1]] == [r.id for r in fresh]
    assert [r.id for r in answers[2]] == [r.id for r in slots._holding(memory, scope, terms, True)]
    assert calls["postings"] == 1  # the same terms four times: asked once
    assert calls["scan"] == 1  # the kinds the term index does not keep: scanned once
    assert calls["get"] <= 1  # the records: once at most (none when the index cache holds them all)


def test_another_users_asks_never_go_through_the_block(memory: kioko.MemoryLayer) -> None:
    _said(memory, USER, "My editor is Neovim.")
    _said(memory, OTHER, "My editor is Emacs.")
    mine, theirs = Scope(USER, None), Scope(OTHER, None)
    terms = _terms("my editor")
    with holders.read_once(memory, mine):
        held = slots._holding(memory, mine, terms, False)
        other = slots._holding(memory, theirs, terms, False)
        ids_of_mine = [r.id for r in held]
        assert holders.held_records(memory, theirs, ids_of_mine) == [None] * len(ids_of_mine)
    assert {r.user_id for r in held} == {USER}
    assert {r.user_id for r in other} == {OTHER}
    assert "Neovim" in " ".join(r.content for r in held)
    assert "Neovim" not in " ".join(r.content for r in other)


def test_another_layers_write_is_seen_by_the_next_turn(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'two-layers.db'}"
    with kioko.intelligent(url) as first, kioko.intelligent(url) as second:
        _said(first, USER, "I use Sublime Text as my editor.")
        scope, terms = Scope(USER, None), _terms("my editor")
        with holders.read_once(first, scope):
            (held,) = [r for r in slots._holding(first, scope, terms, False) if "Sublime" in r.content]
        first.index.records(scope, [held.id])  # in the first layer's cache now
        second.update(held.id, content="I use Zed as my editor.", user_id=USER)
        with holders.read_once(first, scope):
            seen = [r.content for r in slots._holding(first, scope, terms, False) if r.id == held.id]
        assert seen == ["I use Zed as my editor."]


def test_the_supersede_mark_of_one_turn_is_seen_by_the_next(url: str) -> None:
    with kioko.intelligent(url) as memory:
        _said(memory, USER, "My dentist is Dr. Alvarez.")
        (old,) = [r for r in memory.memories(user_id=USER) if "Alvarez" in r.content]
        scope = Scope(USER, None)
        with holders.read_once(memory, scope):
            assert holders.held_records(memory, scope, [old.id])[0] is not None  # read (and cached) before the change
        _said(memory, USER, "I switched dentists, I see Dr. Okafor now.")
        with holders.read_once(memory, scope):
            (after,) = holders.held_records(memory, scope, [old.id])
        assert after is not None
        assert after.metadata.get("superseded_by")
        assert _as_read(after) == _as_read(memory.store.get(scope, [old.id])[0])


def test_a_texts_terms_are_a_fresh_list_at_every_call() -> None:
    text = "The line 3 conveyor jammed twice this morning."
    first = text_terms(text)
    first.clear()  # a caller changing its list changes nobody else's
    assert text_terms(text) == text_terms(text + "")
    assert text_terms(text)
    assert text_terms("x" * 3000 + " conveyor") == text_terms("x" * 3000 + " conveyor")  # longer: read each call


def test_a_texts_slot_is_the_callers_own_at_every_call() -> None:
    text = "My goal is to cut scrap on press 2 by 17% by March 31."
    first = read_slot(text)
    assert first.frame
    assert first.values["number"]
    first.frame.clear()  # what one caller changes of its slot is not what the next one reads
    first.values["number"].add("99")
    again = read_slot(text)
    assert again.frame == {"cut", "scrap", "press"}
    assert again.values == {"date": {"march 31"}, "number": {"2", "17"}}
