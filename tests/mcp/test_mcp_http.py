"""``kioko mcp --transport http`` as a user runs it: a subprocess on a free loopback port, reached with the SDK's
streamable-HTTP client. With ``--api-keys`` every request needs a key and the key names the user."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("mcp", reason="the MCP tests need the mcp extra: pip install 'kioko[mcp]'")
import httpx2  # noqa: E402  (the SDK's HTTP client, installed with it)
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp_support import TOOLS, result  # noqa: E402
from ports import free_port, stop_process  # noqa: E402

import kioko  # noqa: E402
from kioko.api.auth import add_key  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
STARTUP = 60.0


@contextmanager
def kioko_mcp(*args: str) -> Iterator[str]:
    """``python -m kioko mcp --transport http ...`` until the block ends; yields the /mcp URL."""
    port = free_port()
    command = [sys.executable, "-m", "kioko", "mcp", "--transport", "http", "--port", str(port), *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + STARTUP
        while True:
            if process.poll() is not None:
                raise AssertionError(f"kioko mcp exited: {process.communicate()[1].decode()[-2000:]}")
            try:
                httpx.get(url, timeout=1.0)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise AssertionError("kioko mcp did not start listening") from None
                time.sleep(0.1)
        yield url
    finally:
        stop_process(process)


def session(url: str, script: Any, key: str | None = None) -> Any:
    """Run ``script(client)`` with the SDK's streamable-HTTP client, sending ``key`` as a bearer token."""

    async def main() -> Any:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                return await script(client)

    return anyio.run(main)


@pytest.fixture
def store(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'mcp.db'}"
    with kioko.connect(url, auto_link=True) as memory:
        memory.add("Line 3 keeps faulting with error E-217.", user_id="kumar", memory_type="episodic")
        memory.add("Asha's pump P-3 leaks at the seal on line 5.", user_id="asha", memory_type="episodic")
    return url


def test_the_http_transport_lists_the_tools_and_calls_one(store: str) -> None:
    with kioko_mcp("--store", store, "--user", "kumar") as url:

        async def script(client: Any) -> Any:
            tools = {t.name for t in (await client.list_tools()).tools}
            context = result(await client.call_tool("get_memory_context", {"query": "line 3 fault E-217"}))
            return tools, context

        tools, context = session(url, script)
    assert tools == TOOLS
    assert "E-217" in context
    assert "P-3" not in context


def test_with_api_keys_the_key_names_the_user_and_no_key_is_refused(store: str, tmp_path: Path) -> None:
    keys = tmp_path / "keys.json"
    kumar = add_key(keys, name="kumar-laptop", users=["kumar"])
    asha = add_key(keys, name="asha-laptop", users=["asha"])
    admin = add_key(keys, name="ops", admin=True)
    reader = add_key(keys, name="kumar-dashboard", users=["kumar"], read_only=True)
    with kioko_mcp("--store", store, "--api-keys", str(keys)) as url:
        for headers in ({}, {"Authorization": "Bearer kk_not-a-key"}):
            refused = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=headers)
            assert refused.status_code == 401
            assert refused.json()["error"]["type"] == "Unauthorized"
        # the tools write: a read-only key is refused whole
        read_only = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers={"X-API-Key": reader})
        assert read_only.status_code == 403
        assert "read-only" in read_only.json()["error"]["message"]
        # an admin key may act for anyone, so this server (started without --user) cannot tell whom: 403
        chosen = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers={"X-API-Key": admin})
        assert chosen.status_code == 403
        assert "--user" in chosen.json()["error"]["message"]

        async def mine(client: Any) -> Any:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            added = result(await client.call_tool("add_memory", {"content": "The encoder cable was loose."}))
            found = result(await client.call_tool("search_memories", {"query": "line fault leaks seal cable"}))
            return added, found

        added, found = session(url, mine, kumar)
        assert added["user_id"] == "kumar"
        assert {m["user_id"] for m in found} == {"kumar"}
        assert not any("P-3" in m["content"] for m in found)

        async def theirs(client: Any) -> Any:
            found = result(await client.call_tool("search_memories", {"query": "line fault leaks seal cable"}))
            taken = await client.call_tool("forget_memory", {"memory_id": added["id"]})
            return found, taken

        found, taken = session(url, theirs, asha)
        assert [m["user_id"] for m in found] == ["asha"]
        assert "P-3" in found[0]["content"]
        assert taken.is_error  # kumar's memory is not asha's to delete
        assert "no memory" in taken.content[0].text
    with kioko.connect(store) as memory:
        assert memory.get(added["id"], user_id="kumar").content == "The encoder cable was loose."

    with kioko_mcp("--store", store, "--api-keys", str(keys), "--user", "asha") as url:
        # with --user the admin key acts for that user; a key for another user is refused
        async def as_admin(client: Any) -> Any:
            return result(await client.call_tool("search_memories", {"query": "pump seal"}))

        assert [m["user_id"] for m in session(url, as_admin, admin)] == ["asha"]
        wrong = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers={"X-API-Key": kumar})
        assert wrong.status_code == 403
        assert json.loads(wrong.text)["error"]["type"] == "Forbidden"


@pytest.mark.parametrize(
    "args,says",
    [
        (["--transport", "stdio", "--api-keys", "keys.json", "--user", "kumar"], "--api-keys is for --transport http"),
        (["--transport", "http", "--host", "0.0.0.0", "--user", "kumar"], "pass --api-keys FILE"),
        (["--transport", "http"], "Missing option '--user'"),
    ],
)
def test_mcp_usage_errors(store: str, args: list[str], says: str) -> None:
    from typer.testing import CliRunner

    from kioko.cli import app

    outcome = CliRunner().invoke(app, ["mcp", "--store", store, *args], env={"KIOKO_USER": "", "KIOKO_API_KEYS": ""})
    assert outcome.exit_code == 2, outcome.output
    assert says in outcome.stderr, outcome.output
