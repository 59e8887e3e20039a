"""The operations table (kioko/api/operations.py): every call of kioko.Memory has its REST operation, the
server serves each one, and the HTTP clients take their verbs and paths from it (none written by hand)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any, Protocol

import pytest

import kioko
from kioko.api import operations
from kioko.http import call_routes, create_app, schemas
from kioko.protocol import Entities, Memory, MemoryGraph
from kioko.remote.async_client import AsyncRemoteEntities, AsyncRemoteGraph, AsyncRemoteMemory
from kioko.remote.calls import Calls, build_call, manager_methods, missing_operations
from kioko.remote.client import RemoteEntities, RemoteGraph, RemoteMemory
from kioko_core.store import Record

ROOT = Path(__file__).resolve().parents[2]


def _calls_without_an_operation(memory: type, graph: type, entities: type) -> list[str]:
    """``memory``'s public members (and its graph's and entity graph's calls) that have neither a route nor a
    client-side reason."""
    names = [n for n in dir(memory) if not n.startswith("_")]
    names += [f"graph.{n}" for n in dir(graph) if not n.startswith("_")]
    names += [f"entities.{n}" for n in dir(entities) if not n.startswith("_")]
    managers = set(operations.MANAGERS) | {"lessons", "graph", "entities"}
    missing = []
    for name in names:
        if name in managers or name in operations.CLIENT_SIDE:
            continue
        try:
            operations.route(name)
        except KeyError:
            missing.append(name)
    return missing


def test_every_call_of_the_protocol_has_an_operation() -> None:
    assert _calls_without_an_operation(Memory, MemoryGraph, Entities) == []
    assert missing_operations() == []  # the typed managers' calls, from the managers' table


def test_a_call_without_an_operation_is_found() -> None:
    class Grown(Memory, Protocol):
        def frobnicate(self, memory_id: str) -> None: ...

    class GrownGraph(MemoryGraph, Protocol):
        def untangle(self) -> None: ...

    assert _calls_without_an_operation(Grown, GrownGraph, Entities) == ["frobnicate", "graph.untangle"]


def test_the_server_serves_every_operation() -> None:
    with kioko.connect("memory://") as layer:
        spec: dict[str, Any] = create_app(layer).openapi()
    served = {(verb.upper(), path) for path, item in spec["paths"].items() for verb in item}
    for route in operations.MEMORY_ROUTES:
        # the served path names its parameters as the route does, or by their own names: compare the shapes
        shape = re.sub(r"\{[^}]+\}", "{}", route.path)
        assert any(verb == route.verb and re.sub(r"\{[^}]+\}", "{}", p) == shape for verb, p in served), route


def test_the_clients_take_every_path_from_the_table() -> None:
    for module in ("client.py", "async_client.py", "calls.py", "events.py"):
        text = (ROOT / "kioko" / "remote" / module).read_text(encoding="utf-8")
        assert re.findall(r"[\"']/v1/", text) == [], f"kioko/{module} writes a /v1 path by hand"


CLIENTS = (
    (RemoteMemory, ""),
    (RemoteGraph, "graph."),
    (RemoteEntities, "entities."),
    (AsyncRemoteMemory, ""),
    (AsyncRemoteGraph, "graph."),
    (AsyncRemoteEntities, "entities."),
)
CLIENT_MEMBERS = {"request", "close", "scoped", "scope", "intelligence", "export_lines", "import_lines"}
"""The clients' own members: the connection, views, and the calls the table marks composed."""


def _hand_written(client: type, prefix: str) -> list[str]:
    """Public calls of ``client`` not derived from the table: neither a sender of their operation nor a call
    the table says the client composes."""
    found = []
    for name, member in vars(client).items():
        if name.startswith("_") or not callable(member) or isinstance(member, type):
            continue
        call = prefix + name
        if getattr(member, "__operation__", None) == call:
            continue
        composed = call in operations.CLIENT_COMPOSED or name in CLIENT_MEMBERS and prefix == ""
        try:
            composed = composed or bool(operations.route(call).composed)
        except KeyError:
            pass
        if not composed:
            found.append(call)
    return found


