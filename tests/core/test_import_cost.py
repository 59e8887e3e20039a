"""What start-up loads: ``import kioko`` and a plain recall import only what they use (issue 28, start-up).

Checked by the modules a fresh interpreter holds afterwards, not by timing it (times belong to
``benchmarks/startup.py``): numpy, pydantic, the intelligence's rule tables and every driver stay out of
``import kioko``; a plain store and recall do not load the router, the planner or the maintenance tasks,
nor usearch while no scope is large enough for a graph. Each public name still resolves to the class it
always was, so the lazy loading changes no API.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import kioko

ROOT = Path(kioko.__file__).resolve().parent.parent

HEAVY_FOR_IMPORT = (
    "numpy",
    "pydantic",
    "kioko_core.store",
    "kioko_core.layer.memory_layer",
    "kioko_intelligence",
    "kioko_backends",
    "kioko.remote.client",
    "httpx",
    "usearch",
)
"""Top-level names (a package and everything under it) that ``import kioko`` must not load."""

INTELLIGENCE_ONLY = (
    "kioko_intelligence.brain",
    "kioko_intelligence.heuristic",
    "kioko_intelligence.rules",
    "kioko_intelligence.planner",
    "kioko_intelligence.maintenance",
    "kioko_intelligence.llm",
    "kioko_intelligence.providers",
    "usearch",
)
"""What a layer without intelligence, adding and recalling a few memories, must not load."""


def loaded_after(code: str, tmp_path: Path) -> list[str]:
    """The modules a fresh interpreter (this checkout first on its path) holds after running ``code``."""
    script = textwrap.dedent(code) + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout.splitlines()[-1]))


def under(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_import_kioko_loads_no_numpy_pydantic_intelligence_or_driver(tmp_path: Path) -> None:
    loaded = loaded_after("import kioko", tmp_path)
    assert "kioko" in loaded  # the check looked at an interpreter that did import it
    assert under(loaded, HEAVY_FOR_IMPORT) == []


def test_a_plain_recall_loads_no_router_planner_or_maintenance(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    loaded = loaded_after(
        f"""
        import kioko
        with kioko.connect("{url}", auto_link=True) as layer:
            layer.add("The payments deploy failed with E1234; Ada rolled it back", user_id="ada")
            layer.add("Ada prefers short answers", user_id="ada", memory_type="preference")
            context = layer.recall("what broke in the payments deploy?", user_id="ada", links=3)
            assert "E1234" in context.text, context.text
        """,
        tmp_path,
    )
    assert "kioko_backends.sqlite" in loaded  # it did store and recall
    assert "kioko_core.recall.hybrid" in loaded
    assert under(loaded, INTELLIGENCE_ONLY) == []


def test_layers_still_get_the_intelligence_calls(tmp_path: Path) -> None:
    """Lazy names change nothing a layer has: one from connect() or from kioko.MemoryLayer (after a bare
    ``import kioko``) has manage, record_turn, plan ... (the intelligence's extension is registered)."""
    loaded_after(
        """
        import kioko
        from kioko_backends.memory import MemoryStore
        for layer in (kioko.connect("memory://"), kioko.MemoryLayer(MemoryStore(dim=256))):
            for call in ("manage", "record_turn", "learn", "plan", "pin", "maintain", "on"):
                assert callable(getattr(layer, call, None)), (layer, call)
        assert kioko.connect("memory://").plan("how do I deploy it?", user_id="ada").intents
        """,
        tmp_path,
    )


def test_the_cli_version_loads_no_store(tmp_path: Path) -> None:
    loaded = loaded_after("import sys\nsys.argv = ['kioko', '--version']\nfrom kioko.cli import main\nmain()", tmp_path)
    assert under(loaded, ("numpy", "kioko_core.store", "kioko_core.layer.memory_layer", "kioko_backends")) == []


@pytest.mark.parametrize("name", kioko.__all__)
def test_every_public_name_resolves_to_the_object_of_its_module(name: str) -> None:
    value = getattr(kioko, name)
    module = kioko._LAZY.get(name)
    if module is not None:
        assert value is getattr(__import__(module, fromlist=[name]), kioko._NAMED.get(name, name))
    assert name in dir(kioko)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nonexistent'"):
        kioko.Nonexistent  # noqa: B018


def test_star_import_gives_every_public_name(tmp_path: Path) -> None:
    loaded_after(
        "namespace = {}\nexec('from kioko import *', namespace)\n"
        "import kioko\nmissing = [n for n in kioko.__all__ if n not in namespace]\nassert not missing, missing",
        tmp_path,
    )


def test_a_cli_recall_loads_no_rich_nor_the_package_metadata(tmp_path: Path) -> None:
    """``kioko recall`` prints plain text: rich (loaded when a command prints a table, a styled line or an
    error) stays out, and so does the scan of installed distributions (importlib.metadata) that a pydantic
    model built at import, or the store registry's entry points, used to cost every process."""
    url = f"sqlite:///{tmp_path / 'm.db'}"
    with kioko.connect(url, embedder="offline") as layer:
        layer.add("The payments deploy failed with E1234; Ada rolled it back", user_id="ada")
    loaded = loaded_after(
        f"""
        import contextlib, io
        from kioko.cli import main
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            assert main(["recall", "what broke in the payments deploy?", "--store", "{url}", "--user", "ada"]) == 0
        assert "E1234" in printed.getvalue(), printed.getvalue()
        """,
        tmp_path,
    )
    assert "kioko_core.recall.hybrid" in loaded  # it did recall
    assert under(loaded, ("rich", "kioko_intelligence.brain", "kioko_intelligence.planner")) == []


def test_a_library_recall_reads_no_package_metadata(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    with kioko.connect(url, embedder="offline") as layer:
        layer.add("The payments deploy failed with E1234; Ada rolled it back", user_id="ada")
    loaded = loaded_after(
        f"""
        import kioko
        with kioko.connect("{url}") as layer:
            assert "E1234" in layer.recall("what broke in the payments deploy?", user_id="ada").text
        """,
        tmp_path,
    )
    assert "kioko_core.recall.hybrid" in loaded
    assert under(loaded, ("importlib.metadata", "email", "pydantic.plugin._loader")) == []


def test_the_cli_builds_only_the_command_it_runs() -> None:
    """typer reads the signature of every command it builds; a run names one, and only that one is built.
    Help, completion and a mistyped name get the whole tree (typer's own messages)."""
    from kioko.cli import _tree_for, app

    tree = _tree_for(["recall", "what broke?", "--user", "ada"])
    assert [info.callback.__name__ for info in tree.registered_commands if info.callback] == ["recall"]
    assert tree.registered_callback is app.registered_callback  # --debug, --version stay on the root
    assert len(app.registered_commands) > 20  # the app itself is untouched
    named = _tree_for(["forget-user", "--user", "ada"]).registered_commands
    assert [info.name for info in named] == ["forget-user"]
    for args in ([], ["--help"], ["--debug", "recall", "x"], ["recal", "x"]):
        assert _tree_for(args) is app
