"""API keys with scopes: read-only keys, keys bound to one user, per-key rate and body limits, rotation
and revocation while the server runs.

The route tests walk the app's own OpenAPI document (every operation under /v1, the user_id parameters
and body fields it declares), so a route added later is covered without touching this file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_support import live_service

import kioko
from kioko.api.auth import Rate, add_key, parse_rate, revoke_key, rotate_key
from kioko.api.errors import TooManyRequests
from kioko.cli import main
from kioko.http.gate import Buckets
from kioko_core.store import InvalidRecordError, Scope

U, OTHER = "kumar", "asha"
READS_BY_POST = {"/v1/recall", "/v1/context", "/v1/search", "/v1/plan"}
"""The POST operations that only read (the service's policy, written out here on purpose)."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, str]]]:
    keys_file = tmp_path_factory.mktemp("keys") / "keys.json"
    keys = {
        "reader": add_key(keys_file, name="reader", users=[U], read_only=True),
        "writer": add_key(keys_file, name="writer", users=[U]),
        "admin": add_key(keys_file, name="ops", admin=True),
    }
    with live_service("memory://", api_keys=keys_file) as (server, layer):
        yield server, keys


OPEN_WITHOUT_KEY = {("GET", "/v1/kinds")}
"""Routes that answer without a key: the kinds' table is the same for every user and holds no memory, and the
console reads it before it has a key (like ``/healthz``). Every other /v1 route is checked below."""


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    found = []
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if path.startswith("/v1/") and method in ("get", "post", "put", "patch", "delete"):
                if (method.upper(), path) not in OPEN_WITHOUT_KEY:
                    found.append((method.upper(), path, operation))
    return found


def test_only_the_kinds_table_is_open_and_it_holds_no_memory(served: tuple[Any, dict[str, str]]) -> None:
    server, _keys = served
    spec = httpx.get(f"{server.url}/v1/openapi.json").json()
    listed = {(method.upper(), path) for path, item in spec["paths"].items() for method in item}
    assert OPEN_WITHOUT_KEY <= listed
    kinds = httpx.get(f"{server.url}/v1/kinds")
    assert kinds.status_code == 200
    assert {row["name"] for row in kinds.json()} >= {"goal", "decision", "episodic"}
    assert "user_id" not in kinds.text


def _body_fields(spec: dict[str, Any], operation: dict[str, Any]) -> set[str]:
    content = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if not content:
        return set()
    schema = content["schema"]
    if "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return set(schema.get("properties", {}))


def _call(api: httpx.Client, method: str, path: str, *, params: dict, body: Any) -> tuple[int, str]:
    """Status and error message, reading no more than the head of a stream (GET /v1/events)."""
    with api.stream(method, path, params=params, json=body) as answer:
        if answer.status_code < 400:
            return answer.status_code, ""
        answer.read()
        return answer.status_code, answer.json()["error"]["message"]


def _client(server: Any, key: str | None) -> httpx.Client:
    return httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {key}"} if key else {}, timeout=60)


def _fill(path: str, operation: dict[str, Any], user: str) -> str:
    for parameter in operation.get("parameters", []):
        if parameter["in"] == "path":
            value = user if parameter["name"] == "user_id" else "x1"
            path = path.replace("{" + parameter["name"] + "}", value)
    return path


def test_every_route_checks_the_key_its_scope_and_its_user(served: tuple[Any, dict[str, str]]) -> None:
    server, keys = served
    spec = httpx.get(f"{server.url}/v1/openapi.json").json()
    operations = _operations(spec)
    assert len(operations) > 60  # the document is the whole API, not a part of it
    writes = user_routes = 0
    with (
        _client(server, None) as nobody,
        _client(server, keys["reader"]) as reader,
        _client(server, keys["writer"]) as writer,
    ):
        for method, path, operation in operations:
            where = f"{method} {path}"
            parameters = operation.get("parameters", [])
            query_user = any(p["name"] == "user_id" and p["in"] == "query" for p in parameters)
            path_user = "{user_id}" in path
            body_user = "user_id" in _body_fields(spec, operation)
            body = {} if "requestBody" in operation else None
            own = _fill(path, operation, U)

            assert _call(nobody, method, own, params={}, body=body)[0] == 401, where

            write = method != "GET" and path not in READS_BY_POST
            status, message = _call(reader, method, own, params={}, body=body)
            if write:
                writes += 1
                assert status == 403, (where, status, message)
                assert "read-only" in message, (where, status, message)
            else:  # a read: the key and its one user are enough (user_id left out and filled in)
                assert "read-only" not in message, (where, status, message)
                assert "user_id" not in message, (where, status, message)

            if query_user or path_user or body_user:
                user_routes += 1
                params = {"user_id": OTHER} if query_user else {}
                other_body = {"user_id": OTHER} if body_user else body
                status, message = _call(writer, method, _fill(path, operation, OTHER), params=params, body=other_body)
                assert status == 403, (where, status, message)
                assert OTHER in message, (where, status, message)
    assert writes > 40
    assert user_routes > 60


def test_a_bound_key_leaves_user_id_out_and_an_admin_key_is_not_bound(served: tuple[Any, dict[str, str]]) -> None:
    server, keys = served
    writer = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {keys['writer']}"})
    admin = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {keys['admin']}"})
    with writer, admin:
        made = writer.post("/v1/memories", json={"content": "Line 3 keeps faulting after the valve swap."})
        assert made.status_code == 201
        assert made.json()["user_id"] == U
        assert [m["id"] for m in writer.get("/v1/memories").json()["items"]] == [made.json()["id"]]
        assert (
            writer.post("/v1/recall", json={"query": "line 3 fault"}).json()["memories"][0]["id"] == made.json()["id"]
        )
        assert writer.get("/v1/memories", params={"user_id": OTHER}).status_code == 403
        # an admin key is bound to nobody: user_id stays required
        assert admin.get("/v1/memories").status_code == 422
        assert admin.get("/v1/memories", params={"user_id": U}).json()["items"][0]["id"] == made.json()["id"]
        writer.delete(f"/v1/memories/{made.json()['id']}")


def test_a_read_only_key_reads(served: tuple[Any, dict[str, str]]) -> None:
    server, keys = served
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {keys['writer']}"}) as writer:
        made = writer.post("/v1/memories", json={"content": "The Pune office moved to Baner.", "user_id": U}).json()
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {keys['reader']}"}) as reader:
        assert reader.get(f"/v1/memories/{made['id']}", params={"user_id": U}).status_code == 200
        assert reader.post("/v1/recall", json={"query": "Pune office", "user_id": U}).status_code == 200
        assert reader.get("/v1/export", params={"user_id": U}).status_code == 200
        refused = reader.delete(f"/v1/memories/{made['id']}", params={"user_id": U})
        assert refused.status_code == 403
        assert refused.json()["error"]["type"] == "Forbidden"
        assert reader.get(f"/v1/memories/{made['id']}", params={"user_id": U}).status_code == 200  # still there
    # the module's server is shared: what this test wrote goes, so another test's listing of the user sees only
    # its own memories in any order (random order had this one in the bound key's list)
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {keys['writer']}"}) as writer:
        assert writer.delete(f"/v1/memories/{made['id']}", params={"user_id": U}).status_code == 200


def test_rate_limits_are_per_key_and_say_when_to_retry(tmp_path: Path) -> None:
    keys_file = tmp_path / "keys.json"
    slow = add_key(keys_file, name="slow", users=[U], rate_limit="3/minute")
    free = add_key(keys_file, name="free", users=[U])
    with live_service("memory://", api_keys=keys_file) as (server, layer):

        def get(key: str) -> httpx.Response:
            return httpx.get(f"{server.url}/v1/memories", headers={"Authorization": f"Bearer {key}"})

        assert [get(slow).status_code for _ in range(3)] == [200, 200, 200]
        limited = get(slow)
        assert limited.status_code == 429
        assert limited.json()["error"]["type"] == "TooManyRequests"
        assert 1 <= int(limited.headers["retry-after"]) <= 20  # one token comes back every 20 s
        with kioko.connect(server.url, api_key=slow) as remote, pytest.raises(TooManyRequests):
            remote.pinned(user_id=U)  # RemoteMemory raises the same type
        assert [get(free).status_code for _ in range(5)] == [200] * 5  # another key's own budget
        assert httpx.get(f"{server.url}/healthz").status_code == 200  # what needs no key is not counted
        fresh = rotate_key(keys_file, "slow")  # a rotated key is a new key: a full bucket, old key refused
        assert get(fresh).status_code == 200
        assert get(slow).status_code == 401


def test_a_token_bucket_refills_at_its_pace() -> None:
    buckets, rate = Buckets(), Rate(2, 1.0)
    assert [buckets.take("k", rate, now=0.0) for _ in range(2)] == [0.0, 0.0]
    assert buckets.take("k", rate, now=0.0) == pytest.approx(0.5)
    assert buckets.take("k", rate, now=0.25) == pytest.approx(0.25)  # half a token back
    assert buckets.take("k", rate, now=0.5) == 0.0
    assert buckets.take("k", rate, now=10.0) == 0.0  # capped at 2
    assert buckets.take("k", rate, now=10.0) == 0.0
    assert buckets.take("k", rate, now=10.0) > 0
    assert buckets.take("other", rate, now=10.0) == 0.0


def test_a_keys_body_limit_is_a_413_declared_or_streamed(tmp_path: Path) -> None:
    keys_file = tmp_path / "keys.json"
    small = add_key(keys_file, name="small", users=[U], body_limit=300)
    large = add_key(keys_file, name="large", users=[U])
    text = "The cooling loop on line 3 leaks at the second valve. " * 8  # about 450 bytes
    with live_service("memory://", api_keys=keys_file) as (server, layer):
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {small}"}) as api:
            declared = api.post("/v1/memories", json={"content": text, "user_id": U})
            assert declared.status_code == 413
            assert declared.json()["error"]["type"] == "PayloadTooLarge"
            body = json.dumps({"content": text, "user_id": U}).encode()
            streamed = api.post(
                "/v1/memories", content=iter([body[:200], body[200:]]), headers={"content-type": "application/json"}
            )
            assert streamed.status_code == 413
            without_user = json.dumps({"content": text}).encode()  # the gate reads it to fill in user_id
            streamed = api.post(
                "/v1/memories",
                content=iter([without_user[:200], without_user[200:]]),
                headers={"content-type": "application/json"},
            )
            assert streamed.status_code == 413
            assert api.post("/v1/memories", json={"content": "short", "user_id": U}).status_code == 201
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {large}"}) as api:
            assert api.post("/v1/memories", json={"content": text, "user_id": U}).status_code == 201
        assert len(list(layer.store.scan(Scope(U)))) == 2


def test_rotation_and_revocation_without_a_restart_from_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys_file = tmp_path / "keys.json"
    assert main(["keys-new", "--file", str(keys_file), "--name", "bot", "--user", U, "--read-only"]) == 0
    old = capsys.readouterr().out.strip()
    assert main(["keys-new", "--file", str(keys_file), "--name", "ops", "--admin", "--rate-limit", "100/minute"]) == 0
    ops = capsys.readouterr().out.strip()
    stored = json.loads(keys_file.read_text())["keys"]
    assert stored[0]["scopes"] == ["read"]
    assert stored[1]["rate_limit"] == "100/minute"
    assert old not in keys_file.read_text()
    assert oct(keys_file.stat().st_mode & 0o777) == "0o600"
    with live_service("memory://", api_keys=keys_file) as (server, layer):

        def status(key: str, method: str = "GET") -> int:
            return httpx.request(
                method,
                f"{server.url}/v1/memories",
                headers={"Authorization": f"Bearer {key}"},
                json={"content": "A note."} if method == "POST" else None,
            ).status_code

        assert status(old) == 200
        assert status(old, "POST") == 403
        assert main(["keys-rotate", "--file", str(keys_file), "--name", "bot"]) == 0
        new = capsys.readouterr().out.strip()
        assert new != old
        assert status(old) == 401
        assert status(new) == 200  # same rights, new secret
        assert status(new, "POST") == 403
        assert main(["keys-revoke", "--file", str(keys_file), "--name", "bot"]) == 0
        assert status(new) == 401  # the admin key stays (and names no user)
        assert status(ops) == 422
    with pytest.raises(InvalidRecordError, match="no key named"):
        revoke_key(keys_file, "bot")
    with pytest.raises(InvalidRecordError, match="already has a key named"):
        add_key(keys_file, name="ops", admin=True)


@pytest.mark.parametrize(
    "entry, problem",
    [
        ({"scopes": ["write"]}, "scopes"),
        ({"scopes": ["read", "delete"]}, "scopes"),
        ({"scopes": "read"}, "scopes"),
        ({"rate_limit": "100/day"}, "rate limit"),
        ({"rate_limit": "0/minute"}, "rate limit"),
        ({"rate_limit": 100}, "rate limit"),
        ({"body_limit": 0}, "body_limit"),
        ({"body_limit": "1kb"}, "body_limit"),
    ],
)
def test_a_bad_key_entry_is_refused(tmp_path: Path, entry: dict[str, Any], problem: str) -> None:
    from kioko.api.auth import KeyRing

    base = {"name": "k", "sha256": "a" * 64, "users": [U]}
    with pytest.raises(InvalidRecordError, match=problem):
        KeyRing.from_config({"keys": [{**base, **entry}]})
    assert parse_rate(" 5 / second ") == Rate(5, 1.0)
    assert str(parse_rate("7/hour")) == "7/hour"
