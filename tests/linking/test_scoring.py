"""The linker's pure scoring, with no store at all: candidate voting, the type rules, a scored pair."""

from __future__ import annotations

import pytest

from kioko_core.linking.linker import LinkerConfig
from kioko_core.linking.scoring import Evaluated, Side, Stats, link_type, score_candidates, score_pair, vote
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


def test_weighing_every_term_at_once_gives_the_floats_of_weighing_them_one_by_one() -> None:
    """Stats.weigh (each distinct df's idf once, for a write's hundreds of candidate terms) and the lazy w(t) agree
    to the last bit, entity terms boosted alike, at sizes where the idf is 0 for common terms and where it is not."""
    for n in (0, 7, 19, 20, 21, 333, 100_000):
        df = {f"t:w{d}": d for d in range(0, min(n, 400) + 3)} | {f"e:name {d}": d for d in range(0, 60, 3)}
        lazy, eager = Stats(n=n, df=dict(df)), Stats(n=n, df=dict(df))
        eager.weigh()
        for term in df:
            assert eager._weights[term] == lazy.w(term)
        assert [eager.w(t) for t in df] == [lazy.w(t) for t in df]


def test_scoring_candidates_together_scores_each_pair_as_alone() -> None:
    """score_candidates (the weak-ground terms of the new memory found once per write) gives each candidate the
    evidence score_pair gives it alone: same share, score, gate and type, a share of hubs alone halved in both."""
    m = _side("event", "The Kioko build failed on the pgvector cable at the garage.", "m", session_id="s")
    others = [
        _side("event", "Fixed the pgvector cable in the garage.", "a", session_id="s"),
        _side("event", "The garage door is stuck again.", "b"),
        _side("goal", "Goal: Ship Kioko with pgvector.", "c"),
        _side("event", "Learned a new song on the cello.", "d"),
    ]
    terms = set(m.terms).union(*(set(o.terms) for o in others))
    df = {term: (40 if "garage" in term else 2) for term in terms}  # the garage is a hub in 100 memories
    config = LinkerConfig()
    together = score_candidates(m, others, [None] * len(others), Stats(n=100, df=dict(df)), config, True, {"t:garage"})
    for side, ev in zip(others, together):
        alone = score_pair(m, side, Stats(n=100, df=dict(df)), config, True, {"t:garage"}, with_why=False)
        assert (ev.share, ev.score, ev.evidence, ev.type) == (alone.share, alone.score, alone.evidence, alone.type)
    hub_only = score_pair(m, others[1], Stats(n=100, df=dict(df)), config, True, set(), with_why=False)
    assert together[1].share == hub_only.share
    assert 0 < together[1].share


def test_candidates_left_unscored_are_those_that_could_not_link_and_score_as_before_when_asked() -> None:
    """Evaluated scores at once only the candidates whose score may reach the floor; every one left waiting scores
    below it when asked for (the turn-before rule asks), and each evidence, scored at once or later, is the one
    score_candidates gives: same share, cosine, score, gate and type, a fix after its problem in one session too."""
    fix = "Fixed the Kioko build: the pgvector cable at the garage was loose."
    m = _side("event", fix, "m", session_id="s", created_at=10_000.0)
    others = [
        _side("event", "The Kioko build failed on the pgvector cable.", "a", session_id="s", created_at=9_000.0),
        _side("event", "The garage door is stuck again.", "b", session_id="s", created_at=9_500.0),
        _side("goal", "Goal: Ship Kioko with pgvector.", "c"),
        _side("event", "Learned a new song on the cello.", "d", session_id="s", created_at=1_000.0),
        _side("event", "Bought bread at the market.", "e"),
        _side("factual", "The cello teacher lives near the market.", "f"),
        # one weak shared word in a long problem of the same session: linked on the problem-fix cue alone
        _side(
            "event",
            "The loose shelf, the squeaky door, the broken window and the leaking tap need work.",
            "g",
            session_id="s",
            created_at=9_500.0,
        ),
    ]
    terms = set(m.terms).union(*(set(o.terms) for o in others))
    df = {term: (40 if "garage" in term else 2) for term in terms}
    config = LinkerConfig()
    cosines: list[float | None] = [0.9, 0.2, 0.5, 0.0, 0.1, None, 0.0]
    every = score_candidates(m, others, cosines, Stats(n=100, df=dict(df)), config, True, {"t:garage"})
    evaluated = Evaluated(m, others, cosines, Stats(n=100, df=dict(df)), config, True, {"t:garage"}, config.threshold)
    waiting = [side.record.id for side in others if side.record.id not in evaluated]
    assert waiting  # the cello and the bread share nothing with the fix
    assert "a" in evaluated  # the problem it fixes, one session, within two hours
    assert "g" in evaluated
    assert every[-1].cue == 1.0
    assert every[-1].share < 0.15
    assert every[-1].score >= config.threshold
    assert every[0].type == "resolves"
    assert every[0].score >= config.threshold
    for side, ev in zip(others, every):
        got = evaluated[side.record.id]  # a waiting one is scored now
        assert (got.share, got.cos, got.score, got.evidence, got.type) == (
            ev.share,
            ev.cos,
            ev.score,
            ev.evidence,
            ev.type,
        )
        if side.record.id in waiting:
            assert ev.score < config.threshold
    with pytest.raises(KeyError):
        evaluated["not a candidate"]


