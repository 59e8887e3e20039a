"""Text a store cannot hold, over HTTP: a NUL byte or a lone surrogate anywhere in a request is a 422, never a 500.

PostgreSQL refuses NUL in text and JSON, and UTF-8 has no lone surrogate; JSON can carry both
(``"\\u0000"``, ``"\\ud800"``). A write must answer with a typed 422 and leave the store as it was
(SQLite keeps a NUL like any other character, so there a NUL may also be stored); a read answers or
refuses, never crashes.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from service_support import live_service

BAD = {"nul": "\x00", "surrogate": "\ud800"}


def _raw(client: httpx.Client, verb: str, path: str, body: Any = None, params: Any = None) -> httpx.Response:
    """JSON with ``\\u`` escapes, as any client may send it (httpx's own encoder refuses a lone surrogate)."""
    content = json.dumps(body).encode("ascii") if body is not None else None
    if params:  # percent-encoded by hand: the bytes a lone surrogate would be, were it encodable
        path += "?" + "&".join(f"{k}={quote(v, safe='', errors='surrogatepass')}" for k, v in params.items())
    return client.request(verb, path, content=content, headers={"content-type": "application/json"})


def _writes(user: str, bad: str, known: str) -> list[tuple[str, str, Any, Any]]:
    """(verb, path, body, params): the places a text travels into the store."""
    return [
        ("POST", "/v1/memories", {"content": f"Line 3 {bad} fault", "user_id": user}, None),
        ("POST", "/v1/memories", {"content": "Line 3 fault", "user_id": user, "metadata": {"note": f"a{bad}b"}}, None),
        ("POST", "/v1/memories", {"content": "Line 3 fault", "user_id": user, "metadata": {f"k{bad}": 1}}, None),
        ("POST", "/v1/memories", {"content": "Line 3 fault", "user_id": user + bad}, None),
        ("POST", "/v1/memories", {"content": "Line 3 fault", "user_id": user, "session_id": f"s{bad}"}, None),
        ("POST", "/v1/memories", {"content": "Line 3 fault", "user_id": user, "id": f"m{bad}"}, None),
        ("POST", "/v1/memories", {"content": "Line 3 fault", "user_id": user, "agent_id": f"bot{bad}"}, None),
        ("POST", "/v1/goals", {"title": f"Keep line 3 {bad} running", "user_id": user}, None),
        ("PATCH", f"/v1/memories/{known}", {"content": f"Line 3 {bad} fixed", "user_id": user}, None),
        (
            "POST",
            "/v1/entities/triples",
            {"subject": f"K{bad}", "relation": "uses", "object": "pg", "user_id": user},
            None,
        ),
        ("POST", "/v1/webhooks", {"url": f"http://127.0.0.1:9/{bad}", "user_id": user}, None),
    ]


def _reads(user: str, bad: str, known: str) -> list[tuple[str, str, Any, Any]]:
    """Reads with the text in a query or an id: an answer (nothing matches) or a 404/422, never a crash."""
    return [
        ("POST", "/v1/recall", {"query": f"line 3 {bad}", "user_id": user}, None),
        ("POST", "/v1/search", {"query": f"line 3 {bad}", "user_id": user}, None),
        ("POST", "/v1/plan", {"query": f"how do I {bad} reset", "user_id": user}, None),
        ("POST", f"/v1/memories/{known}/links", {"target": f"x{bad}", "user_id": user}, None),
        ("GET", f"/v1/memories/{quote('m' + bad, safe='', errors='surrogatepass')}", None, {"user_id": user}),
        ("GET", "/v1/memories", None, {"user_id": user, "session_id": f"s{bad}"}),
        ("GET", f"/v1/entities/{quote('K' + bad, safe='', errors='surrogatepass')}/relations", None, {"user_id": user}),
    ]


@pytest.mark.parametrize("which", ["postgresql", "sqlite"])
@pytest.mark.parametrize("bad", sorted(BAD))
def test_unstorable_text_is_a_422_and_changes_nothing(request, tmp_path: Path, which: str, bad: str) -> None:
    if which == "postgresql":
        url = request.getfixturevalue("postgresql_store_url")
    else:
        url = f"sqlite:///{tmp_path / 'text.db'}"
    user = "u" + uuid.uuid4().hex[:10]
    # loopback allowed, so the webhook registration below is refused for its text, not for its host
    with (
        live_service(url, webhook_allow=["127.0.0.1"]) as (server, layer),
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        known = client.post("/v1/memories", json={"content": "Line 3 keeps faulting.", "user_id": user}).json()["id"]
        for verb, path, body, params in _writes(user, BAD[bad], known):
            response = _raw(client, verb, path, body, params)
            if which == "postgresql" or bad == "surrogate":  # SQLite holds a NUL as any other character
                assert response.status_code == 422, (verb, path, body, response.status_code, response.text)
                assert response.json()["error"]["type"] in ("InvalidRecordError", "RequestInvalid"), response.text
            else:
                assert response.status_code < 500, (verb, path, body, response.status_code, response.text)
        for verb, path, body, params in _reads(user, BAD[bad], known):
            response = _raw(client, verb, path, body, params)
            assert response.status_code in (200, 404, 422), (verb, path, body, response.status_code, response.text)
        # manage reports an operation the store refused inside its answer (the turn itself was fine)
        managed = _raw(client, "POST", "/v1/manage", {"text": f"I moved to Pune {BAD[bad]}", "user_id": user})
        assert managed.status_code in (200, 422), managed.text
        if managed.status_code == 200:
            assert all(op["error"] for op in managed.json()["ops"] if "\x00" in json.dumps(op.get("fields")))
        if which == "sqlite" and bad == "nul":
            return
        stored = client.get("/v1/memories", params={"user_id": user}).json()["items"]
        assert [(m["id"], m["content"]) for m in stored] == [(known, "Line 3 keeps faulting.")]
