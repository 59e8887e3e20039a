"""The privacy drill (issue 23): a scripted conversation plants 40 fake secrets of different formats through
every entry point Kioko has - the library (add, update, typed managers, manage, record_turn, learn, links,
entity triples, working memory, profile, session and memory ids, metadata), the REST service (a real uvicorn
server on loopback, with a webhook receiver on loopback), the MCP server and the CLI - and then looks for
every secret's bytes everywhere: every table and file of the store (the SQLite file and its WAL, a dump of
every PostgreSQL table and the database's files, the Qdrant local files and payloads), exports, the events
the library emitted, the webhook bodies, every log line at DEBUG, the CLI's and the service's output and
every error message. Zero bytes must be found, on memory, SQLite, PostgreSQL and Qdrant local.

A control word written as an ordinary memory must be found in each of those places that keeps text (the
search is able to find), so the drill cannot pass by looking nowhere.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from privacy_drill_support import Forge, Secret, files_under, found_in, needles_of, strings_in
from services import store_unavailable
from typer.testing import CliRunner

import kioko
from kioko.api.exchange import export_lines
from kioko.cli import app as cli
from kioko.http import create_app
from kioko.http.live import LiveServer
from kioko_core.errors import KiokoError
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.privacy.secrets import DropSecrets
from kioko_core.store import Scope

STORE_NAMES = ("memory", "sqlite", "postgresql", "qdrant-local")
U = "maya"
SESSION = "c1"
OWN_AGENTS = (None, "@sessions", "@graph", "@webhooks", "@maintenance")


@pytest.fixture(params=STORE_NAMES)
def matrix_store(request: pytest.FixtureRequest) -> str:
    return request.param


class Receiver:
    """A webhook receiver on a loopback port: keeps every body it is sent."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802  (the http.server name)
                owner.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Where:
    """What the drill saw, by place: every text it must search."""

    def __init__(self) -> None:
        self.texts: dict[str, list[str]] = {}

    def add(self, place: str, text: Any) -> None:
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        self.texts.setdefault(place, []).append(text if isinstance(text, str) else json.dumps(text, default=str))

    def joined(self, place: str) -> str:
        return "\n".join(self.texts.get(place, []))


def refused(where: Where, place: str, call: Callable[[], Any]) -> None:
    """``call`` must raise a KiokoError (a secret refused); its message is kept to be searched."""
    try:
        result = call()
    except KiokoError as error:
        where.add("errors", f"{type(error).__name__}: {error}")
        return
    raise AssertionError(f"{place}: a secret was accepted: {result!r}")


def reported(where: Where, report: Any) -> None:
    """A managed turn's report: every op holding a secret skipped, the report kept to be searched."""
    where.add("reports", report.to_dict())
    where.add("reports", report.summary())
    assert report.ops or report.skipped, report.summary()


# --------------------------------------------------------------------------- the store under test


def _store_url(request: pytest.FixtureRequest, name: str, tmp_path: Path) -> str:
    if name == "memory":
        return "memory://"
    if name == "sqlite":
        return f"sqlite:///{tmp_path / 'drill.db'}"
    if name == "qdrant-local":
        return f"qdrant+local:///{tmp_path / 'qdrant'}"
    service = request.getfixturevalue("postgres_service")
    if not service.available:
        store_unavailable("postgresql", service.how)
    import services

    return services.postgres_database(service, "kioko_privacy")


def _postgres_dump(url: str) -> tuple[str, list[Path]]:
    """Every row of every table of the database as text, and the database's own files (after a checkpoint)."""
    import psycopg
    from psycopg import sql

    rows: list[str] = []
    with psycopg.connect(url, autocommit=True) as connection:
        tables = connection.execute(
            "SELECT table_schema, table_name FROM information_schema.tables "
            "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'"
        ).fetchall()
        assert tables, "the PostgreSQL store made no tables"
        for schema, table in tables:
            query = sql.SQL("SELECT t::text FROM {}.{} AS t").format(sql.Identifier(schema), sql.Identifier(table))
            rows.extend(row[0] for row in connection.execute(query))
        files: list[Path] = []
        try:
            connection.execute("CHECKPOINT")
            data = connection.execute("SHOW data_directory").fetchone()[0]
            oid = connection.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()[0]
            files = list(files_under(Path(data) / "base" / str(oid)))
        except psycopg.Error:
            files = []  # a server we may not CHECKPOINT or read: the dump above stands alone
    return "\n".join(rows), files


