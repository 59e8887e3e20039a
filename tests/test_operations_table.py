"""The operations table (kioko/service/surface.py): every call of kioko.Memory has its REST operation, the
server serves each one, and the HTTP clients take their verbs and paths from it (none written by hand)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Protocol

import kioko
from kioko.protocol import Entities, Memory, MemoryGraph
from kioko.remote_calls import missing_operations
from kioko.service import create_app, surface

ROOT = Path(__file__).resolve().parent.parent


def _calls_without_an_operation(memory: type, graph: type, entities: type) -> list[str]:
    """``memory``'s public members (and its graph's and entity graph's calls) that have neither a route nor a
    client-side reason."""
    names = [n for n in dir(memory) if not n.startswith("_")]
    names += [f"graph.{n}" for n in dir(graph) if not n.startswith("_")]
    names += [f"entities.{n}" for n in dir(entities) if not n.startswith("_")]
    managers = set(surface.MANAGERS) | {"lessons", "graph", "entities"}
    missing = []
    for name in names:
        if name in managers or name in surface.CLIENT_SIDE:
            continue
        try:
            surface.route(name)
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
    for route in surface.MEMORY_ROUTES:
        # the served path names its parameters as the route does, or by their own names: compare the shapes
        shape = re.sub(r"\{[^}]+\}", "{}", route.path)
        assert any(verb == route.verb and re.sub(r"\{[^}]+\}", "{}", p) == shape for verb, p in served), route


def test_the_clients_take_every_path_from_the_table() -> None:
    for module in ("remote.py", "remote_async.py", "remote_calls.py", "remote_events.py"):
        text = (ROOT / "kioko" / module).read_text(encoding="utf-8")
        assert re.findall(r"[\"']/v1/", text) == [], f"kioko/{module} writes a /v1 path by hand"


def test_each_graph_and_entity_call_names_its_route() -> None:
    from kioko.remote_calls import ENTITY_CALLS, GRAPH_CALLS, GRAPH_ENTITY_CALLS

    for name in GRAPH_CALLS + GRAPH_ENTITY_CALLS:
        assert surface.route(f"graph.{name}").call.split(".")[0] in ("graph", "entities")
    for name in ENTITY_CALLS:
        assert surface.route(f"entities.{name}").call == f"entities.{name}"
