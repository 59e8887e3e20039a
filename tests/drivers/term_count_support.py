"""What the df-table tests of every SQL store write: records with random term sets in two scopes, then
rewrites, a move in time and deletes, so the counts are checked after every kind of posting change."""

from __future__ import annotations

import numpy as np

from contract_tests.support import make_record
from kioko_core.store import Delete, Record, Scope, Store, Upsert

TERMS = [f"t:{word}" for word in ("pump", "valve", "boiler", "fan", "belt", "seal")]


def write_many(store: Store, scopes: list[Scope], seed: int) -> list[Record]:
    """Records with random term sets in two scopes, then rewrites (terms changed or kept) and deletes."""
    rng = np.random.default_rng(seed)

    def terms() -> list[str]:
        return sorted(rng.choice(TERMS, size=int(rng.integers(0, 5)), replace=False).tolist())

    written = store.update_many(
        [Upsert(record=make_record(scopes[j % 2], terms=terms(), created_at=float(j))) for j in range(60)]
    )
    records = [r for r in written if r is not None]
    changed = [
        r.model_copy(update={"terms": terms() if j % 2 else r.terms, "content": f"rewritten {j}"})
        for j, r in enumerate(records[:30])
    ]
    store.update_many([Upsert(record=r, expected_version=r.version) for r in changed])
    moved = records[30].model_copy(update={"created_at": 999.0})  # a new time moves every posting
    store.update_many([Upsert(record=moved, expected_version=moved.version)])
    store.update_many([Delete(id=r.id, scope=r.scope) for r in records[40:50]])
    return records
