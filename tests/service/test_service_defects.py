"""Regressions of issue 21's service defects, each against a live server on loopback (and the CLI and MCP
where the same core answer reaches them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_support import live_service
from typer.testing import CliRunner

import kioko
from kioko.cli import app as cli_app
from kioko.remote.client import RemoteMemory
from kioko_core.kinds.registry import MEMORY_TYPES

U = "kumar"


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Any, httpx.Client]]:
    with live_service("memory://") as (server, layer):
        with httpx.Client(base_url=server.url, timeout=30) as client:
            yield server, client


def _add(api: httpx.Client, content: str, **fields: Any) -> dict[str, Any]:
    made = api.post("/v1/memories", json={"content": content, "user_id": U, **fields})
    assert made.status_code == 201, made.text
    return made.json()


def test_deleting_a_missing_memory_is_a_404_with_one_clear_message(served: tuple[Any, httpx.Client]) -> None:
    server, api = served
    made = _add(api, "The spare fuses are in drawer 4.")
    assert api.delete(f"/v1/memories/{made['id']}", params={"user_id": U}).json() == {"deleted": True}
    again = api.delete(f"/v1/memories/{made['id']}", params={"user_id": U})
    assert again.status_code == 404
    error = again.json()["error"]
    assert error["type"] == "MemoryNotFound"
    assert error["message"] == f"no memory {made['id']!r} for user {U!r}"
    # the library's answer for a missing memory is False, over the wire too
    with RemoteMemory(server.url) as remote:
        assert remote.delete(made["id"], user_id=U) is False


def test_an_unknown_kind_filter_is_a_422_naming_the_kinds_and_an_alias_is_read(
    served: tuple[Any, httpx.Client],
) -> None:
    _, api = served
    fact = _add(api, "Line 2 runs at 40 parts a minute.", memory_type="factual")
    refused = api.get("/v1/memories", params={"user_id": U, "kind": "nosuch"})
    assert refused.status_code == 422
    message = refused.json()["error"]["message"]
    assert "nosuch" in message
    assert all(kind in message for kind in MEMORY_TYPES)
    # "fact" is the registry's alias of the stored kind "factual"
    found = api.get("/v1/memories", params={"user_id": U, "kind": "fact"}).json()["items"]
    assert fact["id"] in [m["id"] for m in found]


def test_explain_reports_a_manual_link_between_memories_with_no_evidence(
    served: tuple[Any, httpx.Client], tmp_path: Path
) -> None:
    _, api = served
    fix = _add(api, "Swapped the encoder cable on the packer.")
    fault = _add(api, "Quarterly budget review moved to Friday.")
    made = api.post(
        f"/v1/memories/{fix['id']}/links", json={"target": fault["id"], "type": "resolves", "user_id": U}
    ).json()
    assert made["by"] == "manual"
    for first, second in ((fix, fault), (fault, fix)):  # asked either way round, the link is the same
        explained = api.get(f"/v1/memories/{first['id']}/links/{second['id']}/explain", params={"user_id": U}).json()
        assert explained["linked"] is True, explained
        assert explained["type"] == "resolves", explained
        assert (explained["source"], explained["target"]) == (fix["id"], fault["id"])
        assert explained["score"] == 1.0
        assert explained["signals"]["link_weight"] == 1.0
        assert explained["why"] == "linked by hand"

    # the CLI reads the same core answer
    url = f"sqlite:///{tmp_path / 'explain.db'}"
    with kioko.connect(url, auto_link=True) as layer:
        a = layer.add("Swapped the encoder cable on the packer.", user_id=U)
        b = layer.add("Quarterly budget review moved to Friday.", user_id=U)
        assert not layer.graph.explain(a.id, b.id, user_id=U).linked
        layer.graph.link(a.id, b.id, "resolves", user_id=U)
    shown = CliRunner().invoke(cli_app, ["explain", a.id, b.id, "--user", U, "--store", url])
    assert shown.exit_code == 0, shown.output
    assert "linked as resolves" in shown.stdout
    assert "not linked" not in shown.stdout


def test_not_found_messages_are_not_doubled_in_the_cli_and_mcp(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'missing.db'}"
    kioko.connect(url).close()
    deleted = CliRunner().invoke(cli_app, ["delete", "0123abcd", "--user", U, "--store", url])
    assert deleted.exit_code == 1
    assert deleted.stderr.startswith(f"kioko: no memory '0123abcd' for user {U!r}")
    assert deleted.stderr.count("no memory") == 1

    pytest.importorskip("mcp", reason="the MCP half needs the mcp extra: pip install 'kioko[mcp]'")
    import anyio
    from mcp import Client

    from kioko.mcp_server import create_server

    async def forget() -> Any:
        async with Client(create_server(kioko.connect("memory://"), U)) as client:
            return await client.call_tool("forget_memory", {"memory_id": "0123abcd"})

    answer = anyio.run(forget)
    text = answer.content[0].text
    assert answer.is_error, text
    assert text.count("no memory") == 1, text
    assert "0123abcd" in text, text


def test_the_api_document_says_a_bound_key_may_leave_user_id_out(served: tuple[Any, httpx.Client]) -> None:
    """The gate fills in a bound key's user (tests/service/test_service_keys.py); every user_id the document declares,
    in a query or a body, says so."""
    _, api = served
    spec = api.get("/v1/openapi.json").json()
    described = []
    for item in spec["paths"].values():
        for operation in item.values():
            for param in operation.get("parameters", []):
                if param["name"] == "user_id" and param["in"] == "query":
                    described.append(param.get("description", ""))
    for schema in spec["components"]["schemas"].values():
        if "user_id" in schema.get("properties", {}) and schema.get("title", "").endswith("In"):
            described.append(schema["properties"]["user_id"].get("description", ""))
    assert len(described) > 60
    assert [d for d in described if "bound to one user may leave it out" not in d] == []
