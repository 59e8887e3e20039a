"""The core layer stands alone; the intelligence is its subclass, with its calls as methods and its own hooks.

A fresh interpreter that never imports kioko_intelligence gets a working layer with the no-op hooks (write,
recall, delete, forget, close); asked for an intelligence call, that layer raises IntelligenceNeeded naming
kioko.intelligent(). ``kioko.MemoryLayer``, ``kioko.connect()`` and ``kioko.intelligent()`` build
:class:`IntelligentMemory`, whose calls are declared on the class (nothing is attached to an instance) and act for
the view they are called on.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import kioko
from kioko.protocol import IntelligenceCalls
from kioko.remote.async_client import AsyncRemoteMemory
from kioko.remote.client import RemoteMemory
from kioko_backends.memory import MemoryStore
from kioko_core.errors import IntelligenceNeeded
from kioko_core.layer.hooks import INTELLIGENCE_CALLS, LayerHooks
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_intelligence.surface import HOOKS, IntelligentMemory

PROJECT_ROOT = Path(__file__).resolve().parents[2]

CORE_ALONE = textwrap.dedent("""
    import json, sys
    from kioko_core.errors import IntelligenceNeeded, InvalidRecordError
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
        layer.manage("I prefer tea", user_id="kumar")
        out["manage"] = None
    except IntelligenceNeeded as error:
        out["manage"] = str(error)
    try:
        MemoryLayer(open_store("memory://"), intelligence="heuristic")
        out["refused"] = None
    except InvalidRecordError as error:
        out["refused"] = str(error)
    layer.close()
    out["intelligence_loaded"] = sorted(m for m in sys.modules if m.startswith("kioko_intelligence"))
    print(json.dumps(out))
""")


def test_the_core_layer_works_alone_with_no_op_hooks() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CORE_ALONE], capture_output=True, text=True, cwd=PROJECT_ROOT, check=False
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["intelligence_loaded"] == []
    assert out["hooks"] == "LayerHooks"
    assert out["calls"] == []
    assert out["recalled"][:1] == [out["first"]]  # the no-op plan leaves the call's options to recall
    assert out["plan"] == "None"
    assert out["deleted"] is True
    assert out["forgotten"] == 1
    assert "kioko.intelligent(" in out["manage"]
    assert "intelligence" in out["refused"]


def test_a_core_layer_names_what_it_needs_for_every_intelligence_call() -> None:
    layer = MemoryLayer(MemoryStore())
    try:
        for name in INTELLIGENCE_CALLS:
            with pytest.raises(IntelligenceNeeded, match=r"kioko\.intelligent\("):
                getattr(layer, name)
            assert not hasattr(layer, name)  # an AttributeError too: the core layer is not a kioko.Memory
        assert not hasattr(layer, "no_such_call")
        assert not isinstance(layer, kioko.Memory)
    finally:
        layer.close()


def test_the_calls_are_methods_of_the_class_the_public_api_builds() -> None:
    """Declared once per class, with signatures: nothing is bound onto a layer or a view."""
    assert kioko.MemoryLayer is IntelligentMemory
    assert isinstance(HOOKS, LayerHooks)
    assert IntelligentMemory.hooks is HOOKS
    with kioko.connect("memory://") as memory:
        assert type(memory) is IntelligentMemory
        assert isinstance(memory, kioko.Memory)
        assert memory.hooks is HOOKS
        assert not set(INTELLIGENCE_CALLS) & set(vars(memory))
        assert memory.intelligence is None
        smart = kioko.intelligent(memory)
        assert smart.intelligence is not None
        assert smart.auto_graph
        assert smart.auto_link
        assert memory.intelligence is None  # the layer given is left as it was
        assert not memory.auto_graph
    for name in INTELLIGENCE_CALLS:
        method = vars(IntelligentMemory)[name]
        assert inspect.isfunction(method), name
        assert name not in vars(MemoryLayer), name


def test_the_one_list_of_calls_is_every_surfaces() -> None:
    """INTELLIGENCE_CALLS is the protocol's calls, IntelligentMemory's and both clients', with the same parameters."""
    declared = {name for name in vars(IntelligenceCalls) if not name.startswith("_")}
    assert declared == set(INTELLIGENCE_CALLS)
    for surface in (IntelligentMemory, RemoteMemory, AsyncRemoteMemory):
        for name in INTELLIGENCE_CALLS:
            assert callable(getattr(surface, name, None)), f"{surface.__name__}.{name}"
    for name in INTELLIGENCE_CALLS:
        protocol = inspect.signature(getattr(IntelligenceCalls, name))
        local = inspect.signature(getattr(IntelligentMemory, name))
        assert list(local.parameters) == list(protocol.parameters), name


def test_a_core_layer_given_to_intelligent_or_served_gets_the_calls() -> None:
    """kioko.intelligent(core_layer) and a server over one work as before: a view of it with the calls."""
    core = MemoryLayer(MemoryStore())
    try:
        smart = kioko.intelligent(core)
        assert isinstance(smart, IntelligentMemory)
        assert smart.store is core.store
        assert smart.record_turn("I prefer green tea", user_id="kumar").router == "heuristic"
        assert type(core) is MemoryLayer  # the layer given is not changed
        assert [r.kind for r in core.memories(user_id="kumar")] != []
    finally:
        core.close()


def test_a_views_calls_act_for_the_view() -> None:
    """A scoped view is an IntelligentMemory bound to its user: its record_turn stores for that user."""
    with kioko.intelligent("memory://") as memory:
        kumar = memory.scoped(user_id="kumar")
        assert type(kumar) is IntelligentMemory
        report = kumar.record_turn("I prefer green tea in the morning")
        assert report.user_id == "kumar"
        assert [r.user_id for r in memory.memories(user_id="kumar")] != []
        assert list(memory.memories(user_id="ana")) == []
        assert kumar.events is memory.events  # a view shares its layer's event bus