def _store_contents(layer: MemoryLayer, name: str, url: str, tmp_path: Path) -> dict[str, str]:
    """The store's whole content by place: every record of every scope of the user, the raw files."""
    found = {
        "records": "\n".join(
            record.model_dump_json(exclude={"embedding"})
            for agent in OWN_AGENTS
            for record in layer.store.scan(Scope(U, agent))
        )
    }
    if name == "memory":
        found["store objects"] = "\n".join(strings_in(layer.store))
    if name == "postgresql":
        dump, files = _postgres_dump(url)
        found["postgresql dump"] = dump
        if files:  # a server whose files we may not read (not ours, no CHECKPOINT right): the dump stands alone
            found["postgresql files"] = "\n".join(p.read_bytes().decode("utf-8", "replace") for p in files)
    if name == "qdrant-local":
        client = layer.store._client  # type: ignore[attr-defined]
        payloads = []
        for collection in client.get_collections().collections:
            offset = None
            while True:
                points, offset = client.scroll(collection.name, limit=1000, offset=offset, with_payload=True)
                payloads.extend(json.dumps(p.payload, default=str) for p in points)
                if offset is None:
                    break
        found["qdrant payloads"] = "\n".join(payloads)
    if name in ("sqlite", "qdrant-local"):
        root = tmp_path / ("qdrant" if name == "qdrant-local" else "")
        files = list(files_under(root)) if name == "qdrant-local" else sorted(tmp_path.glob("drill.db*"))
        found[f"{name} files"] = "\n".join(p.read_bytes().decode("utf-8", "replace") for p in files)
    return found


# --------------------------------------------------------------------------- the drill


def _plant_library(layer: MemoryLayer, plain: MemoryLayer, take: Callable[..., Secret], where: Where) -> None:
    """The library's entry points, each given the next secret."""
    control = layer.add("Project codename Wolframite ships in March.", user_id=U, session_id=SESSION)
    other = layer.add("The billing service moved to Frankfurt last week.", user_id=U, session_id=SESSION)
    refused(where, "add", lambda: layer.add(take().text, user_id=U))
    refused(where, "add metadata", lambda: layer.add("A note.", user_id=U, metadata={"note": take().text}))
    refused(where, "metadata key", lambda: layer.add("A note.", user_id=U, metadata={take(alone=True).needles[0]: 1}))
    refused(where, "add session id", lambda: layer.add("A note.", user_id=U, session_id=take(alone=True).needles[0]))
    refused(where, "add id", lambda: layer.add("A note.", user_id=U, id="m-" + take(alone=True).needles[0]))
    refused(where, "add user id", lambda: layer.add("A note.", user_id="u-" + take(alone=True).needles[0]))
    refused(where, "update content", lambda: layer.update(other.id, user_id=U, content=take().text))
    refused(where, "update metadata", lambda: layer.update(other.id, user_id=U, metadata={"src": take().text}))
    refused(where, "add_many", lambda: layer.add_many(["A fine note.", take().text], user_id=U))
    refused(where, "goal", lambda: layer.goals.add(take().text, user_id=U))
    refused(where, "knowledge", lambda: layer.knowledge.add(take().text, user_id=U))
    refused(where, "instruction", lambda: layer.instructions.add(take().text, user_id=U))
    refused(where, "decision", lambda: layer.decisions.add("Use Postgres", rationale=take().text, user_id=U))
    refused(where, "working", lambda: layer.working.set("creds", take().text, user_id=U, session_id=SESSION))
    refused(where, "profile", lambda: layer.profile.set("api_credentials", take().text, user_id=U))
    refused(where, "link why", lambda: layer.graph.link(control.id, other.id, why=take().text, user_id=U))
    refused(where, "triple", lambda: layer.graph.add("maya", "holds", take().text, user_id=U))
    refused(
        where,
        "turn session id",
        lambda: layer.record_turn("Hello.", "Hi.", user_id=U, session_id=take(alone=True).needles[0]),
    )
    reported(where, layer.manage(f"Remember this: {take().text}", user_id=U, session_id=SESSION))
    reported(where, layer.manage(take().text, user_id=U, session_id=SESSION, dry_run=True))
    reported(where, layer.record_turn(take().text, "I will not keep that.", user_id=U, session_id=SESSION))
    reported(where, layer.record_turn("We ship on Friday.", f"Noted; {take().text}", user_id=U, session_id=SESSION))
    reported(
        where,
        layer.learn(
            [{"role": "user", "content": take().text}, {"role": "assistant", "content": "ok"}],
            user_id=U,
            session_id=SESSION,
        ),
    )
    reported(where, plain.learn([{"role": "user", "content": take().text}], user_id=U, session_id=SESSION))
    layer.end_session(SESSION, user_id=U)
    secret_session = take(alone=True).needles[0]
    assert layer.end_session(secret_session, user_id=U) is None  # no such session: nothing to wrap up, nothing kept
    layer.maintain(user_id=U)


