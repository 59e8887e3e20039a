"""The text field is ``content`` on every route that takes a text; each route's older name still works."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import kioko
from kioko.api import operations
from kioko.http import create_app
from kioko.http.live import LiveServer

U = "kumar"
OLDER_NAMES = {"title", "text", "user"}
ADDS = [op for op in operations.OPERATIONS if op.method == "add"]


@pytest.fixture(scope="module")
def api() -> Iterator[httpx.Client]:
    layer = kioko.intelligent("memory://")
    try:
        with LiveServer(create_app(layer)) as server, httpx.Client(base_url=server.url, timeout=30) as client:
            yield client
    finally:
        layer.close()


@pytest.mark.parametrize("op", ADDS, ids=[op.url for op in ADDS])
def test_every_typed_add_takes_content_and_its_older_name(api: httpx.Client, op: operations.Operation) -> None:
    older = next(iter(operations.signature(op).parameters))  # the call's positional text: title or text
    extra: dict[str, Any] = {"steps": ["Open valve 2."]} if op.manager == "procedures" else {}
    by_content = api.post(op.url, json={"content": f"Ship the {op.manager} report", "user_id": U, **extra})
    assert by_content.status_code == 201, by_content.text
    assert f"{op.manager} report" in by_content.json()["content"]
    by_older = api.post(op.url, json={older: f"Ship the {op.manager} audit", "user_id": U, **extra})
    assert by_older.status_code == 201, by_older.text
    both = api.post(op.url, json={older: "one", "content": "two", "user_id": U, **extra})
    assert both.status_code == 422
    assert "not both" in both.json()["error"]["message"]
    missing = api.post(op.url, json={"user_id": U, **extra})
    assert missing.status_code == 422
    assert "content" in missing.json()["error"]["message"]


def test_an_update_and_a_supersede_take_content(api: httpx.Client) -> None:
    goal = api.post("/v1/goals", json={"content": "Cut scrap on line 2", "user_id": U}).json()
    changed = api.patch(f"/v1/goals/{goal['id']}", json={"content": "Cut scrap on line 3", "user_id": U})
    assert changed.status_code == 200
    assert "line 3" in changed.json()["content"]
    old = api.post("/v1/decisions", json={"content": "Use SQLite for the pilot", "user_id": U}).json()
    new = api.post(f"/v1/decisions/{old['id']}/supersede", json={"content": "Use PostgreSQL", "user_id": U})
    assert new.status_code == 200
    assert "PostgreSQL" in new.json()["content"]


@pytest.mark.parametrize(("path", "older"), [("/v1/manage", "text"), ("/v1/turns", "user")])
def test_manage_and_turns_take_content_and_their_older_name(api: httpx.Client, path: str, older: str) -> None:
    for field, words in (("content", "I prefer green tea in the mornings."), (older, "I prefer oat milk.")):
        answer = api.post(path, json={field: words, "user_id": U, "dry_run": True})
        assert answer.status_code == 200, answer.text
        assert answer.json()["ops"], answer.json()


def test_the_api_document_names_content_and_marks_the_older_names_deprecated(api: httpx.Client) -> None:
    spec = api.get("/v1/openapi.json").json()
    schemas = spec["components"]["schemas"]
    bodies = [f"{_camel(op.manager)}AddIn" for op in ADDS] + ["DecisionsSupersedeIn", "ManageIn", "TurnIn"]
    for name in bodies:
        props, required = schemas[name]["properties"], schemas[name].get("required", [])
        assert "content" in props, name
        assert "content" in required, name
        older = [field for field in OLDER_NAMES & set(props) if props[field].get("deprecated")]
        assert len(older) == 1, (name, older)
        assert older[0] not in required, (name, older)


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))