def test_every_remote_method_is_derived_from_its_operation() -> None:
    for client, prefix in CLIENTS:
        assert _hand_written(client, prefix) == [], client.__name__
    # and every derived operation has its method on both clients
    for route in operations.MEMORY_ROUTES:
        if route.composed:
            continue
        owner, _, name = route.call.rpartition(".")
        for client, prefix in CLIENTS:
            if prefix.rstrip(".") == owner:
                assert getattr(getattr(client, name), "__operation__", None) == route.call, (client, name)


def test_a_hand_written_remote_method_is_found() -> None:
    class Drifted(RemoteMemory):
        def search(self, query: str, *, user_id: str | None = None) -> list[Any]:
            return []

    assert _hand_written(Drifted, "") == ["search"]


def _underived_routes(app: Any) -> list[str]:
    """The app's /v1 routes that neither an operation of the table derived nor the table lists as the service's own."""
    from fastapi.routing import APIRoute

    routed = {(r.verb, r.path): r.call for r in operations.MEMORY_ROUTES}
    managers = {(op.verb, op.url) for op in operations.OPERATIONS}
    found = []
    for route in app.routes:
        if not isinstance(route, APIRoute) or not route.path.startswith("/v1/"):
            continue
        for verb in route.methods:
            call = routed.get((verb, route.path))
            if (verb, route.path) in managers or route.path in operations.SERVICE_ONLY:
                continue
            if call is None:
                found.append(f"{verb} {route.path}")
            elif not operations.route(call).composed and call_routes.SERVED.get(call) != route.name:
                found.append(f"{verb} {route.path}")
    return found


def test_every_route_is_derived_from_its_operation() -> None:
    with kioko.connect("memory://") as layer:
        app = create_app(layer)
        assert _underived_routes(app) == []

        @app.get("/v1/frobnicate")
        def frobnicate() -> dict[str, Any]:
            return {}

        @app.get("/v1/memories/{memory_id}/shadow")
        def shadow(memory_id: str) -> dict[str, Any]:
            return {}

        assert _underived_routes(app) == ["GET /v1/frobnicate", "GET /v1/memories/{memory_id}/shadow"]


class Grown(Memory, Protocol):
    """The protocol with a new keyword on ``add`` and on ``get`` (as a change to kioko/protocol.py would add)."""

    def add(
        self,
        content: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        memory_type: str = "factual",
        metadata: dict[str, Any] | None = None,
        created_at: float | None = None,
        id: str | None = None,
        embedding: Any = None,
        importance: float | None = None,
    ) -> Record: ...

    def get(
        self, memory_id: str, *, user_id: str | None = None, agent_id: str | None = None, fresh: bool = False
    ) -> Record: ...


def test_a_new_keyword_appears_in_the_request_model_the_routes_and_the_clients() -> None:
    written_in = {**operations.protocols(), "": Grown}
    # the REST request model (and so the OpenAPI schema) has every keyword of the method
    model = schemas.request_model("add", written_in=written_in)
    assert set(model.model_fields) == set(operations.signature("add", written_in=written_in).parameters)
    assert model.model_fields["importance"].default is None
    assert "importance" not in schemas.request_model("add").model_fields
    # a GET's keyword becomes a query parameter of the route
    assert [(p.wire, p.where) for p in operations.params("get", written_in=written_in)] == [
        ("memory_id", "path"),
        ("user_id", "query"),
        ("agent_id", "query"),
        ("fresh", "query"),
    ]
    # both clients send it (one request builder), under its name, where the row says
    calls = Calls()
    sent = build_call(calls, "add", ("hi",), {"user_id": "u", "importance": 0.5}, written_in=written_in)
    assert (sent.verb, sent.path, sent.body) == (
        "POST",
        "/v1/memories",
        {"content": "hi", "user_id": "u", "importance": 0.5},
    )
    got = build_call(calls, "get", ("m1",), {"user_id": "u", "fresh": True}, written_in=written_in)
    assert (got.verb, got.path, got.params) == ("GET", "/v1/memories/m1", {"user_id": "u", "fresh": True})
    # the current protocol refuses it, as the library does
    with pytest.raises(TypeError, match="importance"):
        build_call(calls, "add", ("hi",), {"user_id": "u", "importance": 0.5})


