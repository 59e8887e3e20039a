"""The quick start's data (spec section 1): a plant engineer's nine memories, which link as they are written.

``kioko demo`` runs it, the console opens on it, and the tests use it as a small realistic store.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, TextIO

DEMO_USER = "kumar-demo"
"""The user ``kioko demo`` writes for (and ``kioko ui`` opens with)."""

DEMO_FILE = "demo.db"
"""The demo's own SQLite file, beside the default store in the user's data directory."""


def demo_url() -> str:
    """Where ``kioko demo`` writes unless told otherwise: a store of its own, so that trying Kioko never puts
    a plant engineer's nine memories into the user's default store (nor ``$KIOKO_URL``'s)."""
    from platformdirs import user_data_dir

    folder = Path(user_data_dir("kioko", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / DEMO_FILE}"


def run_quick_start(memory: Any, user: str, out: TextIO = sys.stdout) -> dict[str, str]:
    """Section 1 of the spec: nine memories, the links they make, and a recall that follows them."""
    t0 = time.time() - 3600
    ids: dict[str, str] = {}
    ids["goal"] = memory.goals.add("Ship the Kioko memory layer by December 15", user_id=user, created_at=t0).id
    memory.graph.add("Kioko", "uses", "pgvector", user_id=user)
    ids["decision"] = memory.decisions.add(
        "We decided to use pgvector because we already run Postgres.", user_id=user, created_at=t0 + 60
    ).id
    ids["jam"] = memory.episodes.add(
        "The line 3 conveyor jammed twice this morning.", user_id=user, session_id="s1", created_at=t0 + 120
    ).id
    ids["fault"] = memory.episodes.add(
        "Line 3 keeps faulting with error E-217.", user_id=user, session_id="s1", created_at=t0 + 180
    ).id
    ids["fix"] = memory.episodes.add(
        "Found it: the encoder cable on line 3 was loose.", user_id=user, session_id="s1", created_at=t0 + 200
    ).id
    ids["procedure"] = memory.procedures.add(
        "Clear a conveyor jam on line 3",
        ["Press stop", "Open the guard", "Remove the jammed bottle", "Reset the drive"],
        user_id=user,
        created_at=t0 + 300,
    ).id
    ids["lesson"] = memory.strategies.add(
        "reset the drive before reopening the guard (1/1 worked). Lesson: always check the photo-eye alignment "
        "after a jam",
        context="clearing conveyor jams",
        user_id=user,
        created_at=t0 + 400,
    ).id
    ids["tea"] = memory.preferences.add("User likes green tea.", user_id=user, created_at=t0 + 500).id
    ids["plc"] = memory.facts.add(
        "The plant's PLC network uses the 10.20.0.0/16 subnet.", user_id=user, created_at=t0 + 600
    ).id

    print("Links made at write time:", file=out)
    seen: set[tuple[str, str]] = set()
    for memory_id in ids.values():
        for found in memory.graph.links(memory_id, user_id=user):
            if (found.source, found.target) not in seen:
                seen.add((found.source, found.target))
                print(f"- {found.line()}\n    why: {found.why} | weight {found.weight:.3f} | by {found.by}", file=out)
    question = "line 3 is faulting with E-217 again"
    print(f"\nrecall({question!r}):\n", file=out)
    print(memory.recall(question, user_id=user).text, file=out)
    return ids
