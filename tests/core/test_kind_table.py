"""One table of kinds (kioko_core.kinds.registry.KINDS): the other lists are derived from it, and a new kind
is one row.

The subprocess test adds a row to the table before anything reads it (the registry's source, with the
row, is loaded in its place) and checks that the new kind is then stored, aliased, managed, sectioned
and named by the intelligence's operations with no other change.
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
    from kioko_intelligence.ops import KIND_OF_MEMORY
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
        }
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
