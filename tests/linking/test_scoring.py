"""The linker's pure scoring, with no store at all: candidate voting, the type rules, a scored pair."""

from __future__ import annotations

import pytest

from kioko_core.linking.linker import LinkerConfig
from kioko_core.linking.scoring import Side, Stats, link_type, score_pair, vote
from kioko_core.reading.analysis import analyze
from kioko_core.store import Record


def test_vote_sums_each_terms_weight_per_id_and_ranks_best_first_ties_by_id() -> None:
    postings = {"t:a": ["m1", "m2"], "t:b": ["m2", "m3"], "t:c": ["m3"]}
    weights = {"t:a": 1.0, "t:b": 2.0, "t:c": 1.0}
    assert vote(["t:a", "t:b", "t:c"], postings, weights.__getitem__, 10) == [("m2", 3.0), ("m3", 3.0), ("m1", 1.0)]
    assert vote(["t:a", "t:b", "t:c"], postings, weights.__getitem__, 1) == [("m2", 3.0)]


def test_vote_skips_terms_that_do_not_nominate_and_never_votes_for_the_excluded_id() -> None:
    postings = {"t:a": ["m1", "m2"], "t:hub": ["m1", "m2", "m3"]}
    found = vote(
        ["t:a", "t:hub", "t:missing"], postings, lambda t: 1.0, 10, nominates=lambda t: t != "t:hub", exclude="m1"
    )
    assert found == [("m2", 1.0)]
    assert vote([], postings, lambda t: 1.0, 10) == []


def test_a_term_given_twice_votes_twice() -> None:
    """The linker passes bridged entity terms after the memory's own; a repeated one counts each time."""
    assert vote(["t:a", "t:a"], {"t:a": ["m1"]}, lambda t: 0.5, 3) == [("m1", 1.0)]


def _side(kind: str, content: str, memory_id: str, **fields: object) -> Side:
    record = Record(id=memory_id, user_id="u", kind=kind, content=content, **fields)  # type: ignore[arg-type]
    return Side.of(record, analyze(content))


@pytest.mark.parametrize(
    "first, second, expected",
    [
        (("decision", "We chose pgvector for Kioko."), ("goal", "Goal: Ship Kioko."), ("serves", True)),
        (("goal", "Goal: Ship Kioko."), ("decision", "We chose pgvector for Kioko."), ("serves", False)),
        (
            ("strategy", "For deploys: run the smoke test."),
            ("procedural", "Deploy: 1) build; 2) push"),
            ("refines", True),
        ),
        (("factual", "Kioko runs on Postgres."), ("goal", "Goal: Ship Kioko."), ("informs", True)),
    ],
)
def test_link_type_reads_the_kinds_and_says_which_side_is_the_source(first, second, expected) -> None:
    assert link_type(_side(*first, "a"), _side(*second, "b")) == expected


def test_a_pair_sharing_its_rare_names_is_scored_linked_without_any_store() -> None:
    """score_pair needs only the two sides and the term statistics: two memories naming Kioko and pgvector link."""
    m = _side("decision", "We chose pgvector for Kioko's vectors.", "a")
    c = _side("goal", "Goal: Ship Kioko with pgvector.", "b")
    df = {term: 2 for term in set(m.terms) | set(c.terms)}
    stats = Stats(n=50, df=df)
    ev = score_pair(m, c, stats, LinkerConfig(), lexical=True)
    assert ev.evidence
    assert ev.share >= 0.3
    assert ev.type == "serves"
    assert ev.score >= LinkerConfig().threshold
    unrelated = _side("goal", "Goal: Learn the cello.", "z")
    assert not score_pair(m, unrelated, Stats(n=50, df=df), LinkerConfig(), lexical=True).evidence
