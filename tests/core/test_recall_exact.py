"""Recall's lexical ranking is exact at any size: every posting of the question's terms counts (issue 34).

The linker reads at most ``postings_limit`` (200) newest ids a term; recall used to inherit that bound,
so once a user held a few hundred memories a common term's older memories were never candidates. These
tests hold a user past that bound on every store and compare recall's lexical scores with a reference
computed from a scan of the whole scope.
"""

from __future__ import annotations

import pytest
from linking_support import layer, linking_stores, make_layer, matrix_store, store, user  # noqa: F401  (fixtures)

from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.linking.index import IndexCache, idf, nominates
from kioko_core.linking.scoring import vote
from kioko_core.linking.term_rows import RowTable, top_k
from kioko_core.reading.query_and_draft import Query
from kioko_core.recall.hybrid import RecallConfig, lexical_scores
from kioko_core.store import Scope, Store

SIZE = 300
"""Past the bound: max(50, 0.2 x 300) = 60 postings still nominate; the layers here read 20 a term for links
(``postings_limit``, 200 by default: the same cut, at a size the test's four stores fill quickly)."""
BOUND = {"postings_limit": 20}
FILLER = (
    "apple basket candle dragon engine forest garden hammer island jacket kettle ladder mirror needle orchard "
    "pepper quilt ribbon saddle tunnel violin wagon yogurt zipper anchor bridge castle desert feather glacier"
).split()
QUESTION = "where is the lantern by the meadow with the copper bell"


def _content(i: int) -> str:
    words = [FILLER[i % len(FILLER)], FILLER[(i * 7 + 3) % len(FILLER)]]
    # 50 memories hold each of the three words; only the oldest memory holds all three
    if i % 6 == 0:
        words.append("lantern")
    if i % 6 == 1 or i == 0:
        words.append("meadow")
    if i % 6 == 2 or i == 0:
        words.append("copper")
    return "The " + " and the ".join(words) + " were there"


def _fill(layer: MemoryLayer, user: str, size: int = SIZE) -> list[str]:
    records = layer.add_many(
        [{"content": _content(i), "created_at": 1_600_000_000.0 + 60.0 * i} for i in range(size)], user_id=user
    )
    return [r.id for r in records]


def _reference(store: Store, scope: Scope, question: str, layer: MemoryLayer, limit: int) -> list[tuple[str, float]]:
    """Recall's lexical formula over a scan of the whole scope: the answer an unbounded index gives."""
    analysis = Query.of(question, scope.user_id, layer.entities).analysis
    assert not analysis.entities  # the question names nothing: its words alone count, once each
    words = {t for t in analysis.terms if t.startswith("t:")}  # in recall's order: the sums then agree to the bit
    weights = {t: 1.0 for t in [*words, *(t for t in analysis.terms if t.startswith("n:"))]}
    holders: dict[str, list[str]] = {t: [] for t in weights}
    records = [r for r in store.scan(scope) if r.terms]
    for record in records:
        for term in set(record.terms) & set(weights):
            holders[term].append(record.id)
    n = len(records)
    voting = {
        t: idf(len(holders[t]), n) * w for t, w in weights.items() if holders[t] and nominates(len(holders[t]), n)
    }
    return vote(voting, holders, voting.__getitem__, limit)


def test_recall_ranks_a_users_oldest_match_first_past_the_linkers_bound(make_layer, store: Store, user: str) -> None:
    """The one memory holding all three words is the oldest: none of its words' 20 newest postings lists it."""
    layer = make_layer(auto_link=False, linker=BOUND)
    ids = _fill(layer, user)
    scope = Scope(user)
    n, df, _ = layer.index.lookup(scope, ["t:lantern", "t:meadow", "t:copper"], 0)
    assert n == SIZE
    assert all(layer.linker.config.postings_limit < count <= max(50, 0.2 * n) for count in df.values())
    scores, _, _ = lexical_scores(layer, scope, QUESTION, RecallConfig(), 20)
    assert next(iter(scores)) == ids[0]
    assert list(scores.items()) == _reference(store, scope, QUESTION, layer, 20)
    ctx = layer.recall(QUESTION, user_id=user, links=0)
    assert ctx.memories[0].id == ids[0]


def test_exact_scores_follow_writes_and_deletes(make_layer, store: Store, user: str) -> None:
    """The cached lists (and their rows) move with every write and delete of the layer: still the scan's answer."""
    layer = make_layer(auto_link=False, linker=BOUND)
    ids = _fill(layer, user)
    scope = Scope(user)
    lexical_scores(layer, scope, QUESTION, RecallConfig(), 20)  # the three lists cached whole
    newer = layer.add("A copper lantern in the meadow, and another copper bell", user_id=user)
    layer.delete(ids[0], user_id=user)
    layer.add("The meadow lantern", user_id=user)
    scores, _, _ = lexical_scores(layer, scope, QUESTION, RecallConfig(), 20)
    assert ids[0] not in scores
    assert list(scores.items()) == _reference(store, scope, QUESTION, layer, 20)
    assert next(iter(scores)) == newer.id


@pytest.mark.parametrize("limit", [1, 3, 10, 50])
def test_top_k_equals_vote_to_the_bit(limit: int) -> None:
    """The numpy scorer and the linker's vote give the same ids, order and float scores, ties included."""
    postings = {
        "a": [f"m{i:03d}" for i in range(0, 300, 2)],
        "b": [f"m{i:03d}" for i in range(0, 300, 3)],
        "c": [f"m{i:03d}" for i in range(5, 60)],
        "d": [],
    }
    weights = {"a": 0.1, "b": 0.7, "c": 0.2, "d": 3.0}
    table = RowTable()
    got = top_k(table, [(table.rows(postings[t]), w) for t, w in weights.items()], limit)
    assert got == vote(weights, postings, weights.__getitem__, limit)


