"""Size limits and linear analysis: a long text is refused with a clear error, or analysed in linear time.

Before the fix a text with n names took time quadratic in n (4,000 identifiers: 16 s; 1 MB: never
finished). These tests hold the behaviour, not the time: the suite's time budget is what would notice
a quadratic step coming back (benchmarks/drills.py prints the figures).
"""

from __future__ import annotations

import pytest
from linking_support import linking_stores, matrix_store, store, user  # noqa: F401  (fixtures)

import kioko
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.linking import links as link_bookkeeping
from kioko_core.privacy.limits import DEFAULT_CONTENT_BYTES, DEFAULT_QUERY_BYTES, Limits, TooLargeError
from kioko_core.reading.analysis import analyze
from kioko_core.store import InvalidRecordError


def _units(n: int) -> str:
    return " ".join(f"Unit U-{i} checked." for i in range(n))


def test_analysis_of_thousands_of_identifiers_finds_every_one() -> None:
    """Each of 4,000 identifiers and asset names is one entity (this was the quadratic case)."""
    analysis = analyze(_units(4000))
    assert {f"u-{i}" for i in range(4000)} <= set(analysis.entities)
    assert len(analysis.entities) == len(set(analysis.entities))


def test_known_names_are_found_as_whole_words_only() -> None:
    """A name the graph knows counts where it stands alone, not inside a longer word, even after one."""
    analysis = analyze("the pipeline fed the pipeline b unit", ["pipeline b", "line", "fed the"])
    assert analysis.entities == ["pipeline b", "fed the"]
    assert analysis.surface["e:pipeline b"] == "pipeline b"


@pytest.fixture
def limited(store) -> MemoryLayer:  # noqa: F811  (fixture from linking_support)
    return MemoryLayer(store, auto_link=True, limits={"content_bytes": 2_000, "query_bytes": 500})


def test_content_over_the_limit_is_refused_and_nothing_is_stored(limited: MemoryLayer, user: str) -> None:  # noqa: F811
    """add() and update() above content_bytes raise TooLargeError; the store is unchanged."""
    kept = limited.add("Line 3 keeps faulting with error E-217.", user_id=user)
    with pytest.raises(TooLargeError) as raised:
        limited.add("word " * 500, user_id=user)
    assert raised.value.what == "content"
    assert raised.value.size == 2_500
    assert raised.value.limit == 2_000
    assert "content_bytes" in str(raised.value)
    with pytest.raises(TooLargeError):
        limited.update(kept.id, user_id=user, content="Line 3 " * 400)
    assert [r.id for r in limited.memories(user_id=user)] == [kept.id]
    assert limited.get(kept.id, user_id=user).content == kept.content


def test_limit_counts_utf8_bytes_not_characters(limited: MemoryLayer, user: str) -> None:  # noqa: F811
    """700 three-byte characters are 2,100 bytes: over a 2,000-byte limit though only 700 characters."""
    with pytest.raises(TooLargeError):
        limited.add("語" * 700, user_id=user)
    assert limited.add("語" * 600, user_id=user).content == "語" * 600


def test_query_over_the_limit_is_refused(limited: MemoryLayer, user: str) -> None:  # noqa: F811
    """recall(), context() and search() above query_bytes raise TooLargeError, an InvalidRecordError."""
    limited.add("Line 3 keeps faulting with error E-217.", user_id=user)
    for call in (limited.recall, limited.context, limited.search):
        with pytest.raises(TooLargeError) as raised:
            call("line 3 " * 100, user_id=user)
        assert isinstance(raised.value, InvalidRecordError)
        assert raised.value.what == "query"
    assert limited.recall("line 3 fault", user_id=user).memories


def _shifts(count: int) -> str:
    sentence = "On shift {i} Kumar saw fault E-{i} on Cell {c}B near INC-{i}; Ravi Shankar fixed it. "
    return "".join(sentence.format(i=i, c=i % 90) for i in range(count))


def test_a_long_memory_is_stored_on_every_store_when_the_limit_is_raised(store, user: str) -> None:  # noqa: F811
    """With content_bytes raised, 300 KB of names and identifiers is stored whole, analysed and found."""
    layer = MemoryLayer(store, auto_link=True, limits={"content_bytes": 400_000})
    layer.add("Cell 12B on Line 3 reports fault E-217 to Kumar.", user_id=user)
    text = _shifts(3_600)
    assert len(text.encode()) > DEFAULT_CONTENT_BYTES
    stored = layer.add(text, user_id=user)
    assert layer.get(stored.id, user_id=user).content == text
    assert "e-3599" in link_bookkeeping.entities_of(stored)
    assert stored.id in [r.id for r in layer.search(text[:20_000], user_id=user, limit=5)]


def test_a_megabyte_memory_is_stored_when_the_limit_is_raised() -> None:
    """1 MB in one memory (which never finished before analysis was linear) is stored and analysed."""
    layer = kioko.connect("memory://", auto_link=True, limits={"content_bytes": 2_000_000})
    text = _shifts(12_000)
    assert len(text.encode()) > 1_000_000
    stored = layer.add(text, user_id="u")
    assert layer.get(stored.id, user_id="u").content == text
    assert "e-11999" in link_bookkeeping.entities_of(stored)


def test_defaults_and_configuration() -> None:
    """The defaults are documented constants; connect() passes limits through; bad limits are refused."""
    assert Limits() == Limits(DEFAULT_CONTENT_BYTES, DEFAULT_QUERY_BYTES)
    layer = kioko.connect("memory://", limits={"content_bytes": 10})
    assert layer.limits == Limits(content_bytes=10)
    with pytest.raises(TooLargeError):
        layer.add("eleven char", user_id="u")
    for bad in ({"content_bytes": 0}, {"content_bytes": "big"}, {"size": 3}, ["content_bytes"]):
        with pytest.raises(InvalidRecordError):
            kioko.connect("memory://", limits=bad)
    with pytest.raises(TooLargeError):
        kioko.connect("memory://").add("x" * (DEFAULT_CONTENT_BYTES + 1), user_id="u")