def _plant_service(layer: MemoryLayer, take: Callable[..., Secret], where: Where, receiver: Receiver) -> None:
    """The REST service's entry points, over a real server on loopback."""
    app = create_app(layer, webhook_hosts={"127.0.0.1"})
    with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=30) as api:
        hook = api.post("/v1/webhooks", json={"url": receiver.url, "user_id": U})
        assert hook.status_code == 201, hook.text
        made = api.post("/v1/memories", json={"content": "The Lisbon office opens in May.", "user_id": U})
        assert made.status_code == 201, made.text
        memory_id = made.json()["id"]
        calls = [
            ("post", "/v1/memories", {"content": take().text, "user_id": U}, 422),
            (
                "post",
                "/v1/memories/batch",
                {"items": [{"content": "Fine."}, {"content": take().text}], "user_id": U},
                422,
            ),
            ("patch", f"/v1/memories/{memory_id}", {"metadata": {"x": take().text}, "user_id": U}, 422),
            ("post", "/v1/turns", {"user": take().text, "reply": "ok", "user_id": U, "session_id": "r1"}, 200),
            ("post", "/v1/manage", {"text": take().text, "user_id": U, "session_id": "r1"}, 200),
            ("post", "/v1/learn", {"messages": take().text, "user_id": U, "session_id": "r1"}, 200),
            ("post", f"/v1/memories/{memory_id}/links", {"target": memory_id, "why": take().text, "user_id": U}, 422),
            (
                "post",
                "/v1/entities/triples",
                {"subject": "maya", "relation": "has", "object": take().text, "user_id": U},
                422,
            ),
            ("get", f"/v1/memories/m-{take(alone=True).needles[0]}", None, 404),
            ("post", f"/v1/sessions/s-{take(alone=True).needles[0]}/end", {"user_id": U}, 200),
        ]
        for method, path, body, status in calls:
            response = api.request(method.upper(), path, json=body, params={"user_id": U} if method == "get" else None)
            where.add("service output", response.text)
            assert response.status_code == status, (path, response.status_code, response.text)
        deadline = time.monotonic() + 60
        while len(receiver.bodies) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # the last deliveries of the calls above


def _plant_mcp(layer: MemoryLayer, take: Callable[..., Secret], where: Where) -> None:
    """The MCP server's tools, through the SDK's own client."""
    from mcp import Client

    from kioko.mcp_server import create_server

    server = create_server(layer, U)
    first = layer.add("The Oslo team owns the mobile app.", user_id=U)
    second = layer.add("The mobile app ships every second Tuesday.", user_id=U)

    async def script() -> None:
        async with Client(server) as client:
            for name, arguments in (
                ("add_memory", {"content": take().text}),
                ("learn_from_conversation", {"messages": take().text, "session_id": "m1"}),
                ("link_memories", {"source_id": first.id, "target_id": second.id, "why": take().text}),
            ):
                try:
                    called = await client.call_tool(name, arguments)
                except Exception as error:  # an error the SDK raises instead of a result: its text is output
                    where.add("mcp output", f"{type(error).__name__}: {error}")
                    continue
                where.add("mcp output", [c.model_dump() for c in called.content])
                where.add("mcp output", called.structured_content)

    anyio.run(script)


