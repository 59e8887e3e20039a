"""The forget drill (issue 23): plant, forget, then look for what was forgotten in every byte Kioko keeps.

Distinctive texts (made-up words and identifiers, new every run) are planted through the ordinary entry
points: ``add``, managed turns (``record_turn``: the router's memories, the session log and the rolling
summary), a hand link whose reason names them, entity triples the memories asserted, a pin, recalls
(heat and the served note), triples no memory asserted, an old episode a month summary folded and a theme insight quotes. Then one
memory goes by ``delete`` (and the old episode), one by a router's ``memory.delete``,
one by its manager's ``delete``, and a second user by ``forget_user``. Afterwards none of their words,
identifiers and memory ids is found:

- in the store: SQLite's database file and its -wal as raw bytes (``secure_delete`` and the checkpoint),
  every row of every table of the PostgreSQL database (live rows; what VACUUM does is in
  docs/privacy.md), every file of the Qdrant local directory;
- in every string the layer holds in this process (index caches, the entity graph's cache, notes);
- in the export of both users;
- in a second process that recalled them before (SQLite): its recall and its caches.

A memory that was not forgotten is still there afterwards, so the drill cannot pass by wiping everything.
"""

from __future__ import annotations

import random
import string
import sys
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

import kioko
from kioko.api.exchange import export_lines
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.store import Scope
from kioko_intelligence import consolidation, reflection
from kioko_intelligence.executor import OpExecutor
from kioko_intelligence.ops import MemoryOp

sys.path.insert(0, str(Path(__file__).parent))
from forget_drill_support import SecondProcess  # noqa: E402
from forget_support import file_bytes, held_strings, hits  # noqa: E402

DRILL_STORES = ("memory", "sqlite", "postgresql", "qdrant-local")


def _word(stem: str, rng: random.Random) -> str:
    return stem + "".join(rng.choice(string.ascii_lowercase) for _ in range(5))


@pytest.fixture(params=DRILL_STORES)
def drill_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "memory":
        return "memory://"
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'drill.db'}"
    if request.param == "qdrant-local":
        return f"qdrant+local:///{tmp_path / 'qdrant'}"
    return str(request.getfixturevalue("postgresql_store_url"))