@pytest.mark.parametrize("limit", [1, 4, 10, 250])
def test_top_k_settles_many_ties_at_the_cut_by_id_as_vote_does(limit: int) -> None:
    """Hundreds of memories tied at the cut (one common word), their rows in another order than their ids: the
    places left go to the smallest ids, as in ``vote``."""
    import hashlib

    common = [hashlib.sha1(str(i).encode()).hexdigest() for i in range(300)]  # row order is not id order
    postings = {"common": common, "rare": common[7:10] + ["zz-only-rare"], "other": common[100:103]}
    weights = {"common": 0.5, "rare": 2.0, "other": 0.5}
    table = RowTable()
    got = top_k(table, [(table.rows(postings[t]), w) for t, w in weights.items()], limit)
    assert got == vote(weights, postings, weights.__getitem__, limit)


@pytest.mark.parametrize("limit", [1, 5, 40])
def test_top_k_in_a_large_table_settles_ties_by_id_as_vote_does(limit: int) -> None:
    """A table far larger than the question's postings (their distinct rows alone are counted), ties at the cut
    among ids sharing their first eight bytes, ids of other lengths and non-ASCII ones (each id's numeric key
    only leaves out rows that are surely larger), and a table grown between two questions (its keys follow)."""
    table = RowTable()
    table.rows([f"other-{i}" for i in range(5_000)])  # rows no term of the question holds
    tied = [f"memory-{i:04d}" for i in range(150, 0, -1)] + ["memory", "memory-", "memorz", "mémoire", "m", "memory\0"]
    postings = {"common": tied, "rare": tied[3:6] + ["rare-only"], "other": tied[100:103] + ["other-17"]}
    weights = {"common": 0.5, "rare": 2.0, "other": 0.5}
    got = top_k(table, [(table.rows(postings[t]), w) for t, w in weights.items()], limit)
    assert got == vote(weights, postings, weights.__getitem__, limit)
    postings["common"] = tied + ["memory-0000", "memory-00000", "a-new-id"]  # rows added after the keys were made
    got = top_k(table, [(table.rows(postings[t]), w) for t, w in weights.items()], limit)
    assert got == vote(weights, postings, weights.__getitem__, limit)


def test_a_list_dropped_between_lookup_and_scoring_falls_back_to_counting(store: Store, make_layer, user: str) -> None:
    """exact_top says None rather than score from a list it does not hold whole."""
    layer = make_layer(auto_link=False, linker=BOUND)
    _fill(layer, user, 40)
    cache = IndexCache(layer.store)
    assert cache.exact_top(Scope(user), {"t:lantern": 1.0}, 5) is None  # nothing cached yet
    n, df, postings = cache.lookup_all(Scope(user), ["t:lantern"], lambda t, count, size: True)
    assert len(postings["t:lantern"]) == df["t:lantern"] == 7
    top = cache.exact_top(Scope(user), {"t:lantern": 1.0}, 5)
    assert top == vote({"t:lantern": 1.0}, postings, lambda t: 1.0, 5)


def test_lists_made_whole_without_their_ids_handed_back(store: Store, make_layer, user: str) -> None:
    """``whole_ids=False`` (recall's lexical scoring): each wanted list is cached whole, so exact_top scores it, but
    only its ``first`` newest ids come back; the scores are those of counting over the whole lists."""
    layer = make_layer(auto_link=False, linker=BOUND)
    _fill(layer, user, 40)
    scope = Scope(user)
    cache = IndexCache(layer.store)
    terms = ["t:lantern", "t:meadow"]
    n, df, firsts = cache.lookup_all(scope, terms, lambda t, count, size: True, 3, whole_ids=False)
    assert [len(firsts[t]) for t in terms] == [3, 3]
    assert all(df[t] > 3 for t in terms)
    weights = {"t:lantern": 1.0, "t:meadow": 0.5}
    top = cache.exact_top(scope, weights, 5)
    assert top is not None, "the lists were cached whole"
    _, again, whole = IndexCache(layer.store).lookup_all(scope, terms, lambda t, count, size: True, 3)
    assert again == df
    assert [len(whole[t]) for t in terms] == [df[t] for t in terms]
    assert [firsts[t] for t in terms] == [whole[t][:3] for t in terms], "the newest first, as a whole list begins"
    assert top == vote(weights, whole, weights.__getitem__, 5)


def test_holding_tells_from_whole_lists_which_ids_hold_a_term(store: Store, make_layer, user: str) -> None:
    """``holding`` (recall's session mates read only the members holding a question's word): the ids that hold one
    of the terms, from the lists cached whole; None while a list is not cached whole."""
    layer = make_layer(auto_link=False, linker=BOUND)
    ids = _fill(layer, user, 40)
    scope = Scope(user)
    cache = IndexCache(layer.store)
    terms = ["t:lantern", "t:meadow"]
    assert cache.holding(scope, ids, terms) is None  # nothing cached yet
    cache.lookup(scope, terms, 3)
    assert cache.holding(scope, ids, terms) is None  # only the 3 newest ids of each list
    _, df, whole = cache.lookup_all(scope, terms, lambda t, count, size: True)
    held = cache.holding(scope, ids, terms)
    assert held == {i for i in ids if i in set(whole["t:lantern"]) | set(whole["t:meadow"])}
    assert len(held) == len(set(whole["t:lantern"]) | set(whole["t:meadow"])) > 0
    assert cache.holding(scope, ids, ["t:lantern"]) == set(whole["t:lantern"])
    assert cache.holding(scope, ids[:5] + ["no-such-id"], terms) == held & set(ids[:5])
    assert cache.holding(scope, ids, []) == set()
