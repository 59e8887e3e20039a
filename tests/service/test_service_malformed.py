"""Malformed input is a 4xx, never a 500 or a reset connection, over a real server on loopback: a lone surrogate
where the server fills in ``user_id`` for a key bound to one user, JSON nested 1,000 deep (the documented
limit is kioko.api.json_depth.MAX_JSON_DEPTH), and a property-based sweep (hypothesis) that sends malformed
bodies to every route of the API document with a JSON body, as a key bound to one user and as an admin."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_support import live_service

from kioko.api.auth import add_key
from kioko.api.json_depth import MAX_JSON_DEPTH

SURROGATE = "\\ud800"
"""A lone surrogate as JSON writes it (the bytes are valid UTF-8 and valid JSON; the text is no Unicode)."""


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str], dict[str, str]]]:
    keys: Path = tmp_path_factory.mktemp("keys") / "keys.json"
    ana = add_key(keys, name="ana", users=["ana"])
    ops = add_key(keys, name="ops", admin=True)
    with live_service("memory://", api_keys=keys) as (server, _):
        json_type = {"Content-Type": "application/json"}
        yield (
            server.url,
            {"Authorization": f"Bearer {ana}", **json_type},
            {"Authorization": f"Bearer {ops}", **json_type},
        )


def test_a_lone_surrogate_where_the_server_fills_in_the_user(served: tuple[str, Any, Any]) -> None:
    base, ana, _ = served
    body = '{"content": "tea ' + SURROGATE + ' please"}'  # no user_id: the gate adds the key's one user
    answer = httpx.post(f"{base}/v1/memories", content=body.encode(), headers=ana)
    assert answer.status_code == 422, answer.text
    assert "surrogate" in answer.json()["error"]["message"]
    # the connection was answered, not reset, and the server goes on
    assert httpx.get(f"{base}/v1/memories", headers=ana).status_code == 200


@pytest.mark.parametrize("who", ["ana", "ops"])
def test_json_nested_past_the_limit_is_a_422(served: tuple[str, Any, Any], who: str) -> None:
    base, ana, ops = served
    headers = ana if who == "ana" else ops
    deep = _nested(1000)
    for body in (
        '{"content": "tea", "user_id": "ana", "metadata": {"x": ' + deep + "}}",
        '{"content": "tea", "metadata": {"x": ' + deep + "}}",
        deep,
        '{"a": ' * 1000 + "1" + "}" * 1000,
    ):
        answer = httpx.post(f"{base}/v1/memories", content=body.encode(), headers=headers)
        assert answer.status_code == 422, (body[:60], answer.text)
        assert f"more than {MAX_JSON_DEPTH} deep" in answer.json()["error"]["message"]
    # brackets inside a text do not count; a body at the limit's edge is parsed as usual
    text = {"content": "[" * 2000, "user_id": "ana", "metadata": {"x": json.loads(_nested(MAX_JSON_DEPTH - 2))}}
    assert httpx.post(f"{base}/v1/memories", json=text, headers=headers).status_code == 201
    # an import line nested too deep
    header = json.dumps({"format": "kioko-export", "version": 1, "user_id": "ana", "agent_ids": []})
    lines = (header + "\n" + '{"record": ' + deep + "}\n").encode()
    answer = httpx.post(f"{base}/v1/import", content=lines, headers={**headers, "Content-Type": "application/x-ndjson"})
    assert answer.status_code == 422, answer.text
    assert "deep" in answer.text, answer.text


def _body_routes(base: str, headers: dict[str, str]) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path with its parameters filled in, the body's properties) of every route with a JSON body."""
    document = httpx.get(f"{base}/v1/openapi.json", headers=headers).json()
    schemas = document["components"]["schemas"]
    routes = []
    for path, methods in sorted(document["paths"].items()):
        for method, operation in sorted(methods.items()):
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            schema = content["application/json"].get("schema", {})
            ref = schema.get("$ref", "")
            properties = schemas.get(ref.rsplit("/", 1)[-1], {}).get("properties", {}) if ref else {}
            filled = path
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path":
                    filled = filled.replace("{" + parameter["name"] + "}", "m-1")
            routes.append((method.upper(), filled, properties))
    return routes


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)


@st.composite
def malformed(draw: st.DrawFn, properties: dict[str, Any]) -> str:
    """A body a careless or hostile client might send: the route's fields with wrong values, a lone surrogate,
    JSON's non-standard numbers, nesting past the limit, or no object at all."""
    names = sorted(properties) or ["content"]
    body: dict[str, Any] = {}
    for name in draw(st.lists(st.sampled_from(names), max_size=len(names), unique=True)):
        body[name] = draw(JUNK)
    if draw(st.booleans()):
        body["user_id"] = draw(st.sampled_from(["ana", "bo", "", "a/b", "@webhooks"]))
    text = json.dumps(body)
    flaw = draw(st.sampled_from(["none", "surrogate", "nan", "deep", "not-object", "truncated", "huge"]))
    if flaw == "surrogate" and names:
        field = draw(st.sampled_from(names))
        text = json.dumps({**body, field: "x"}).replace('"x"', '"x' + SURROGATE + '"', 1)
    elif flaw == "nan":
        text = text[:-1] + (", " if body else "") + '"created_at": NaN, "limit": Infinity}'
    elif flaw == "deep":
        depth = draw(st.integers(min_value=MAX_JSON_DEPTH + 1, max_value=3000))
        text = text[:-1] + (", " if body else "") + '"metadata": ' + _nested(depth) + "}"
    elif flaw == "not-object":
        text = draw(st.sampled_from(["[]", "null", "1", '"x"', _nested(500)]))
    elif flaw == "truncated":
        text = text[: draw(st.integers(min_value=0, max_value=max(0, len(text) - 1)))]
    elif flaw == "huge":
        text = text[:-1] + (", " if body else "") + '"created_at": 1e400, "n": ' + "9" * 5000 + "}"
    return text


def test_no_malformed_body_gives_a_500_on_any_route(served: tuple[str, Any, Any]) -> None:
    base, ana, ops = served
    routes = _body_routes(base, ops)
    assert len(routes) > 40, routes  # every write of the table, and the reads by POST
    seen: set[str] = set()

    @settings(
        max_examples=400,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=st.data())
    def sweep(data: st.DataObject) -> None:
        method, path, properties = data.draw(st.sampled_from(routes))
        headers = data.draw(st.sampled_from([ana, ops]))
        body = data.draw(malformed(properties))
        seen.add(path)
        try:
            answer = httpx.request(method, base + path, content=body.encode("utf-8"), headers=headers, timeout=60)
        except httpx.TransportError as error:  # a reset or closed connection
            raise AssertionError(f"{method} {path} {body[:200]!r}: {error!r}") from None
        assert answer.status_code < 500, (method, path, body[:300], answer.text[:300])

    sweep()
    assert len(seen) >= len(routes) // 2, f"the sweep reached {len(seen)} of {len(routes)} routes"
