"""The core layer stands alone; the intelligence composes itself onto it through kioko_core.layer.hooks.

A fresh interpreter that never imports kioko_intelligence gets a working layer with the no-op hooks
(write, recall, delete, forget, close) and no intelligence calls; importing the package registers its
extension, and every layer built afterwards has the calls and the hooks. In this process (where ``kioko``
is imported) every layer has them, each view's calls act for that view.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import kioko
from kioko_core.layer.hooks import LayerHooks
from kioko_intelligence.surface import HOOKS, PUBLIC_CALLS

PROJECT_ROOT = Path(__file__).resolve().parents[2]

CORE_ALONE = textwrap.dedent("""
    import json, sys
    from kioko_core.errors import InvalidRecordError
    from kioko_core.layer.memory_layer import MemoryLayer
    from kioko_core.store.registry import open_store

    out = {}
    layer = MemoryLayer(open_store("memory://"), auto_link=True)
    first = layer.add("Kumar ships the parser on Friday", user_id="kumar")
    layer.add("The parser needs a lexer first", user_id="kumar")
    ctx = layer.recall("when does the parser ship?", user_id="kumar", section_limits={"memories": 1})
    out["recalled"] = [m.record.id for m in ctx.memories]
    out["first"] = first.id
    out["plan"] = repr(ctx.plan)
    out["deleted"] = layer.delete(first.id, user_id="kumar")
    out["forgotten"] = layer.forget_user(user_id="kumar")
    out["calls"] = sorted(c for c in ("manage", "record_turn", "plan", "maintain") if hasattr(layer, c))
    out["hooks"] = type(layer.hooks).__name__
    try:
        MemoryLayer(open_store("memory://"), intelligence="heuristic")
        out["refused"] = None
    except InvalidRecordError as error:
        out["refused"] = str(error)
    layer.close()
    out["intelligence_loaded_before"] = sorted(m for m in sys.modules if m.startswith("kioko_intelligence"))
    import kioko_intelligence  # registers its extension: layers built from now on get it
    later = MemoryLayer(open_store("memory://"), intelligence="heuristic")
    out["later_hooks"] = type(later.hooks).__name__
    out["later_report"] = later.record_turn("I prefer tea over coffee", user_id="kumar").router
    print(json.dumps(out))
""")


def test_the_core_layer_works_alone_with_no_op_hooks() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CORE_ALONE], capture_output=True, text=True, cwd=PROJECT_ROOT, check=False
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["intelligence_loaded_before"] == []
    assert out["hooks"] == "LayerHooks"
    assert out["calls"] == []
    assert out["recalled"][:1] == [out["first"]]  # the no-op plan leaves the call's options to recall
    assert out["plan"] == "None"
    assert out["deleted"] is True
    assert out["forgotten"] == 1
    assert out["refused"] is not None
    assert "intelligence" in out["refused"]
    assert out["later_hooks"] == "IntelligenceHooks"
    assert out["later_report"] == "heuristic"


def test_every_layer_gets_the_intelligence_by_composition() -> None:
    """Not a base class: the layer's class has no intelligence call; each layer holds them, bound to itself."""
    assert isinstance(HOOKS, LayerHooks)
    assert not any(name in vars(kioko.MemoryLayer) for name in ("manage", "record_turn", "plan", "maintain"))
    with kioko.connect("memory://") as memory:
        assert memory.hooks is HOOKS
        for name in PUBLIC_CALLS:
            assert callable(getattr(memory, name)), name
        assert memory.intelligence is None
        smart = kioko.intelligent(memory)
        assert smart.intelligence is not None
        assert smart.auto_graph
        assert smart.auto_link
        assert memory.intelligence is None  # the layer given is left as it was
        assert not memory.auto_graph


def test_a_views_calls_act_for_the_view() -> None:
    """The calls copied with a view are bound again to it: a scoped view's record_turn stores for its user."""
    with kioko.intelligent("memory://") as memory:
        kumar = memory.scoped(user_id="kumar")
        report = kumar.record_turn("I prefer green tea in the morning")
        assert report.user_id == "kumar"
        assert [r.user_id for r in memory.memories(user_id="kumar")] != []
        assert list(memory.memories(user_id="ana")) == []
        assert kumar.manage.__self__ is not memory.manage.__self__
