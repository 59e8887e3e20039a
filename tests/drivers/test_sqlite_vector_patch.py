"""sqlite://'s knn cache after another connection's writes reads the rows its change log names, not the scope.

Two store objects on one file stand for two processes (each keeps its own cache and sees the other's
writes only through the file). After the other one adds, rewrites and strips vectors, the first one's
knn must answer what a store opened afresh answers, having patched its cache from the changed rows.
"""

from __future__ import annotations

import numpy as np

import kioko
from kioko_backends.sqlite.vectors import ScopeVectors
from kioko_core.store import Delete, Scope, Upsert

SCOPE = Scope("kumar", None)


def _same(a: list, b: list) -> bool:
    """The same neighbours in the same order, scores equal to float32 rounding (a row normalised alone and
    one normalised in a batch may differ in the last bit, as after any catch-up)."""
    return [n.id for n in a] == [n.id for n in b] and np.allclose([n.score for n in a], [n.score for n in b], atol=1e-6)


def _vector(rng: np.random.Generator, dim: int) -> np.ndarray:
    return rng.standard_normal(dim).astype(np.float32)


def test_knn_after_another_connection_wrote_patches_from_the_change_log(tmp_path, monkeypatch) -> None:
    url = f"sqlite:///{tmp_path / 'patch.db'}"
    rng = np.random.default_rng(3)
    with kioko.open_store(url) as mine, kioko.open_store(url) as other:
        dim = mine.dim
        records = [
            kioko.Record(
                id=f"r{i:02d}", user_id="kumar", kind="semantic", content=f"note {i}", embedding=_vector(rng, dim)
            )
            for i in range(60)
        ]
        mine.update_many([Upsert(record=r) for r in records])
        queries = [_vector(rng, dim) for _ in range(5)]
        mine.knn(SCOPE, queries[0], 10)  # the cache holds the scope now
        current = {r.id: r for r in other.get(SCOPE, ["r03", "r04"]) if r is not None}
        other.update_many(
            [
                Upsert(record=r.model_copy(update={"id": f"n{i}", "embedding": _vector(rng, dim)}))
                for i, r in enumerate(records[:3])
            ]
            + [
                Upsert(
                    record=current["r03"].model_copy(update={"embedding": queries[1]}),
                    expected_version=current["r03"].version,
                )
            ]
            + [
                Upsert(
                    record=current["r04"].model_copy(update={"embedding": None}),
                    expected_version=current["r04"].version,
                )
            ]
        )
        patched: list[int] = []
        original = ScopeVectors.patch

        def counting(self, generation, rows):
            patched.append(len(rows))
            return original(self, generation, rows)

        monkeypatch.setattr(ScopeVectors, "patch", counting)
        with kioko.open_store(url) as fresh:
            for query in queries:
                assert _same(mine.knn(SCOPE, query, 10), fresh.knn(SCOPE, query, 10))
            assert patched == [5]  # the five rows the other wrote, once, then the cache is current
            assert mine.knn(SCOPE, queries[1], 1)[0].id == "r03"
            assert "r04" not in {n.id for n in mine.knn(SCOPE, queries[2], 70)}
            # a removal is not in the log's answer: every row is compared again, and the answer still holds
            other.update_many([Delete(id="r05", scope=SCOPE)])
            for query in queries:
                assert _same(mine.knn(SCOPE, query, 10), fresh.knn(SCOPE, query, 10))
            assert patched == [5]
