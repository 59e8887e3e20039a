"""Helpers the contract tests share: fresh scopes and ids, record factories, the numpy knn reference.

Every test writes into scopes and ids it invents (uuid-based), so the store under test never has to be
empty: one PostgreSQL database or one Qdrant collection can serve a whole run, and a driver author can
point ``python -m contract_tests`` at a store that already holds data.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from kioko_core.store import Filter, Neighbor, Record, Scope

DIM = 8
"""Vector length every contract test opens its store with: small, so knn references are cheap."""

SCORE_TOLERANCE = 1e-4
"""How far a store's cosine score may be from numpy's float64 one (float32 storage, ANN rounding)."""

BASE_TIME = 1_700_000_000.0
"""A fixed ``created_at`` origin, so tests control order and ties instead of the clock."""


def unique(prefix: str) -> str:
    """A short name no other test run will ever use."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def new_scope(agent_id: str | None = None) -> Scope:
    """A scope of a user invented for one test (agent None unless given)."""
    return Scope(unique("user"), agent_id)


def vectors(count: int, seed: int, dim: int = DIM) -> np.ndarray:
    """``count`` random float32 vectors of ``dim`` components; never all zeros, reproducible by seed."""
    rng = np.random.default_rng(seed)
    matrix = rng.normal(size=(count, dim)).astype(np.float32)
    matrix[np.all(matrix == 0, axis=1), 0] = 1.0
    return matrix


def make_record(
    scope: Scope,
    record_id: str | None = None,
    *,
    kind: str = "note",
    content: str = "",
    terms: Sequence[str] = (),
    embedding: Sequence[float] | np.ndarray | None = None,
    metadata: Mapping[str, Any] | None = None,
    session_id: str | None = None,
    created_at: float = BASE_TIME,
    updated_at: float | None = None,
    version: int = 0,
) -> Record:
    """A record of ``scope``; ``record_id`` defaults to a fresh unique id."""
    return Record(
        id=record_id or unique("rec"),
        user_id=scope.user_id,
        agent_id=scope.agent_id,
        kind=kind,
        content=content,
        metadata=dict(metadata or {}),
        terms=list(terms),
        embedding=embedding,
        session_id=session_id,
        created_at=created_at,
        updated_at=created_at if updated_at is None else updated_at,
        version=version,
    )


def as_stored(record: Record, version: int) -> Record:
    """What a store must hand back for ``record`` once it has stamped ``version`` on it."""
    return record.model_copy(update={"version": version}, deep=True)


def cosine64(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity computed in float64: the reference a store's score is compared with."""
    a64, b64 = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.dot(a64, b64) / (np.linalg.norm(a64) * np.linalg.norm(b64)))


def exact_knn(records: Iterable[Record], query: np.ndarray, k: int, filter: Filter | None = None) -> list[Neighbor]:
    """The true top ``k`` of ``records`` (one scope's) for ``query``: best first, ties by id."""
    pool = [r for r in records if r.embedding is not None and (filter is None or filter.matches(r))]
    scored = sorted(((cosine64(r.embedding, query), r.id) for r in pool), key=lambda pair: (-pair[0], pair[1]))
    return [Neighbor(record_id, score) for score, record_id in scored[:k]]


def check_knn(
    result: Sequence[Neighbor],
    candidates: Iterable[Record],
    query: np.ndarray,
    k: int,
    filter: Filter | None = None,
    *,
    approximate: bool = False,
) -> float:
    """Assert ``result`` is a correct knn answer over ``candidates``; return its recall against the truth.

    Checked always: the count is ``min(k, matching records)``, ids are unique and all among the matching
    records, each score is that record's cosine (within :data:`SCORE_TOLERANCE`), and scores never rise.
    For an exact store the returned scores must also equal the true top-k scores position by position,
    which accepts any order among tied records but no wrong member. For an approximate store that last
    check is replaced by the recall this returns, which the caller bounds over several queries.
    """
    pool = {r.id: r for r in candidates if r.embedding is not None and (filter is None or filter.matches(r))}
    truth = exact_knn(pool.values(), query, k)
    assert len(result) == len(truth), (
        f"knn(k={k}) returned {len(result)} neighbours, but {len(pool)} records match, so {len(truth)} were due"
    )
    ids = [n.id for n in result]
    assert len(set(ids)) == len(ids), f"knn returned an id twice: {ids}"
    strangers = [i for i in ids if i not in pool]
    assert not strangers, f"knn returned ids that are not matching records of the scope: {strangers}"
    for neighbor in result:
        true_score = cosine64(pool[neighbor.id].embedding, query)
        assert math.isfinite(neighbor.score) and abs(neighbor.score - true_score) <= SCORE_TOLERANCE, (
            f"knn scored {neighbor.id!r} {neighbor.score}, but its cosine similarity is {true_score}"
        )
    for before, after in zip(result, result[1:]):
        assert after.score <= before.score + SCORE_TOLERANCE, f"knn scores rise: {before} then {after}"
    if not approximate:
        for position, (got, due) in enumerate(zip(result, truth)):
            assert abs(cosine64(pool[got.id].embedding, query) - due.score) <= SCORE_TOLERANCE, (
                f"knn position {position} holds {got.id!r} (cosine {got.score:.6f}); the exact answer there "
                f"is {due.id!r} (cosine {due.score:.6f}). Full answer {ids}, exact {[n.id for n in truth]}"
            )
    if not truth:
        return 1.0
    # ties at the k-th score make several answers correct: count a member as found if its score is due
    cutoff = truth[-1].score - SCORE_TOLERANCE
    due_ids = {n.id for n in truth}
    found = sum(1 for i in ids if i in due_ids or cosine64(pool[i].embedding, query) >= cutoff)
    return found / len(truth)


def check_scan_order(ids: Sequence[str]) -> None:
    """Assert ``ids`` come in id order (code point order, as Python sorts str) with no repeats."""
    assert len(set(ids)) == len(ids), f"scan yielded an id twice: {[i for i in ids if ids.count(i) > 1]}"
    assert list(ids) == sorted(ids), f"scan is not in id (code point) order: {list(ids)}"
