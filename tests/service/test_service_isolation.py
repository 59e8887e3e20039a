"""Tenancy over HTTP: API keys bound the users a request may touch, on every route of the API.

Two tenants hold look-alike memories (the victim's carry a marker word). Every route of the app is
called with the attacker's key twice: naming the victim as user (403), and naming itself as user with
the victim's ids (404, or a success that holds none of the victim's data). No key, or a wrong one, is 401.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_support import live_service

from kioko.api.auth import add_key

ATTACKER, VICTIM, MARKER = "kumar", "krutika", "zebrafinch"


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("tenants")
    keys_file = folder / "keys.json"
    keys = {name: add_key(keys_file, name=f"{name}-key", users=[name]) for name in (ATTACKER, VICTIM)}
    keys["admin"] = add_key(keys_file, name="ops", admin=True)
    assert all(k not in keys_file.read_text() for k in keys.values())  # only hashes on disk
    with live_service(f"sqlite:///{folder / 'tenants.db'}", api_keys=keys_file, webhook_hosts={"127.0.0.1"}) as (
        server,
        layer,
    ):
        victim = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {keys[VICTIM]}"})
        ids: dict[str, str] = {}
        for user, client in ((VICTIM, victim),):
            ids["fault"] = _post(
                client,
                "/v1/memories",
                {
                    "content": f"Line 3 keeps faulting with E-217 {MARKER}.",
                    "user_id": user,
                    "memory_type": "episodic",
                    "session_id": "s1",
                },
            )["id"]
            ids["fix"] = _post(
                client,
                "/v1/memories",
                {
                    "content": f"Found it: the encoder cable on line 3 was loose {MARKER}.",
                    "user_id": user,
                    "memory_type": "episodic",
                    "session_id": "s1",
                },
            )["id"]
            ids["goal"] = _post(client, "/v1/goals", {"title": f"Keep line 3 running {MARKER}", "user_id": user})["id"]
            ids["decision"] = _post(client, "/v1/decisions", {"text": f"use pgvector {MARKER}", "user_id": user})["id"]
            _post(
                client,
                "/v1/entities/triples",
                {"subject": "Kioko", "relation": "uses", "object": MARKER, "user_id": user},
            )
            client.put("/v1/profile/slots/name", json={"value": MARKER, "user_id": user}).raise_for_status()
            client.put("/v1/working/s1/ticket", json={"value": MARKER, "user_id": user}).raise_for_status()
            ids["webhook"] = _post(
                client,
                "/v1/webhooks",
                {"url": f"http://127.0.0.1:9/{MARKER}", "user_id": user, "events": ["memory.deleted"]},
            )["id"]
        attacker = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {keys[ATTACKER]}"})
        _post(
            attacker,
            "/v1/memories",
            {
                "content": "Line 3 keeps faulting with E-217.",
                "user_id": ATTACKER,
                "memory_type": "episodic",
                "session_id": "s1",
            },
        )
        _post(
            attacker,
            "/v1/entities/triples",
            {"subject": "Kioko", "relation": "uses", "object": "pgvector", "user_id": ATTACKER},
        )
        yield server, layer, attacker, victim, keys, ids
        attacker.close()
        victim.close()


def _post(client: httpx.Client, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(path, json=body)
    assert response.status_code == 201, response.text
    return response.json()


def _operations(client: httpx.Client) -> list[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """(verb, path template, operation, components) for every /v1 operation the served OpenAPI lists."""
    spec = client.get("/v1/openapi.json").json()
    return [
        (verb.upper(), path, op, spec["components"]["schemas"])
        for path, item in spec["paths"].items()
        if path.startswith("/v1/")
        for verb, op in item.items()
        # the kinds' table answers without a key: the same for everyone, no memory (test_service_keys checks it)
        if (verb.upper(), path) != ("GET", "/v1/kinds")
    ]


def _request(
    operation: tuple[str, str, dict[str, Any], dict[str, Any]], user: str, ids: dict[str, str]
) -> tuple[str, str, dict[str, Any], Any]:
    """A well-formed call of the operation for ``user`` whose every id is one of the victim's.

    The body is a dict (sent as JSON) or, for the import, the text of an export.
    """
    verb, path, op, schemas = operation
    template = path
    params: dict[str, Any] = {}
    for parameter in op.get("parameters", []):
        name = parameter["name"]
        if parameter["in"] == "path":
            value = {
                "key": "name",
                "session_id": "s1",
                "entity": "Kioko",
                "other": MARKER,
                "user_id": user,
                "target": ids["fix"],
                "triple_id": "t0",
                "webhook_id": ids["webhook"],
            }.get(name, ids["fault"])
            if template.startswith("/v1/goals/{"):
                value = ids["goal"] if name == "memory_id" else value
            if template.startswith("/v1/decisions/{"):
                value = ids["decision"]
            path = path.replace("{" + name + "}", value)
        elif name == "user_id":
            params["user_id"] = user
        elif name == "timeout":
            params["timeout"] = 0.2  # the event stream ends by itself
    body: Any = None
    if template == "/v1/import":  # an export whose record claims the user's scope and a victim's id
        record = {
            "id": ids["fault"],
            "user_id": user,
            "kind": "factual",
            "content": "a note",
            "metadata": {},
            "terms": [],
            "created_at": 1.0,
            "updated_at": 1.0,
            "version": 1,
        }
        lines = [{"format": "kioko-export", "version": 1, "user_id": user}, {"record": record}, {"end": {"records": 1}}]
        return verb, path, params, "".join(json.dumps(line) + "\n" for line in lines)
    content = op.get("requestBody", {}).get("content", {}).get("application/json")
    if content is not None:
        schema = schemas[content["schema"]["$ref"].rsplit("/", 1)[1]]
        body = {"user_id": user}
        for name in schema.get("required", []):
            if name != "user_id":
                body[name] = _sample(name, ids)
    return verb, path, params, body


def _names_a_user(operation: tuple[str, str, dict[str, Any], dict[str, Any]]) -> bool:
    verb, path, op, _ = operation
    return "requestBody" in op or any(p["name"] == "user_id" for p in op.get("parameters", []))


def _send(client: httpx.Client, verb: str, path: str, params: dict[str, Any], body: Any) -> httpx.Response:
    if isinstance(body, str):
        return client.request(
            verb, path, params=params, content=body.encode(), headers={"content-type": "application/x-ndjson"}
        )
    return client.request(verb, path, params=params, json=body)


def _sample(name: str, ids: dict[str, str]) -> Any:
    return {
        "steps": ["Press stop"],
        "worked": True,
        "url": "http://127.0.0.1:9/hook",
        "target": ids["fix"],
        "survivor": ids["fix"],
        "subject": "Kioko",
        "relation": "uses",
        "object": "pgvector",
        "value": "x",
        "items": [{"content": "a note"}],
        "records": [],
    }.get(name, "line 3 fault")


def test_every_route_refuses_another_users_id_with_403(tenants) -> None:
    server, layer, attacker, victim, keys, ids = tenants
    operations = _operations(attacker)
    assert len(operations) > 60
    for operation in operations:
        verb, path, params, body = _request(operation, VICTIM, ids)
        response = _send(attacker, verb, path, params, body)
        if not _names_a_user(operation):  # server-wide facts (GET /v1/intelligence): nobody's data
            assert response.status_code == 200, (verb, path, response.text)
            assert MARKER not in response.text, (verb, path, response.text)
            continue
        assert response.status_code == 403, (verb, path, response.status_code, response.text)
        assert response.json()["error"]["type"] == "Forbidden"
        assert MARKER not in response.text


def test_every_route_with_the_victims_ids_in_ones_own_scope_finds_nothing(tenants) -> None:
    server, layer, attacker, victim, keys, ids = tenants
    statuses = []
    for operation in _operations(attacker):
        verb, path, params, body = _request(operation, ATTACKER, ids)
        response = _send(attacker, verb, path, params, body)
        statuses.append(response.status_code)
        assert response.status_code < 500, (verb, path, response.text)
        assert MARKER not in response.text, (verb, path, response.text)
        if response.status_code < 300:  # a success is about the attacker's own data: no id of the victim's
            assert not any(i in response.text for i in ids.values()), (verb, path, response.text)
    assert statuses.count(404) > 30  # most calls named a victim's memory and found nothing
    # the victim's memories are all still there, unchanged by the attempts
    for name, memory_id in ids.items():
        if name != "webhook":
            assert victim.get(f"/v1/memories/{memory_id}", params={"user_id": VICTIM}).status_code == 200
    assert [h["id"] for h in victim.get("/v1/webhooks", params={"user_id": VICTIM}).json()] == [ids["webhook"]]


def test_keys_are_required_and_admin_may_act_for_anyone(tenants) -> None:
    server, layer, attacker, victim, keys, ids = tenants
    with httpx.Client(base_url=server.url) as anonymous:
        for operation in _operations(anonymous):
            verb, path, params, body = _request(operation, VICTIM, ids)
            response = _send(anonymous, verb, path, params, body)
            assert response.status_code == 401, (verb, path, response.text)
        wrong = anonymous.get(
            f"/v1/memories/{ids['fix']}", params={"user_id": VICTIM}, headers={"Authorization": "Bearer kk_not-a-key"}
        )
        assert wrong.status_code == 401
        assert wrong.json()["error"]["type"] == "Unauthorized"
        assert anonymous.get("/healthz").status_code == 200  # probes need no key
        admin = anonymous.get(
            f"/v1/memories/{ids['fix']}", params={"user_id": VICTIM}, headers={"X-API-Key": keys["admin"]}
        )
        assert admin.status_code == 200
        assert MARKER in admin.json()["content"]


def test_remote_memory_raises_the_typed_errors(tenants) -> None:
    import kioko
    from kioko.api.errors import Forbidden, Unauthorized
    from kioko_core.layer.memory_layer import MemoryNotFound

    server, layer, attacker, victim, keys, ids = tenants
    with kioko.connect(server.url, api_key=keys[ATTACKER]) as remote:
        with pytest.raises(Forbidden):
            remote.get(ids["fix"], user_id=VICTIM)
        with pytest.raises(MemoryNotFound):
            remote.get(ids["fix"], user_id=ATTACKER)
        assert remote.recall("line 3 E-217", user_id=ATTACKER).memories
    with kioko.connect(server.url) as remote, pytest.raises(Unauthorized):
        remote.search("line 3", user_id=ATTACKER)


def test_agent_bound_keys(tmp_path: Path) -> None:
    keys_file = tmp_path / "keys.json"
    bot = add_key(keys_file, name="bot", users=["kumar"], agents=["support-bot"])
    with live_service("memory://", api_keys=keys_file) as (server, layer):
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {bot}"}) as client:
            ok = client.post("/v1/memories", json={"content": "a note", "user_id": "kumar", "agent_id": "support-bot"})
            assert ok.status_code == 201
            for agent in (None, "other-bot"):
                refused = client.post(
                    "/v1/memories",
                    json={"content": "a note", "user_id": "kumar", **({"agent_id": agent} if agent else {})},
                )
                assert refused.status_code == 403
    assert json.loads(keys_file.read_text())["keys"][0]["agents"] == ["support-bot"]