def _plant_cli(url: str, take: Callable[..., Secret], where: Where) -> None:
    """The CLI: an add refused, a managed turn; with its output searched."""
    runner = CliRunner()
    added = runner.invoke(cli, ["add", take().text, "--store", url, "--user", U])
    assert added.exit_code == 2, added.output
    where.add("cli output", added.output)
    managed = runner.invoke(cli, ["manage", take().text, "--store", url, "--user", U, "--json"])
    assert managed.exit_code == 0, managed.output
    where.add("cli output", managed.output)
    if url != "memory://":  # memory:// lives as long as one command: nothing to export
        exported = runner.invoke(cli, ["export", "--user", U, "--store", url])
        assert exported.exit_code == 0, exported.output
        assert "Wolframite" in exported.output
        where.add("cli output", exported.output)


def test_no_byte_of_a_planted_secret_is_found_anywhere(
    request: pytest.FixtureRequest, matrix_store: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    secrets = Forge().secrets()
    assert len(secrets) >= 30
    queue = list(secrets)
    used: list[Secret] = []

    def take(alone: bool = False) -> Secret:
        """The next secret; ``alone``: one whose token is a secret without the sentence (for an id)."""
        secret = next(s for s in queue if not alone or DropSecrets().check(s.needles[0]))
        queue.remove(secret)
        used.append(secret)
        return secret

    url = _store_url(request, matrix_store, tmp_path)
    where = Where()
    receiver = Receiver()
    caplog.set_level(logging.DEBUG)
    layer = kioko.intelligent(url, auto_graph=True)
    plain = kioko.MemoryLayer(layer.store, auto_link=True)  # a layer without intelligence over the same store
    events: list[dict[str, Any]] = []
    layer.on("*", events.append)
    try:
        _plant_library(layer, plain, take, where)
        _plant_service(layer, take, where, receiver)
        _plant_mcp(layer, take, where)
        where.add("export", "".join(export_lines(layer, U)))
        stored = _store_contents(layer, matrix_store, url, tmp_path)
    finally:
        receiver.close()
        layer.close()
    if matrix_store in ("sqlite", "qdrant-local"):  # the files again once closed (a WAL checkpointed, or not)
        stored[f"{matrix_store} files (closed)"] = _store_contents_closed(matrix_store, tmp_path)
    _plant_cli(url, take, where)
    for kept in stored.items():
        where.add(*kept)
    where.add("events", events)
    where.add("webhook bodies", [body.decode() for body in receiver.bodies])
    where.add("logs", caplog.text)
    where.add("logs", [record.getMessage() for record in caplog.records])

    # every secret was planted, the search can find what the store keeps, and no secret is anywhere
    assert len(used) == len(secrets), f"{len(secrets) - len(used)} secrets never planted"
    assert receiver.bodies, "no event was emitted or delivered: nothing was looked at"
    assert events, "no event was emitted or delivered: nothing was looked at"
    for place in [*stored, "export"]:
        assert "wolframite" in where.joined(place).lower(), f"the control word is not in {place}: nothing was searched"
    needles = needles_of(used)
    leaks = {place: found_in(where.joined(place), needles) for place in where.texts}
    assert {place: found for place, found in leaks.items() if found} == {}


def _store_contents_closed(name: str, tmp_path: Path) -> str:
    files = list(files_under(tmp_path / "qdrant")) if name == "qdrant-local" else sorted(tmp_path.glob("drill.db*"))
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in files)


def test_the_drill_can_find_a_secret() -> None:
    """The search itself: a secret written where the drill looks is found, whole and by its part."""
    secret = Forge(7).secrets()[0]
    needles = needles_of([secret])
    assert found_in(f"noise {secret.needles[0]} noise", needles)
    assert found_in(f"noise {secret.needles[1].upper()} noise".encode(), needles)
    assert not found_in("noise only", needles)
    assert "x" in "".join(strings_in({"a": [1.5, ("x",)]}))
