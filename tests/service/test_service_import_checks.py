"""An import is a write like any other (issue 35): a record the API would refuse is refused in an export file too,
over ``POST /v1/import`` and through the library and the CLI (one check, ``kioko.api.exchange.check_imported``);
nothing of a refused file is written, no webhook can be planted, and an export imports back as it was."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from service_support import live_service

import kioko
from kioko.api.exchange import FORMAT, FORMAT_VERSION
from kioko.api.webhook_records import WEBHOOK_AGENT
from kioko_core.store import Scope

U = "kumar"
SECRET = "s" * 24


def _file(*records: dict[str, Any]) -> list[str]:
    lines = [{"format": FORMAT, "version": FORMAT_VERSION, "user_id": U, "agent_ids": [], "exported_at": 0.0}]
    lines += [{"record": record} for record in records]
    lines.append({"end": {"records": len(records)}})
    return [json.dumps(line) + "\n" for line in lines]


def _memory(**fields: Any) -> dict[str, Any]:
    return {"id": "m1", "user_id": U, "agent_id": None, "kind": "factual", "content": "Line 3 faults.", **fields}


def _hook(url: str, hook_id: str = "wh1", **fields: Any) -> dict[str, Any]:
    meta = {"url": url, "events": None, "secret": SECRET}
    return {"id": hook_id, "user_id": U, "agent_id": WEBHOOK_AGENT, "kind": "webhook", "content": url, "metadata": meta}


REFUSED = {
    "a reserved agent": _memory(agent_id="@evil"),
    "a reserved user": _memory(user_id="@webhooks"),
    "an unknown kind": _memory(kind="instruction-override"),
    "a webhook kind in a memory scope": _memory(kind="webhook", metadata={"url": "https://example.com/h"}),
    "a memory in @webhooks": _memory(agent_id=WEBHOOK_AGENT),
    "a memory kind in @graph": _memory(agent_id="@graph"),
    "a memory kind in @sessions": _memory(agent_id="@sessions"),
    "content over the limit": _memory(content="x " * 200_000),
    "an endless time": _memory(created_at=float("inf")),
    "a secret in the id": _memory(id="ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    "a card number": _memory(content="pay with 4111 1111 1111 1111 exp 12/27"),
    "a webhook to loopback": _hook("http://127.0.0.1:9/hook"),
    "a webhook to cloud metadata": _hook("http://169.254.169.254/latest/meta-data"),
}


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Any, Any]]:
    # hooks.example.com stands for a public receiver: the guard resolves it to a public address (no lookup made)
    public = lambda host, port: ["93.184.216.34"] if host == "hooks.example.com" else ["127.0.0.1"]  # noqa: E731
    with live_service("memory://", webhooks_per_user=2, webhook_resolver=public) as (server, layer):
        yield server, layer


def _post(server: Any, lines: list[str]) -> httpx.Response:
    body = "".join(lines).encode("utf-8")
    return httpx.post(f"{server.url}/v1/import", content=body, headers={"content-type": "application/x-ndjson"})


def _nothing_written(layer: Any) -> bool:
    scopes = [Scope(U, None), Scope(U, WEBHOOK_AGENT), Scope(U, "@graph"), Scope(U, "@sessions"), Scope(U, "@evil")]
    scopes += [Scope("@webhooks", None)]
    return all(list(layer.store.scan(scope)) == [] for scope in scopes)


@pytest.mark.parametrize("name", list(REFUSED))
def test_the_service_refuses_what_the_api_would(served: tuple[Any, Any], name: str) -> None:
    server, layer = served
    good = _memory(id="m0", content="The spare cable is in cabinet B.")
    answer = _post(server, _file(good, REFUSED[name]))
    assert answer.status_code in (413, 422), (name, answer.status_code, answer.text)
    assert _nothing_written(layer), name  # the good record before it is not written either
    assert httpx.get(f"{server.url}/v1/webhooks", params={"user_id": U}).json() == []


# the library checks a registration's form, not where it points: it delivers nothing (the service guards targets)
@pytest.mark.parametrize("name", [name for name in REFUSED if not name.startswith("a webhook to")])
def test_the_library_refuses_the_same(name: str) -> None:
    with kioko.connect("memory://") as layer:
        with pytest.raises(kioko.KiokoError):
            layer.import_lines(_file(_memory(id="m0"), REFUSED[name]))
        assert _nothing_written(layer)


def test_the_cli_import_refuses_a_planted_kind(tmp_path: Any) -> None:
    export = tmp_path / "planted.jsonl"
    export.write_text("".join(_file(_memory(id="m0"), REFUSED["an unknown kind"])), encoding="utf-8")
    store = f"sqlite:///{tmp_path / 'k.db'}"
    done = subprocess.run(
        [sys.executable, "-m", "kioko", "import", str(export), "--store", store], capture_output=True, text=True
    )
    assert done.returncode != 0
    assert "unknown kind" in done.stderr
    with kioko.connect(store) as layer:
        assert list(layer.memories(user_id=U)) == []


def test_a_user_cannot_import_more_webhooks_than_the_cap(served: tuple[Any, Any]) -> None:
    server, layer = served
    hooks = [_hook("https://hooks.example.com/k", f"wh{n}") for n in range(3)]
    answer = _post(server, _file(*hooks))
    assert answer.status_code == 409
    assert "limit is 2" in answer.text
    assert list(layer.store.scan(Scope(U, WEBHOOK_AGENT))) == []


def test_an_export_imports_back_as_it_was() -> None:
    """Export a user, import into a fresh store, export again: the same bytes, but for the header's time and each
    record's version (the store's own counter, stamped by the store that writes it)."""
    with kioko.intelligent("memory://") as first, kioko.intelligent("memory://") as second:
        plant = first.add("Kumar runs line 3 at the Pune plant.", user_id=U, metadata={"shift": "night"})
        fault = first.add("Line 3 at the Pune plant faults with E-217.", user_id=U, memory_type="episodic")
        first.update(plant.id, user_id=U, metadata={"shift": "day"})
        first.graph.link(plant.id, fault.id, "related_to", user_id=U)
        first.entities.add("Kumar", "runs", "line 3", user_id=U)
        first.record_turn("I moved to the night shift", "noted", user_id=U, session_id="s1")
        first.goals.add("Keep line 3 running", user_id=U, agent_id="planner")
        exported = list(first.export_lines(U, ["planner"]))
        assert second.import_lines(exported)["written"] == len(exported) - 2
        again = list(second.export_lines(U, ["planner"]))

        def bytes_but_stamps(lines: list[str]) -> list[str]:
            kept = []
            for line in lines:
                data = json.loads(line)
                data.pop("exported_at", None)
                data.get("record", {}).pop("version", None)
                kept.append(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
            return kept

        assert bytes_but_stamps(again) == bytes_but_stamps(exported)
        kinds = {json.loads(line).get("record", {}).get("kind") for line in exported}
        assert {"factual", "episodic", "goal", "triple", "session_log"} <= kinds  # each scope an export carries
        assert second.import_lines(again) == {"records": len(again) - 2, "written": 0, "unchanged": len(again) - 2}


def test_a_user_cannot_register_more_webhooks_than_the_cap(served: tuple[Any, Any]) -> None:
    server, _ = served
    register = lambda user: httpx.post(  # noqa: E731
        f"{server.url}/v1/webhooks", json={"url": "https://hooks.example.com/k", "user_id": user}
    )
    assert [register("krutika").status_code for _ in range(2)] == [201, 201]
    refused = register("krutika")
    assert refused.status_code == 409
    assert refused.json()["error"]["type"] == "TooManyWebhooks"
    assert register("maya").status_code == 201  # the cap is per user
    assert len(httpx.get(f"{server.url}/v1/webhooks", params={"user_id": "krutika"}).json()) == 2
