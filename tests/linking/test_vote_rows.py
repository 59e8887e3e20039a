"""The linker's vote summed over rows (issue 34): the same candidates as :func:`vote` over the same postings.

A linked write's candidates are the ids its terms' postings vote for. The vote walked up to 200 ids a term in
Python; :meth:`IndexCache.lookup_rows` hands each term's ids also as rows of the scope's row table, kept in step
by the writes the cache records, and the linker sums them in C (:func:`top_k`). These tests hold the two equal on
a real SQLite store through random writes: new records (lists cut at their limit and whole ones), a record's
terms changed, a delete (the row table starts afresh), and the memory being re-linked left out of its own vote.
"""

from __future__ import annotations

import random
from pathlib import Path

import kioko
from contract_tests.support import make_record
from kioko_core.linking.index import IndexCache, nominates
from kioko_core.linking.scoring import Stats, vote, vote_rows
from kioko_core.store import Delete, Record, Scope, Upsert

TERMS = [f"t:{word}" for word in ("pump", "valve", "seal", "line", "encoder", "cable", "drive", "guard", "belt")]
LIMIT = 7
"""Ids a term votes with: small, so most lists are cut at it within a few writes."""


def _rows_match(cache: IndexCache, scope: Scope, terms: list[str], limit: int) -> None:
    found = cache.lookup_rows(scope, terms, limit)
    assert (found.n, found.df, found.ids) == cache.lookup(scope, terms, limit)
    for term in terms:
        assert [found.table.ids[row] for row in found.rows[term].tolist()] == found.ids[term]


def _same_vote(cache: IndexCache, scope: Scope, terms: list[str], exclude: str, rng: random.Random) -> None:
    found = cache.lookup_rows(scope, terms, LIMIT)
    stats = Stats(n=found.n + 1, df=found.df)  # as the linker's: n once the write lands
    voting = rng.sample(terms, len(terms)) + rng.choices(terms, k=2)  # any order, and a term given twice votes twice
    limit = rng.choice([1, 3, 5, 40])
    expected = vote(
        voting,
        found.ids,
        stats.w,
        limit,
        nominates=lambda t: nominates(stats.df.get(t, 0), stats.n),
        exclude=exclude,
    )
    # every list through the rows (few=0: these lists are short enough that vote_rows would sum them as vote does)
    assert vote_rows(voting, found, stats, limit, exclude, few=0) == [i for i, _ in expected]
    assert vote_rows(voting, found, stats, limit, exclude) == [i for i, _ in expected]


def test_rows_follow_the_ids_and_the_vote_is_votes(tmp_path: Path) -> None:
    rng = random.Random(34)
    scope = Scope("rows", None)
    with kioko.open_store(f"sqlite:///{tmp_path / 'rows.db'}", dim=8) as store:
        cache = IndexCache(store)
        records: list[Record] = []
        for step in range(160):
            action = rng.random()
            if action < 0.75 or len(records) < 4:  # a new memory, recorded as a linked write records it
                terms = rng.sample(TERMS, rng.randint(1, 4))
                # ids chosen so that ties between equal votes are broken by id in every order
                record = make_record(scope, f"m{rng.randrange(10**6):06d}-{step}", terms=terms, created_at=step)
                [stored] = store.update_many([Upsert(record=record)])
                assert stored is not None
                records.append(stored)
                cache.record_write(scope, stored.id, [], stored.terms, others_changed=False)
            elif action < 0.93:  # one memory's terms changed (an update of its text)
                position = rng.randrange(len(records))
                current = records[position]
                change = current.model_copy(update={"terms": rng.sample(TERMS, 2)})
                [stored] = store.update_many([Upsert(record=change, expected_version=current.version)])
                assert stored is not None
                records[position] = stored
                cache.record_write(scope, stored.id, current.terms, stored.terms)
            else:  # a delete: the scope's row table starts afresh
                gone = records.pop(rng.randrange(len(records)))
                store.update_many([Delete(id=gone.id, scope=scope)])
                cache.record_write(scope, gone.id, gone.terms, [])
            asked = rng.sample(TERMS, rng.randint(1, len(TERMS)))
            _rows_match(cache, scope, asked, rng.choice([1, LIMIT, 50]))
            _same_vote(cache, scope, asked, rng.choice(records).id, rng)
        # the checks above compared something: lists were cut at the limit, and the vote had ties to break
        found = cache.lookup_rows(scope, TERMS, LIMIT)
        assert any(len(found.ids[t]) == LIMIT < found.df[t] for t in TERMS)


def test_a_scope_with_nothing_indexed_votes_for_nothing(tmp_path: Path) -> None:
    with kioko.open_store(f"sqlite:///{tmp_path / 'empty.db'}", dim=8) as store:
        cache = IndexCache(store)
        scope = Scope("nobody", None)
        cache.lookup(scope, TERMS, LIMIT)
        found = cache.lookup_rows(scope, TERMS, LIMIT)  # served without a store call: no ids, no rows
        assert found.n == 0
        assert vote_rows(TERMS, found, Stats(n=0, df=found.df), 5, "x") == []
