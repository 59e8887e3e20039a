"""Export and import: a user's memories move SQLite -> PostgreSQL -> Qdrant local -> memory, record by record."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import httpx
import pytest
from service_support import live_service

import kioko
from kioko.api.exchange import export_lines, export_scopes, import_lines, same
from kioko.cli import main, run_quick_start
from kioko_core.store import InvalidRecordError


def seed(layer, user: str) -> None:
    """The quick start, plus history: an updated fact, a closed triple, an agent's memory, a manual link."""
    ids = run_quick_start(layer, user, out=open("/dev/null", "w"))
    layer.facts.update(ids["plc"], user_id=user, text="The plant's PLC network moved to 10.30.0.0/16.")
    layer.graph.add("Kumar", "reports_to", "Krutika", user_id=user)
    layer.graph.add("Kumar", "reports_to", "Anand", user_id=user, single_valued=True)
    layer.graph.link(ids["tea"], ids["goal"], "related_to", 0.5, "by hand", user_id=user)
    layer.add("The support bot answered in German.", user_id=user, agent_id="bot", memory_type="episodic")


def records(layer, user: str) -> dict[str, object]:
    return {(s.agent_id or "", r.id): r for s in export_scopes(user, ["bot"]) for r in layer.store.scan(s)}


def assert_same(first: dict, second: dict) -> None:
    assert sorted(first) == sorted(second)
    for key, record in first.items():
        assert same(record, second[key]), key


def test_round_trip_across_the_four_stores_is_lossless(tmp_path: Path, postgresql_store_url: str) -> None:
    user = "exchange-" + uuid.uuid4().hex[:8]
    urls = [
        f"sqlite:///{tmp_path / 'from.db'}",
        postgresql_store_url,
        f"qdrant+local:///{tmp_path / 'qdrant'}",
        "memory://",
    ]
    layers = [kioko.connect(url, auto_link=True) for url in urls]
    try:
        seed(layers[0], user)
        original = records(layers[0], user)
        assert len(original) > 12
        assert any(k[0] == "@graph" for k in original)
        for source, target in zip(layers, layers[1:]):
            dump = list(export_lines(source, user, ["bot"]))
            assert import_lines(target, dump) == {"records": len(original), "written": len(original), "unchanged": 0}
            assert_same(original, records(target, user))
            assert import_lines(target, dump)["written"] == 0  # idempotent
        last = layers[-1]
        goal = next(r for (s, _), r in original.items() if r.kind == "goal")
        assert [k.line() for k in last.graph.links(goal.id, user_id=user)] == [
            k.line() for k in layers[0].graph.links(goal.id, user_id=user)
        ]
        assert last.graph.relations("Kumar", user_id=user, include_invalid=True) == layers[0].graph.relations(
            "Kumar", user_id=user, include_invalid=True
        )
        assert (
            last.recall("line 3 is faulting with E-217 again", user_id=user).text
            == layers[0].recall("line 3 is faulting with E-217 again", user_id=user).text
        )
    finally:
        layers[1].forget_user(user_id=user)
        layers[1].forget_user(user_id=user, agent_id="bot")
        for layer in layers:
            layer.close()


def test_a_cut_off_or_foreign_import_writes_nothing() -> None:
    source, target = kioko.connect("memory://", auto_link=True), kioko.connect("memory://")
    seed(source, "u")
    dump = list(export_lines(source, "u"))
    secret = json.loads(dump[1])
    secret["record"]["content"] = "the deploy key is sk-abcdefghijklmnopqrstuvwx12345678"
    for broken in (
        dump[:-1],
        dump[:3],
        ['{"format": "other"}\n'] + dump[1:],
        dump[:2] + ["not json\n"] + dump[2:],
        [dump[0], json.dumps(secret) + "\n"] + dump[2:],
    ):
        with pytest.raises(InvalidRecordError):
            import_lines(target, broken)
        assert list(target.memories(user_id="u")) == []


def test_export_and_import_over_http_and_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "cli.db"
    layer = kioko.connect(f"sqlite:///{db}", auto_link=True)
    seed(layer, "kumar")
    original = records(layer, "kumar")
    layer.close()
    assert main(["export", "--user", "kumar", "--agent", "bot", "--store", f"sqlite:///{db}"]) == 0
    dump = tmp_path / "dump.jsonl"
    dump.write_text(capsys.readouterr().out)
    assert dump.read_text().count("\n") == len(original) + 2

    with live_service("memory://") as (server, served):
        assert main(["import", str(dump), "--store", server.url]) == 0
        assert f"{len(original)} records: {len(original)} written" in capsys.readouterr().err
        assert_same(original, records(served, "kumar"))
        with httpx.Client(base_url=server.url) as api:
            again = api.post("/v1/import", content=dump.read_bytes(), headers={"content-type": "application/x-ndjson"})
            assert again.json() == {"records": len(original), "written": 0, "unchanged": len(original)}
            streamed = api.get("/v1/export", params={"user_id": "kumar", "agent_id": "bot"}).text.splitlines()
            assert len(streamed) == len(original) + 2
            bad = api.post("/v1/import", content=b"garbage", headers={"content-type": "application/x-ndjson"})
            assert bad.status_code == 422
        with kioko.connect(server.url) as remote:
            assert len(list(remote.export_lines("kumar", ["bot"]))) == len(original) + 2


def test_the_turns_of_open_sessions_move_with_the_user(tmp_path: Path) -> None:
    """Turns not yet folded into a session summary live in (user, "@sessions"): an export carries them."""
    user = "sessions-" + uuid.uuid4().hex[:8]
    source = kioko.intelligent(f"sqlite:///{tmp_path / 'from.db'}")
    target = kioko.intelligent("memory://")
    try:
        for turn in ("The conveyor on line 3 jammed again.", "I cleared it and restarted the line."):
            source.record_turn(turn, "Noted.", user_id=user, session_id="s1")
        logged = {r.id: r for r in source.store.scan(export_scopes(user)[3])}
        assert export_scopes(user)[3].agent_id == "@sessions"
        assert logged
        dump = list(export_lines(source, user))
        assert json.loads(dump[0])["agent_ids"] == []  # Kioko's own scopes are not agents of the user
        import_lines(target, dump)
        moved = {r.id: r for r in target.store.scan(export_scopes(user)[3])}
        assert sorted(moved) == sorted(logged)
        assert all(same(logged[i], moved[i]) for i in logged)
    finally:
        source.close()
        target.close()