def test_every_request_model_has_every_parameter_of_its_call() -> None:
    for route in operations.MEMORY_ROUTES:
        if route.composed or not route.in_body:
            continue
        sig = operations.signature(route.call)
        carried = {p.wire for p in operations.params(route.call)}
        fields = set(schemas.request_model(route.call).model_fields) - ({route.legacy} if route.legacy else set())
        path = set(route.path_params)
        assert fields == carried - path, route.call
        assert {p.name for p in operations.params(route.call)} == set(sig.parameters) - set(route.local), route.call


def test_the_managers_declarations_are_rendered_from_the_tables() -> None:
    """The managers' properties (kioko_core/layer/declared_managers.py) and AsyncRemoteMemory's managers
    (kioko/remote/async_managers.py) are what the kinds registry and the managers' table render to."""
    from managers_source import RENDERED

    for module, render in RENDERED.items():
        assert module.read_text(encoding="utf-8") == render(), "run: python tests/managers_source.py --write"


def test_a_drifted_declaration_is_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: a registry with one more row renders another property than the module holds."""
    import dataclasses

    import managers_source

    from kioko_core.kinds import registry

    extra = dataclasses.replace(registry.KINDS[0], name="note", manager="notes", manager_aliases=())
    monkeypatch.setattr(managers_source, "KINDS", (*registry.KINDS, extra))
    monkeypatch.setitem(managers_source.MANAGERS, "notes", managers_source.MANAGERS["facts"])
    rendered = managers_source.render_declared()
    assert "def notes(self) -> Facts:" in rendered
    assert managers_source.DECLARED.read_text(encoding="utf-8") != rendered


def test_the_async_managers_have_the_library_signatures() -> None:
    from kioko.remote.async_managers import MANAGERS

    for name, manager in MANAGERS.items():
        library = operations.manager_class(name)
        for method, function in manager_methods(name).items():
            assert inspect.signature(getattr(manager, method)) == inspect.signature(function), f"{name}.{method}"
            assert inspect.iscoroutinefunction(getattr(manager, method)), f"{name}.{method}"
        assert manager.__name__ == f"Async{library.__name__}"


def test_every_mcp_tool_takes_its_parameters_from_its_operation() -> None:
    pytest.importorskip("mcp", reason="the MCP SDK is the mcp extra")
    from mcp_support import run

    from kioko import mcp_server

    with kioko.connect("memory://") as layer:

        async def listed(client: Any) -> Any:
            return await client.list_tools()

        tools = {tool.name: tool for tool in run(mcp_server.create_server(layer, "u"), listed).tools}
    assert set(tools) == set(mcp_server.DERIVED_TOOLS) | set(mcp_server.COMPOSED_TOOLS)
    for name, call in mcp_server.DERIVED_TOOLS.items():
        table = {p.name: p for p in operations.params(call)}
        arguments = tools[name].input_schema["properties"]
        # each argument is a parameter of the call (under the tool's own name where it has one)
        renamed = {"source_id": "a", "target_id": "b"}
        assert {renamed.get(a, a) for a in arguments} <= set(table), name


def test_the_cli_commands_of_one_operation_take_its_parameters() -> None:
    import typer.main

    from kioko.cli import app as cli_app
    from kioko.cli.one_call import DERIVED_COMMANDS

    commands = typer.main.get_command(cli_app).commands  # type: ignore[attr-defined]
    assert {"related", "trace", "explain"} <= set(DERIVED_COMMANDS)
    assert {"delete", "plan", "end_session"} <= set(DERIVED_COMMANDS)
    for name, (call, renamed) in DERIVED_COMMANDS.items():
        table = {renamed.get(p.name, p.name): p for p in operations.params(call)}
        for option in commands[name.replace("_", "-")].params:
            found = table.get(option.name)
            if found is None:
                continue  # what the shell adds: --user, --store, --json ...
            if found.default is not ...:
                assert option.default == found.default, (name, option.name)
            if "le" in found.field:
                assert option.max == found.field["le"], (name, option.name)
