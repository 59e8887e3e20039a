"""One shape of a memory on every surface: REST answers, recall results, events, the CLI's ``--json`` and the
MCP tools show ``kind`` and ``content``, the user's metadata exactly as stored, ``entities`` and ``links`` as
fields of their own, and never the index terms or the layer's ``_kioko`` bookkeeping."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_support import live_service
from typer.testing import CliRunner

import kioko
from kioko.api.wire import context_in, record_in, related_in
from kioko.cli import app as cli_app
from kioko.remote.client import RemoteMemory
from kioko.views import MEMORY_FIELDS, memory_view
from kioko_core.linking import links

U = "kumar"
NOTE = {"ticket": "OPS-17", "tags": ["line-3", "e217"]}


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Any, Any, httpx.Client, dict[str, Any]]]:
    with live_service("memory://") as (server, layer):
        with httpx.Client(base_url=server.url, timeout=30) as api:
            fault = api.post(
                "/v1/memories",
                json={"content": "Line 3 keeps faulting with error E-217.", "user_id": U, "metadata": NOTE},
            ).json()
            fix = api.post(
                "/v1/memories",
                json={"content": "Fixed E-217 on line 3 by reseating the encoder cable.", "user_id": U},
            ).json()
            yield server, layer, api, {"fault": fault, "fix": fix}


def _memories_in(value: Any) -> Iterator[dict[str, Any]]:
    """Every dict in an answer that has a memory's id and content."""
    if isinstance(value, dict):
        if "content" in value and "id" in value and "user_id" in value:
            yield value
        for inner in value.values():
            yield from _memories_in(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _memories_in(inner)


def _check_shape(memory: dict[str, Any], extra: set[str] = frozenset()) -> None:  # type: ignore[assignment]
    assert set(memory) == set(MEMORY_FIELDS) | extra, sorted(set(memory) ^ (set(MEMORY_FIELDS) | extra))
    assert links.BOOKKEEPING not in memory["metadata"]
    assert "terms" not in memory
    assert "type" not in memory


def test_every_answer_with_a_memory_has_the_one_shape(served: tuple[Any, Any, httpx.Client, dict[str, Any]]) -> None:
    _, _, api, made = served
    fault, fix = made["fault"], made["fix"]
    got = api.get(f"/v1/memories/{fault['id']}", params={"user_id": U}).json()
    _check_shape(got)
    assert got["metadata"] == NOTE
    assert got["kind"] == "factual"
    assert "line 3" in got["entities"]
    # the write-time link, on both ends, as a link of its own (source -> target), not inside metadata
    assert [(k["source"], k["target"]) for k in got["links"]] == [(fix["id"], fault["id"])]
    assert got["links"][0]["by"] == "auto"
    assert got["links"][0]["why"]
    answers = {
        "add": [fault, fix],
        "list": api.get("/v1/memories", params={"user_id": U}).json(),
        "search": api.post("/v1/search", json={"query": "E-217", "user_id": U}).json(),
        "related": api.get(f"/v1/memories/{fault['id']}/related", params={"user_id": U}).json(),
        "goal": api.post("/v1/goals", json={"content": "Cut line 3 downtime", "user_id": U}).json(),
        "pin": api.post(f"/v1/memories/{fix['id']}/pin", json={"user_id": U}).json(),
    }
    recalled = api.post("/v1/recall", json={"query": "what fixed E-217?", "user_id": U}).json()
    for name, answer in answers.items():
        found = list(_memories_in(answer))
        assert found, name
        for memory in found:
            _check_shape(memory, {"score", "path"} if name == "related" else set())
    assert recalled["memories"]
    for memory in recalled["memories"]:  # a recall result is the memory itself, with how it was found
        _check_shape(memory, {"score", "signals", "section"})
    text = json.dumps([answers, recalled])
    assert links.BOOKKEEPING not in text
    assert '"terms"' not in text


def test_the_cli_and_the_library_views_show_the_same_shape_as_rest(
    served: tuple[Any, Any, httpx.Client, dict[str, Any]], tmp_path: Path
) -> None:
    _, layer, api, made = served
    record = layer.get(made["fault"]["id"], user_id=U)
    assert memory_view(record) == api.get(f"/v1/memories/{record.id}", params={"user_id": U}).json()
    url = f"sqlite:///{tmp_path / 'shape.db'}"
    with kioko.connect(url) as local:
        stored = local.add("The spare encoder cables are in cabinet B.", user_id=U, metadata=NOTE)
    shown = CliRunner().invoke(cli_app, ["get", stored.id, "--user", U, "--store", url, "--json"])
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert set(MEMORY_FIELDS) <= set(data)
    assert data["kind"] == "factual"
    assert data["metadata"] == NOTE
    assert "type" not in data
    assert "terms" not in data


def test_remote_records_keep_their_links_and_entities_and_the_user_metadata(
    served: tuple[Any, Any, httpx.Client, dict[str, Any]],
) -> None:
    server, layer, _, made = served
    local = layer.get(made["fault"]["id"], user_id=U)
    with RemoteMemory(server.url) as remote:
        far = remote.get(made["fault"]["id"], user_id=U)
        assert links.user_metadata(far.metadata) == NOTE
        assert links.link_entries(far) == links.link_entries(local)
        assert links.entities_of(far) == links.entities_of(local)
        context = remote.recall("what fixed E-217?", user_id=U)
        assert {m.record.id for m in context.memories} >= {made["fix"]["id"]}
        assert all(m.record.content and m.record.kind for m in context.memories)


def test_answers_of_a_server_before_the_one_shape_are_still_read() -> None:
    """RemoteMemory against an older server: memories nested under "record", bookkeeping inside metadata."""
    old = {
        "id": "m1",
        "user_id": U,
        "agent_id": None,
        "kind": "factual",
        "content": "Line 3 faults.",
        "metadata": {"ticket": "OPS-17", "_kioko": {"entities": ["line 3"]}},
        "terms": ["t:line"],
        "session_id": None,
        "created_at": 1.0,
        "updated_at": 1.0,
        "version": 1,
    }
    assert links.entities_of(record_in(old)) == ["line 3"]
    assert record_in(old).terms == ["t:line"]
    context = context_in(
        {
            "query": "q",
            "text": "t",
            "memories": [{"record": old, "score": 0.5, "signals": {"bm25": 1.0}, "section": "memories"}],
            "links": [],
        }
    )
    assert context.memories[0].record.id == "m1"
    assert context.memories[0].score == 0.5
    assert related_in({"record": old, "score": 0.4, "path": []}).record.content == "Line 3 faults."


def test_the_api_document_describes_the_one_shape() -> None:
    """The OpenAPI models name exactly the fields memory_view writes (a field added to one shows in the other)."""
    from kioko.http import schemas

    assert list(schemas.RecordOut.model_fields) == list(MEMORY_FIELDS)
    assert set(schemas.RecalledOut.model_fields) == set(MEMORY_FIELDS) | {"score", "signals", "section"}
    assert set(schemas.RelatedOut.model_fields) == set(MEMORY_FIELDS) | {"score", "path"}