def test_a_candidate_whose_gate_cannot_pass_waits_though_its_score_reaches_the_threshold() -> None:
    """A turn of the same session, minutes before, that shares no word with the memory but is somewhat alike in the
    vector scores at or above the threshold on its time and similarity, and is refused at the gate (no evidence):
    Evaluated leaves it waiting, and scores it as score_pair does when the turn-before rule asks. The turn that
    shares the memory's words is scored at once."""
    m = _side("event", "Booked the flights to Lisbon for the conference.", "m", session_id="s", created_at=10_000.0)
    others = [
        _side("event", "Sounds great, thanks!", "quiet", session_id="s", created_at=9_900.0),
        _side("event", "The Lisbon conference flights are expensive.", "near", session_id="s", created_at=9_800.0),
        # the same words in another session, days before: its score cannot reach the threshold
        _side("event", "Sounds great, see you then!", "far", session_id="t", created_at=1_000.0),
    ]
    terms = set(m.terms).union(*(set(o.terms) for o in others))
    df = {term: 2 for term in terms}
    config = LinkerConfig()
    cosines: list[float | None] = [0.4, 0.5, 0.1]
    every = score_candidates(m, others, cosines, Stats(n=100, df=dict(df)), config, True, set())
    quiet = every[0]
    assert quiet.share == 0.0 and quiet.time == 1.0
    assert quiet.score >= config.threshold  # high enough on its time and similarity ...
    assert not quiet.evidence  # ... and refused at the gate
    assert every[1].evidence and every[1].score >= config.threshold
    evaluated = Evaluated(m, others, cosines, Stats(n=100, df=dict(df)), config, True, set(), config.threshold)
    assert "quiet" not in evaluated and "far" not in evaluated
    assert "near" in evaluated
    for side, ev in zip(others, every):
        got = evaluated[side.record.id]  # a waiting one is scored now, as score_pair scores it
        assert (got.share, got.cos, got.score, got.evidence, got.type, got.source_is_first) == (
            ev.share,
            ev.cos,
            ev.score,
            ev.evidence,
            ev.type,
            ev.source_is_first,
        )


def test_every_candidate_left_waiting_could_not_have_been_linked() -> None:
    """Over many pairs of kinds, sessions, times, shared words and cosines: a waiting candidate's evidence (scored
    when asked) either scores under the floor or has no evidence; one scored at once is the same evidence too."""
    texts = [
        "Fixed the Kioko build: the pgvector cable was loose.",
        "The Kioko build failed on the pgvector cable.",
        "Sounds great, thanks!",
        "Goal: Ship Kioko with pgvector.",
        "We chose pgvector for Kioko's vectors.",
        "Booked flights to Lisbon.",
    ]
    kinds = ["event", "goal", "decision", "factual"]
    config = LinkerConfig()
    waited = 0
    for number, (kind, text) in enumerate((k, t) for k in kinds for t in texts):
        m = _side(kind, text, "m", session_id="s", created_at=10_000.0)
        others = [
            _side(other_kind, other_text, f"c{i}", session_id="s" if i % 2 else "t", created_at=10_000.0 - 900 * i)
            for i, (other_kind, other_text) in enumerate((k, t) for k in kinds for t in texts)
        ]
        terms = set(m.terms).union(*(set(o.terms) for o in others))
        df = {term: 2 + (len(term) + number) % 30 for term in terms}
        cosines: list[float | None] = [((i * 37 + number) % 100) / 100 for i in range(len(others))]
        every = score_candidates(m, others, cosines, Stats(n=100, df=dict(df)), config, True, set())
        evaluated = Evaluated(m, others, cosines, Stats(n=100, df=dict(df)), config, True, set(), config.threshold)
        for side, ev in zip(others, every):
            if side.record.id not in evaluated:
                waited += 1
                assert ev.score < config.threshold or not ev.evidence
            got = evaluated[side.record.id]
            assert (got.share, got.score, got.evidence, got.type) == (ev.share, ev.score, ev.evidence, ev.type)
    assert waited > 0


def test_a_turn_sharing_a_weak_word_without_a_fix_or_a_problem_waits() -> None:
    """The problem-fix cue needs a fix in one memory and a problem in the other: a turn of the same session, minutes
    before, sharing one common word with a memory that names neither scores under the threshold and waits (it was
    scored at once while the cue was taken as possible wherever a word was shared); asked for, it is scored as
    score_pair scores it. A problem before a fix, sharing the same word, is still scored at once."""
    m = _side("event", "Walked the dog along the river this morning.", "m", session_id="s", created_at=10_000.0)
    plain = _side(
        "event", "The river was high after the rain, lovely morning.", "plain", session_id="s", created_at=9_900.0
    )
    fix = _side("event", "Fixed the leaking river pump this morning.", "fix", session_id="s", created_at=10_100.0)
    terms = set(m.terms) | set(plain.terms) | set(fix.terms)
    common = set(m.terms) & set(plain.terms)  # the river, the morning
    df = {term: (60 if term in common else 2) for term in terms}  # in most memories: weight 0
    config = LinkerConfig()
    others, cosines = [plain, fix], [0.1, 0.1]
    every = score_candidates(m, others, cosines, Stats(n=100, df=dict(df)), config, True, set())
    assert every[0]._context[0] and every[0].cue == 0.0 and every[0].score < config.threshold  # words shared
    evaluated = Evaluated(m, others, cosines, Stats(n=100, df=dict(df)), config, True, set(), config.threshold)
    assert "plain" not in evaluated
    got = evaluated["plain"]
    assert (got.share, got.score, got.evidence, got.type) == (
        every[0].share,
        every[0].score,
        every[0].evidence,
        every[0].type,
    )
    problem = _side("event", "The river pump is broken and leaking again.", "m2", session_id="s", created_at=10_000.0)
    terms |= set(problem.terms)
    df = {term: (60 if term in common else 2) for term in terms}
    evaluated = Evaluated(problem, [fix], [0.1], Stats(n=100, df=dict(df)), config, True, set(), config.threshold)
    assert "fix" in evaluated