class Plant:
    """The planted texts of one run: ``forgotten`` must vanish, ``kept`` must stay."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        self.user, self.gone_user = f"drill-{seed}", f"drill-gone-{seed}"
        w = {
            name: _word(name, rng) for name in ("quen", "marr", "tovr", "elli", "brav", "sorn", "pell", "vask", "kord")
        }
        self.words = w
        self.codes = [f"ZX-{rng.randint(1000, 9999)}-Q{rng.choice('QRSTUV')}" for _ in range(3)]
        self.ids: list[str] = []
        self.kept = "The canteen serves curry on Fridays."

    def needles(self) -> list[str]:
        # a code's first half too: the router notes "ZX-1234" of "ZX-1234-QQ" in the session's scratchpad
        return [
            *self.words.values(),
            *self.codes,
            *(c.rsplit("-", 1)[0] for c in self.codes),
            *self.ids,
            self.gone_user,
        ]


def plant(memory: MemoryLayer, p: Plant) -> dict[str, str]:
    """Everything the drill forgets afterwards; returns the memory ids by role."""
    w, u, g = p.words, p.user, p.gone_user
    memory.add(p.kept, user_id=u)
    # deleted with delete(): a fact, linked by hand, with triples it asserted, pinned, recalled
    fact = memory.add(f"{w['quen']}'s locker code is {p.codes[0]} at the {w['marr']} depot", user_id=u, session_id="s1")
    # deleted by the router: an episode of a managed turn, folded into the session's summary
    turn = memory.record_turn(
        f"I adopted a greyhound named {w['tovr']} from the {w['elli']} shelter", user_id=u, session_id="s1"
    )
    episode = next(op.memory_id for op in turn.ops if op.memory_id and not op.op.startswith("working."))
    memory.end_session("s1", user_id=u)
    # deleted by its manager: a turn still waiting in the session's log
    later = memory.record_turn(
        f"My colleague {w['brav']} scans badge {p.codes[1]} every morning at the lab", user_id=u, session_id="s1"
    )
    # the router also notes the badge's number in the session's scratchpad: forgetting the memory takes it too
    waiting = next(op.memory_id for op in later.ops if op.memory_id and not op.op.startswith("working."))
    memory.graph.link(fact.id, episode, why=f"{w['quen']} walks {w['tovr']}", user_id=u)
    memory.graph.add(w["quen"], "works at", f"{w['marr']} depot", user_id=u, source=fact.id)
    memory.graph.add(w["tovr"], "came from", f"{w['elli']} shelter", user_id=u, source=episode)
    # facts no memory asserted (the router's relations, manual ones): deleted one by one, or by entity
    routed = memory.graph.add(w["quen"], "manages", f"{w['marr']} annex", user_id=u, source="manage")
    memory.graph.add(w["brav"], "works with", w["quen"], user_id=u, source="manual")
    memory.pin(fact.id, user_id=u)
    # deleted with delete(): an old episode that a month summary folded and a theme insight quotes
    then = 1_700_000_000.0
    for n, text in enumerate(["The Zerbino pump leaked on line 3", "Line 3's Zerbino pump stopped again"]):
        memory.add(text, user_id=u, memory_type="episodic", created_at=then + n)
    old = memory.add(
        f"The Zerbino pump failed while {w['kord']} watched", user_id=u, memory_type="episodic", created_at=then + 9
    )
    scope = Scope(u, None)
    consolidation.fold_episodes(memory, scope, then + 86400)
    reflection.themes(memory, scope)
    for query in (w["quen"], w["tovr"], w["brav"]):
        memory.recall(query, user_id=u, session_id="s1")
    # forgotten with forget_user: another user's memories, turns, summary, triples and pin
    other = memory.add(f"{w['sorn']} keeps the spare key {p.codes[2]} under the {w['pell']} planter", user_id=g)
    memory.record_turn(
        f"I booked a trip to {w['vask']} with my friend {w['sorn']} for June", user_id=g, session_id="t1"
    )
    memory.end_session("t1", user_id=g)
    memory.record_turn(f"{w['pell']} is the name of my sailing boat", user_id=g, session_id="t1")
    memory.graph.add(w["sorn"], "lives in", w["vask"], user_id=g, source=other.id)
    memory.pin(other.id, user_id=g)
    memory.recall(w["sorn"], user_id=g, session_id="t1")
    p.ids = [fact.id, episode, waiting, old.id, other.id, *(r.id for r in memory.memories(user_id=g))]
    return {"fact": fact.id, "episode": episode, "waiting": waiting, "old": old.id, "routed": routed.id}


def forget(memory: MemoryLayer, p: Plant, planted: dict[str, str]) -> None:
    assert memory.delete(planted["fact"], user_id=p.user)
    assert memory.delete(planted["old"], user_id=p.user)
    assert memory.graph.delete_triple(planted["routed"], user_id=p.user) is not None
    assert memory.graph.forget_entity(p.words["brav"], user_id=p.user) == 1
    applied = OpExecutor(memory).apply([MemoryOp("memory.delete", target=planted["episode"])], user_id=p.user)
    assert applied[0].status == "applied", applied[0]
    managers = {"factual": memory.facts, "episodic": memory.episodes, "semantic": memory.knowledge}
    assert managers[memory.get(planted["waiting"], user_id=p.user).kind].delete(planted["waiting"], user_id=p.user)
    assert memory.forget_user(user_id=p.gone_user) > 0


def store_bytes(url: str, tmp_path: Path) -> dict[str, str | bytes]:
    """Every byte the store keeps, as the drill can read it while the store is open."""
    if url.startswith("sqlite:"):
        return dict(file_bytes(tmp_path, "drill.db"))
    if url.startswith("qdrant+local:"):
        return dict(file_bytes(tmp_path / "qdrant"))
    if url.startswith("postgresql:"):
        rows: dict[str, str | bytes] = {}
        with psycopg.connect(url) as connection:  # the service URL: psycopg reads it as it is
            tables = connection.execute(
                "SELECT table_schema, table_name FROM information_schema.tables "
                "WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')"
            ).fetchall()
            for schema, table in tables:
                dump = connection.execute(
                    sql.SQL("SELECT coalesce(string_agg(t::text, chr(10)), '') FROM {} AS t").format(
                        sql.Identifier(schema, table)
                    )
                ).fetchone()
                rows[f"{schema}.{table}"] = dump[0] if dump else ""
        return rows
    return {}


def test_forgotten_memories_leave_no_byte_behind(drill_url: str, tmp_path: Path) -> None:
    p = Plant(random.SystemRandom().randrange(10**9))
    memory = kioko.connect(drill_url, auto_link=True, intelligence=True)
    second = SecondProcess(drill_url) if drill_url.startswith("sqlite:") else None
    try:
        planted = plant(memory, p)
        before = store_bytes(drill_url, tmp_path)
        if before:  # the grep finds what is there: the drill cannot pass by looking in the wrong place
            assert hits([p.words["quen"], p.codes[0]], before), "the planted text is not in the store's bytes"
        # the derived texts quote the old episode before: the drill cannot pass by planting none
        derived = [r.content for r in memory.memories(user_id=p.user) if r.kind in ("summary", "insight")]
        assert hits([p.words["kord"]], {"derived": "\n".join(derived)}), derived
        if second is not None:
            assert any(p.words["quen"] in text for text in second.ask(f"recall {p.user}|{p.words['quen']} locker"))
            assert second.ask(f"relations {p.user}|{p.words['quen']}")  # its graph cache holds the triples
        forget(memory, p, planted)

        needles = p.needles()
        found = hits(needles, store_bytes(drill_url, tmp_path))
        found += hits(needles, {"this process": "\n".join(held_strings(memory))})
        found += hits(needles, {"the export": "".join(export_lines(memory, p.user))})
        # the forgotten user's export names them (it was asked for them), and nothing else
        found += hits(
            [n for n in needles if n != p.gone_user], {"the export": "".join(export_lines(memory, p.gone_user))}
        )
        if second is not None:
            # its next read of the scope sees the generation moved and drops what it cached of it
            assert second.ask(f"recall {p.user}|canteen curry")[:1] == [p.kept]
            found += hits(needles, {"the second process's index cache": "\n".join(second.ask("held index"))})
            # its graph cache lets the forgotten triples go at its next read of the graph (of any graph, a
            # second on: tests/privacy/test_forget_traces.py)
            assert second.ask(f"relations {p.user}|canteen") == []
            found += hits(needles, {"the second process's graph cache": "\n".join(second.ask("held entities"))})
            for query in (f"{p.words['quen']} locker", p.words["tovr"], p.words["brav"]):
                found += hits(
                    needles, {"the second process's recall": "\n".join(second.ask(f"recall {p.user}|{query}"))}
                )
        assert found == [], "forgotten, yet still there:\n" + "\n".join(found)
        # what was not forgotten is still there
        assert [m.record.content for m in memory.recall("canteen curry", user_id=p.user, plan=False).memories][:1] == [
            p.kept
        ]
    finally:
        if second is not None:
            second.close()
        memory.forget_user(user_id=p.user)
        memory.close()
