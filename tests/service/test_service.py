"""The REST API over HTTP on a live server: routes, typed errors and statuses, limits, health, OpenAPI."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from ports import free_port
from service_support import live_service

U = "kumar"


@pytest.fixture(params=["memory", "sqlite"])
def api(request: pytest.FixtureRequest, tmp_path: Path):
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'service.db'}"
    with live_service(url) as (server, layer):
        with httpx.Client(base_url=server.url, timeout=30) as client:
            yield client


def add(api: httpx.Client, content: str, **fields) -> dict:
    response = api.post("/v1/memories", json={"content": content, "user_id": U, **fields})
    assert response.status_code == 201, response.text
    return response.json()


def test_memory_crud_and_cursor_pages(api: httpx.Client) -> None:
    made = [add(api, f"Note {i} about the conveyor on line {i}.", session_id="s1") for i in range(5)]
    got = api.get(f"/v1/memories/{made[0]['id']}", params={"user_id": U}).json()
    assert got["content"] == "Note 0 about the conveyor on line 0."
    assert got["session_id"] == "s1"

    changed = api.patch(
        f"/v1/memories/{made[0]['id']}",
        json={"user_id": U, "content": "Note zero, rewritten.", "metadata": {"checked": True}},
    )
    assert changed.status_code == 200
    assert changed.json()["content"] == "Note zero, rewritten."
    assert changed.json()["metadata"]["checked"] is True
    assert changed.json()["version"] > got["version"]

    seen, cursor, pages = [], None, 0
    while True:
        params = {"user_id": U, "limit": 2, **({"cursor": cursor} if cursor else {})}
        page = api.get("/v1/memories", params=params).json()
        seen += [item["id"] for item in page["items"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert pages == 3
    assert seen == sorted(m["id"] for m in made)
    assert api.get("/v1/memories", params={"user_id": U, "kind": "goal"}).json()["items"] == []

    assert api.delete(f"/v1/memories/{made[1]['id']}", params={"user_id": U}).json() == {"deleted": True}
    assert api.delete(f"/v1/memories/{made[1]['id']}", params={"user_id": U}).status_code == 404
    missing = api.get(f"/v1/memories/{made[1]['id']}", params={"user_id": U})
    assert missing.status_code == 404
    assert missing.json()["error"]["type"] == "MemoryNotFound"


def test_typed_managers(api: httpx.Client) -> None:
    goal = api.post("/v1/goals", json={"title": "Ship the memory layer by December 15", "user_id": U}).json()
    assert goal["kind"] == "goal"
    assert goal["metadata"]["status"] == "open"
    progressed = api.post(f"/v1/goals/{goal['id']}/progress", json={"fraction": 0.5, "user_id": U}).json()
    assert progressed["metadata"]["progress"] == 0.5
    assert [g["id"] for g in api.get("/v1/goals/open", params={"user_id": U}).json()] == [goal["id"]]

    old = api.post("/v1/decisions", json={"text": "use SQLite for now", "user_id": U}).json()
    new = api.post(f"/v1/decisions/{old['id']}/supersede", json={"text": "use pgvector", "user_id": U}).json()
    chain = api.get(f"/v1/decisions/{new['id']}/chain", params={"user_id": U}).json()
    assert [d["id"] for d in chain] == [old["id"], new["id"]]
    assert [d["id"] for d in api.get("/v1/decisions/current", params={"user_id": U}).json()] == [new["id"]]

    proc = api.post(
        "/v1/procedures", json={"title": "Clear a jam", "steps": ["Stop", "Open the guard"], "user_id": U}
    ).json()
    assert proc["content"] == "Clear a jam: 1) Stop; 2) Open the guard"
    used = api.post(f"/v1/procedures/{proc['id']}/outcome", json={"worked": True, "user_id": U}).json()
    assert used["metadata"]["successes"] == 1

    mismatch = api.get(f"/v1/goals/{proc['id']}", params={"user_id": U})
    assert mismatch.status_code == 422
    assert mismatch.json()["error"]["type"] == "KindMismatch"

    assert api.put("/v1/profile/slots/name", json={"value": "Kumar", "user_id": U}).status_code == 200
    assert api.get("/v1/profile/slots/name", params={"user_id": U}).json() == {"result": "Kumar"}
    assert api.get("/v1/profile/slots/city", params={"user_id": U}).json() == {"result": None}
    assert api.get("/v1/profile", params={"user_id": U}).json() == {"result": {"name": "Kumar"}}
    api.put("/v1/working/s9/ticket", json={"value": "T-17", "user_id": U})
    assert api.get("/v1/working/s9", params={"user_id": U}).json() == {"result": {"ticket": "T-17"}}
    assert api.delete("/v1/working/s9", params={"user_id": U}).json() == {"result": 1}


def test_graph_table_of_section_11(api: httpx.Client) -> None:
    fault = add(api, "Line 3 keeps faulting with error E-217.", session_id="s1", memory_type="episodic")
    fix = add(api, "Found it: the encoder cable on line 3 was loose.", session_id="s1", memory_type="episodic")
    tea = add(api, "User likes green tea.", memory_type="preference")
    links = api.get(f"/v1/memories/{fix['id']}/links", params={"user_id": U}).json()
    assert any(k["target"] == fault["id"] or k["source"] == fault["id"] for k in links)

    made = api.post(
        f"/v1/memories/{tea['id']}/links",
        json={"target": fault["id"], "type": "related_to", "why": "tea break after the fault", "user_id": U},
    )
    assert made.status_code == 201
    assert made.json()["by"] == "manual"
    explained = api.get(f"/v1/memories/{tea['id']}/links/{fault['id']}/explain", params={"user_id": U}).json()
    assert set(explained) >= {"score", "linked", "type", "why", "signals"}
    related = api.get(f"/v1/memories/{tea['id']}/related", params={"user_id": U, "depth": 2}).json()
    assert {r["id"] for r in related} >= {fault["id"]}
    trace = api.get(f"/v1/memories/{tea['id']}/trace/{fix['id']}", params={"user_id": U}).json()
    assert trace
    assert trace[0]["source"] == tea["id"]
    drawn = api.get("/v1/graph/memories", params={"user_id": U}).json()
    assert drawn["stats"]["nodes"] == 3
    assert drawn["stats"]["edges"] >= 2
    assert api.delete(f"/v1/memories/{tea['id']}/links/{fault['id']}", params={"user_id": U}).json() == {
        "unlinked": True
    }
    connected = api.post("/v1/graph/connect", json={"user_id": U, "rebuild": True}).json()
    assert connected["memories"] == 3

    goal = api.post("/v1/goals", json={"title": "Keep line 3 running", "user_id": U}).json()
    sub = api.post("/v1/goals", json={"title": "Replace the encoder cable", "parent": goal["id"], "user_id": U}).json()
    conflict = api.post(f"/v1/memories/{sub['id']}/links", json={"target": goal["id"], "user_id": U})
    assert conflict.status_code == 409
    assert conflict.json()["error"]["type"] == "LinkConflict"

    triple = api.post(
        "/v1/entities/triples", json={"subject": "Kioko", "relation": "uses", "object": "pgvector", "user_id": U}
    )
    assert triple.status_code == 201
    assert triple.json()["relation"] == "uses"
    relations = api.get("/v1/entities/Kioko/relations", params={"user_id": U}).json()
    assert [t["object"] for t in relations] == ["pgvector"]
    assert api.get("/v1/entities/pgvector/neighbors", params={"user_id": U}).json() == ["Kioko"]
    assert len(api.get("/v1/entities/Kioko/path/pgvector", params={"user_id": U}).json()) == 1


def test_recall_context_search_feedback(api: httpx.Client) -> None:
    fault = add(api, "Line 3 keeps faulting with error E-217.", session_id="s1", memory_type="episodic")
    fix = add(api, "Found it: the encoder cable on line 3 was loose.", session_id="s1", memory_type="episodic")
    recalled = api.post("/v1/recall", json={"query": "line 3 faulting E-217", "user_id": U}).json()
    assert "E-217" in recalled["text"]
    assert recalled["memories"][0]["id"] in {fault["id"], fix["id"]}
    context = api.post("/v1/context", json={"query": "line 3", "user_id": U}).json()
    assert context["memories"]
    found = api.post("/v1/search", json={"query": "encoder cable", "user_id": U, "limit": 1}).json()
    assert [r["id"] for r in found] == [fix["id"]]
    made = api.post(
        "/v1/feedback",
        json={
            "user_id": U,
            "credited": fix["id"],
            "session_id": "s1",
            "context": [m["id"] for m in recalled["memories"]],
        },
    ).json()
    assert any(k["by"] == "feedback" and k["type"] == "resolves" for k in made)


def test_bad_input_is_a_typed_4xx_never_a_500(api: httpx.Client) -> None:
    secret = api.post(
        "/v1/memories", json={"content": "the deploy key is sk-abcdefghijklmnopqrstuvwx12345678", "user_id": U}
    )
    assert secret.status_code == 422
    assert secret.json()["error"]["type"] == "SecretDropped"
    assert "sk-abc" not in secret.text
    assert secret.json()["error"]["kinds"] == ["api_key"]
    for body in (
        {"content": "no user"},
        {"content": "", "user_id": U},
        {"content": "x", "user_id": U, "extra": 1},
        {"content": "x", "user_id": U, "memory_type": "gossip"},
    ):
        response = api.post("/v1/memories", json=body)
        assert response.status_code == 422
        assert response.json()["error"]["type"] in {
            "RequestInvalid",
            "InvalidRecordError",
        }
    broken = api.post("/v1/memories", content=b"{not json", headers={"content-type": "application/json"})
    assert broken.status_code == 422
    long_id = api.post("/v1/memories", json={"content": "x", "user_id": U, "id": "a" * 201})
    assert long_id.status_code == 422
    assert api.get("/v1/memories", params={"user_id": U, "cursor": "%%%"}).status_code == 422
    for reserved in ({"agent_id": "@webhooks"}, {"agent_id": "@graph"}):  # Kioko's own scopes are not listable
        response = api.get("/v1/memories", params={"user_id": U, **reserved})
        assert response.status_code == 422
        assert "reserved" in response.json()["error"]["message"]
    assert api.put("/v1/memories").status_code == 405
    assert api.get("/v1/nothing-here").json()["error"]["type"] == "NotFound"


def test_body_limit_health_request_ids_and_openapi(tmp_path: Path) -> None:
    with live_service(f"sqlite:///{tmp_path / 'small.db'}", body_limit=2000) as (server, layer):
        with httpx.Client(base_url=server.url) as api:
            big = api.post("/v1/memories", json={"content": "word " * 1000, "user_id": U})
            assert big.status_code == 413
            assert big.json()["error"]["type"] == "PayloadTooLarge"
            ok = api.post("/v1/memories", json={"content": "small", "user_id": U}, headers={"x-request-id": "r-1"})
            assert ok.status_code == 201
            assert ok.headers["x-request-id"] == "r-1"
            made = {api.get("/healthz").headers["x-request-id"] for _ in range(3)}
            assert len(made) == 3  # one id per request when the client sends none
            assert "r-1" not in made
            assert api.get("/healthz").json()["status"] == "ok"
            assert api.get("/readyz").json()["status"] == "ready"
            spec = api.get("/v1/openapi.json").json()
            assert {t["name"] for t in spec["tags"]} >= {"memories", "graph", "recall", "users", "admin"}
            for path in (
                "/v1/memories/{memory_id}/links",
                "/v1/memories/{memory_id}/links/{target}",
                "/v1/memories/{memory_id}/links/{target}/explain",
                "/v1/memories/{memory_id}/related",
                "/v1/graph/memories",
                "/v1/graph/connect",
                "/v1/recall",
                "/v1/goals",
                "/v1/decisions",
                "/v1/procedures",
            ):
                assert path in spec["paths"], path
            assert "graph" in spec["paths"]["/v1/graph/connect"]["post"]["tags"]
            assert api.get("/docs").status_code == 200
            layer.store.close()  # the store goes away under a running server
            gone = api.get("/v1/memories/x", params={"user_id": U})
            assert gone.status_code == 503
            assert gone.json()["error"]["type"] == "StoreError"
            assert api.get("/readyz").status_code == 503


def test_serve_refuses_other_interfaces_without_keys(capsys: pytest.CaptureFixture[str]) -> None:
    from kioko.cli import main

    assert main(["serve", "--host", "0.0.0.0", "--store", "memory://"]) == 2
    assert "without API keys" in capsys.readouterr().err


def test_kioko_serve_runs_the_service_with_intelligence_and_stops_on_sigterm(tmp_path: Path) -> None:
    """The command a user runs: a subprocess on a free loopback port, /docs served, SIGTERM ends it cleanly."""
    import subprocess
    import sys
    import time

    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kioko",
            "serve",
            "--store",
            f"sqlite:///{tmp_path / 's.db'}",
            "--port",
            str(port),
            "--intelligence",
            "--log-level",
            "warning",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 60
        while True:
            assert process.poll() is None, "kioko serve did not start"
            assert time.monotonic() < deadline, "kioko serve did not start"
            try:
                if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        assert httpx.get(f"{url}/docs").status_code == 200
        assert httpx.get(f"{url}/v1/intelligence").json()["enabled"] is True
        report = httpx.post(f"{url}/v1/manage", json={"text": "My name is Kumar.", "user_id": U}).json()
        assert "profile.set" in [op["op"] for op in report["ops"]]
    finally:
        process.terminate()
        # uvicorn shuts down gracefully, then re-raises the signal it caught: exit by SIGTERM, not a crash
        assert process.wait(30) in (0, -15)
    assert "loopback" in process.stderr.read().decode()


def test_kioko_serve_with_two_workers_serves_one_store_from_two_processes(tmp_path: Path) -> None:
    """--workers 2: two server processes on one port, each with its own layer on the same SQLite file."""
    import subprocess
    import sys
    import time

    from kioko.cli import main

    assert main(["serve", "--workers", "2", "--store", "memory://"]) == 2  # one process's memory only
    port = free_port()
    store = f"sqlite:///{tmp_path / 'w.db'}"
    command = [sys.executable, "-m", "kioko", "serve", "--store", store, "--port", str(port), "--workers", "2"]
    process = subprocess.Popen(
        [*command, "--log-level", "warning"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 90
        while True:
            assert process.poll() is None, "kioko serve --workers 2 did not start"
            assert time.monotonic() < deadline, "kioko serve --workers 2 did not start"
            try:
                if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        made = []
        for n in range(12):  # a new connection each time: the kernel spreads them over both workers
            answer = httpx.post(f"{url}/v1/memories", json={"content": f"Pump P-{n} leaks at the seal.", "user_id": U})
            assert answer.status_code == 201, answer.text
            made.append(answer.json()["id"])
        for memory_id in made:  # every write is seen by whichever worker answers the read
            assert httpx.get(f"{url}/v1/memories/{memory_id}", params={"user_id": U}).status_code == 200
        listed = httpx.get(f"{url}/v1/memories", params={"user_id": U, "limit": 100}).json()["items"]
        assert sorted(m["id"] for m in listed) == sorted(made)
        # a generated request id starts with its process's tag: both processes answer
        tags: set[str] = set()
        for _ in range(200):
            tags.add(httpx.get(f"{url}/healthz").headers["x-request-id"].split("-")[0])
            if len(tags) == 2:
                break
        assert len(tags) == 2
    finally:
        process.terminate()
        assert process.wait(30) in (0, -15)
    assert "2 worker processes" in process.stderr.read().decode()


def test_threads_sets_how_many_requests_run_at_once_and_serve_picks_two_for_a_store_in_the_process() -> None:
    import anyio.to_thread
    from fastapi.testclient import TestClient

    import kioko
    from kioko.http import create_app
    from kioko.http.serve import IN_PROCESS_THREADS, default_threads

    def tokens(client: TestClient) -> float:
        return client.portal.call(lambda: anyio.to_thread.current_default_thread_limiter().total_tokens)

    with kioko.connect("memory://") as layer:
        with TestClient(create_app(layer, threads=3)) as client:
            assert tokens(client) == 3
            assert client.get("/healthz").status_code == 200
        with TestClient(create_app(layer)) as client:
            assert tokens(client) == 40  # None leaves anyio's default alone
        for wrong in (0, -1, True, 2.5):
            with pytest.raises(ValueError, match="threads"):
                create_app(layer, threads=wrong)
    assert default_threads("memory://") == default_threads("sqlite:///m.db") == IN_PROCESS_THREADS == 2
    assert default_threads("notes.db") == 2
    assert default_threads("postgresql://u@db/kioko") is None
    assert default_threads("qdrant://q:6333/m") is None


def test_kioko_serve_refuses_threads_below_one() -> None:
    from kioko.cli import main

    assert main(["serve", "--threads", "0", "--store", "memory://"]) == 2
