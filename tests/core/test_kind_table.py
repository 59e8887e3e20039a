"""One table of kinds (kioko_core.kinds.registry.KINDS): the other lists are derived from it, and a new kind
is one row.

The subprocess test adds a row to the table before anything reads it (the registry's source, with the
row, is loaded in its place) and checks that the new kind is then stored, aliased, managed, sectioned,
named by the router's operations (with the row's actions), served by REST (its routes and ``GET /v1/kinds``,
which the console reads), taken by the MCP server's ``add_memory`` and by ``kioko add --type``, with no other
change.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import kioko
from kioko_core import kinds
from kioko_core.kinds import registry as kind_registry
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_intelligence import executor, ops

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def test_the_other_lists_are_the_registrys() -> None:
    assert ops.KIND_OF_MEMORY == {info.op: info.name for info in kind_registry.KINDS if info.op}
    assert set(ops.KIND_OF_MEMORY) <= set(ops.OPERATIONS)  # every kind an operation names has its actions
    assert {kinds.MANAGERS[info.manager].__name__ for info in kind_registry.KINDS} == {
        info.manager_class for info in kind_registry.KINDS
    }
    for op_kind, attribute in executor.MANAGER_OF.items():
        assert kind_registry.kind_info(ops.KIND_OF_MEMORY[op_kind]).manager == attribute
    with kioko.connect("memory://") as memory:
        for info in kind_registry.KINDS:
            for name in (info.manager, *info.manager_aliases):
                declared = getattr(MemoryLayer, name, None)
                assert isinstance(declared, property), f"run python tests/managers_source.py --write ({name})"
                assert getattr(memory, name).kind == info.name


ONE_MORE_ROW = textwrap.dedent("""
    import importlib.util, json, sys
    from pathlib import Path

    path = Path("kioko_core/kinds/registry.py")
    source = path.read_text()
    anchor = '    KindInfo("profile",'
    assert source.count(anchor) == 1
    row = '    KindInfo("note", "note", "notes", True, "memories", ("jotting",), manager_class="TextManager", op="note"),\\n'
    spec = importlib.util.spec_from_loader("kioko_core.kinds.registry", loader=None, origin=str(path))
    module = importlib.util.module_from_spec(spec)
    module.__file__, module.__package__ = str(path), "kioko_core"
    import kioko_core  # the package first, so the registry's relative imports resolve
    sys.modules["kioko_core.kinds.registry"] = module
    exec(compile(source.replace(anchor, row + anchor), str(path), "exec"), module.__dict__)

    import kioko
    from kioko_intelligence.ops import KIND_OF_MEMORY, OPERATIONS, split_op
    from kioko_intelligence.language import BASE_IMPORTANCE
    from kioko_core.kinds.registry import LINKABLE_KINDS, canonical_kind, section_of

    with kioko.connect("memory://", auto_link=True) as memory:
        by_manager = memory.notes.add("Kumar deploys the billing service every Friday", user_id="kumar")
        by_alias = memory.add("The billing service deploy by Kumar failed on Friday", memory_type="jotting", user_id="kumar")
        ctx = memory.recall("when does Kumar deploy the billing service?", user_id="kumar")
        out = {
            "stored": [by_manager.kind, by_alias.kind],
            "listed": sorted(r.kind for r in memory.notes.list(user_id="kumar")),
            "canonical": canonical_kind("jotting"),
            "linkable": "note" in LINKABLE_KINDS,
            "section": section_of("note"),
            "op": KIND_OF_MEMORY.get("note"),
            "recalled": sorted(m.record.kind for m in ctx.memories),
            "linked": len(memory.graph.links(by_alias.id, user_id="kumar")),
            # the router's vocabulary: the row's actions, its starting importance
            "actions": list(OPERATIONS.get("note", ())),
            "split": list(split_op("note.update")),
            "importance": BASE_IMPORTANCE.get("note"),
        }

    # REST, and the console, which reads /v1/kinds: a real server on loopback
    sys.path.insert(0, "tests")
    import httpx
    from service_support import live_service

    with live_service("memory://") as (server, _layer):
        kinds = httpx.get(f"{server.url}/v1/kinds").json()
        row = next(k for k in kinds if k["name"] == "note")
        out["rest_kind"] = {key: row[key] for key in ("path", "operation", "colour", "called")}
        added = httpx.post(f"{server.url}/v1/notes", json={"text": "Kumar owns the billing runbook", "user_id": "kumar"})
        out["rest_added"] = [added.status_code, added.json().get("kind")]
        listed = httpx.get(f"{server.url}/v1/notes", params={"user_id": "kumar"}).json()
        out["rest_listed"] = [r["kind"] for r in listed] if isinstance(listed, list) else listed

    # MCP: add_memory takes the new kind (and its alias) as memory_type
    from mcp_support import result, run
    from kioko.mcp_server import create_server

    with kioko.connect("memory://") as memory:
        async def add(client):
            return result(await client.call_tool("add_memory", {"content": "Kumar pages the on-call", "memory_type": "jotting"}))
        out["mcp_added"] = run(create_server(memory, "kumar"), add)["kind"]

    # the CLI: kioko add --type note, and its help names the kind
    from typer.testing import CliRunner
    from kioko.cli import app

    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        store = ["--store", f"sqlite:///{folder}/cli.db", "--user", "kumar"]
        cli = CliRunner().invoke(app, ["add", "Kumar reviews deploys", "--type", "note", *store, "--json"])
        out["cli_added"] = [cli.exit_code, json.loads(cli.stdout)["kind"] if cli.exit_code == 0 else cli.output]
    print(json.dumps(out))
""")


def test_a_new_kind_is_one_row() -> None:
    result = subprocess.run(
        [sys.executable, "-c", ONE_MORE_ROW], capture_output=True, text=True, cwd=PROJECT_ROOT, check=False
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["stored"] == ["note", "note"]
    assert out["listed"] == ["note", "note"]
    assert out["canonical"] == "note"
    assert out["linkable"]
    assert out["section"] == "memories"
    assert out["op"] == "note"
    assert out["recalled"] == ["note", "note"]
    assert out["linked"] >= 1  # the linker links the new kind like any other (two facts with these texts link too)
    assert out["actions"] == ["add", "update", "delete"]  # a row's default actions
    assert out["split"] == ["note", "update"]
    assert out["importance"] == 0.6
    assert out["rest_kind"]["path"] == "/v1/notes"
    assert out["rest_kind"]["operation"] == "note"
    assert out["rest_kind"]["called"] == "note"
    assert out["rest_kind"]["colour"].startswith("#")
    assert out["rest_added"] == [201, "note"]
    assert out["rest_listed"] == ["note"]
    assert out["mcp_added"] == "note"
    assert out["cli_added"] == [0, "note"]
