"""kioko_core depends on the Store protocol only: it never imports a driver or a driver's library.

Two independent proofs: a fresh interpreter imports every kioko_core module and must not end up with
a driver library loaded (catches indirect imports), and an AST walk over kioko_core's source finds no
import statement naming one (catches imports hidden in functions that the first check never runs).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import kioko_core

FORBIDDEN = (
    "psycopg",
    "psycopg2",
    "psycopg_pool",
    "qdrant_client",
    "qdrant_edge",
    "sqlalchemy",
    "pgvector",
    "kioko_backends",
)
"""Top-level packages kioko_core must never import."""

DRIVER_LIBRARIES = ("psycopg", "qdrant_client", "qdrant_edge", "sqlalchemy", "pgvector")
"""What a plain ``import kioko`` must not load either: drivers import their libraries late."""

CORE_DIR = Path(kioko_core.__file__).parent
PROJECT_ROOT = CORE_DIR.parent

LOADED_AFTER_IMPORTS = textwrap.dedent("""
    import importlib, json, pkgutil, sys
    names = sys.argv[1].split(",") if sys.argv[1] else []
    for name in names:
        importlib.import_module(name)
    package = sys.argv[2]
    if package:
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, prefix=package + "."):
            importlib.import_module(info.name)
    print(json.dumps(sorted(sys.modules)))
""")


def modules_loaded(imports: list[str], walk_package: str = "") -> set[str]:
    """Module names loaded in a fresh interpreter after importing ``imports`` and every module of a package."""
    result = subprocess.run(
        [sys.executable, "-c", LOADED_AFTER_IMPORTS, ",".join(imports), walk_package],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        check=False,
    )
    assert result.returncode == 0, f"importing failed:\n{result.stderr}"
    return set(json.loads(result.stdout))


def offenders(loaded: set[str], forbidden: tuple[str, ...]) -> list[str]:
    return sorted({name.split(".")[0] for name in loaded} & set(forbidden))


def imported_modules(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """(line, module) for every absolute import statement of ``source``, in functions too."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from kioko_core import layer` names the module in the alias
            found += (
                [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
                if node.module == "kioko_core"
                else [(node.lineno, node.module)]
            )
    return found


def forbidden_imports(source: str, filename: str = "<source>") -> list[str]:
    """``file:line module`` for every import statement of ``source`` that names a forbidden package."""
    return [
        f"{filename}:{line} {name}"
        for line, name in imported_modules(source, filename)
        if name.split(".")[0] in FORBIDDEN
    ]


def test_importing_every_kioko_core_module_loads_no_driver_library() -> None:
    """After importing all of kioko_core in a fresh interpreter, no driver library is in sys.modules."""
    loaded = modules_loaded([], walk_package="kioko_core")
    assert "kioko_core.store" in loaded
    assert "kioko_core.store.registry" in loaded
    assert offenders(loaded, FORBIDDEN) == []


def test_importing_kioko_loads_no_driver_library() -> None:
    """``import kioko`` stays light: psycopg, qdrant_client, sqlalchemy and pgvector load only with a driver."""
    assert offenders(modules_loaded(["kioko"]), DRIVER_LIBRARIES) == []


def test_the_subprocess_check_sees_a_driver_library() -> None:
    """The check can fail: importing a driver module puts kioko_backends in sys.modules."""
    loaded = modules_loaded(["kioko_backends.memory"])
    assert "kioko_backends" in offenders(loaded, FORBIDDEN)


def test_no_kioko_core_source_file_imports_a_driver_library() -> None:
    """No import statement anywhere in kioko_core (functions included) names a forbidden package."""
    sources = sorted(CORE_DIR.rglob("*.py"))
    assert len(sources) > 3, f"expected kioko_core's modules under {CORE_DIR}"
    found = [
        hit
        for path in sources
        for hit in forbidden_imports(path.read_text(encoding="utf-8"), str(path.relative_to(PROJECT_ROOT)))
    ]
    assert found == []


@pytest.mark.parametrize(
    "statement",
    [
        "import psycopg",
        "import sqlalchemy.orm as orm",
        "from qdrant_client import models",
        "from pgvector.psycopg import register_vector",
        "import os, kioko_backends.memory",
        "def late():\n    from kioko_backends import sqlite",
    ],
)
def test_the_ast_check_finds_every_form_of_import(statement: str) -> None:
    """The AST check can fail: plain, dotted, from-, multi-name and function-local imports are all caught."""
    assert forbidden_imports(statement) != []


def test_the_ast_check_allows_relative_and_ordinary_imports() -> None:
    """Relative imports inside kioko_core and standard or core libraries are fine."""
    assert forbidden_imports("from .store import Record\nimport numpy\nfrom pydantic import BaseModel\n") == []


# --------------------------------------------------------------------------- drivers see only the protocol

PROTOCOL_MODULES = (
    "kioko_core.store",
    "kioko_core.store.link_store",
    "kioko_core.errors",
    "kioko_core.store.driver",
    "kioko_core.store.url",
)
"""What a driver may import from kioko_core: the protocol (and its optional LinkStore capability), its errors, the
optional driver base, and StoreURL."""

DRIVER_SOURCES = sorted((PROJECT_ROOT / "kioko_backends").rglob("*.py")) + [
    PROJECT_ROOT / "docs" / "example_driver" / "kioko_jsonl.py"
]


def core_imports_beyond_protocol(source: str, filename: str = "<source>") -> list[str]:
    """``file:line module`` for every import of a kioko_core module other than the protocol's, or of kioko."""
    return [
        f"{filename}:{line} {name}"
        for line, name in imported_modules(source, filename)
        if (name.split(".")[0] == "kioko_core" and name not in PROTOCOL_MODULES) or name.split(".")[0] == "kioko"
    ]


def test_drivers_import_nothing_of_the_core_but_the_protocol() -> None:
    """kioko_backends and the example driver import only kioko_core.store, .link_store, .errors, .driver and .url."""
    assert len(DRIVER_SOURCES) >= 5, f"expected the drivers under {PROJECT_ROOT / 'kioko_backends'}"
    found = [
        hit
        for path in DRIVER_SOURCES
        for hit in core_imports_beyond_protocol(path.read_text(encoding="utf-8"), str(path.relative_to(PROJECT_ROOT)))
    ]
    assert found == []


GUIDE = PROJECT_ROOT / "docs" / "drivers.md"
PROTOCOL_SUPPORT = ("kioko_core.privacy.held_texts",)
"""What the protocol modules themselves may import besides each other: ``kioko_core.store.driver`` re-exports
``held_texts.keeps_text`` for drivers."""


def modules_the_guide_allows(guide: str) -> set[str]:
    """The modules docs/drivers.md's import rule lists: the bullets after "A driver imports from Kioko only"."""
    rule = guide.split("A driver imports from Kioko only the protocol side", 1)[1].split("\n\n", 2)[1]
    return {line.split("`")[1] for line in rule.splitlines() if line.startswith("- `kioko_core.")}


def test_the_guide_names_exactly_the_modules_drivers_may_import() -> None:
    """The import rule a driver author reads is the one this file enforces: a LinkStore driver needs
    kioko_core.store.link_store, and an outsider once found the guide naming three modules where five are allowed."""
    assert modules_the_guide_allows(GUIDE.read_text(encoding="utf-8")) == set(PROTOCOL_MODULES)


def test_the_guide_check_sees_a_missing_module() -> None:
    guide = (
        "A driver imports from Kioko only the protocol side, these:\n\n"
        "- `kioko_core.store`: records;\n- `kioko_core.store.driver`: the base class.\n\nAll of them.\n"
    )
    assert modules_the_guide_allows(guide) == {"kioko_core.store", "kioko_core.store.driver"} != set(PROTOCOL_MODULES)


def test_the_protocol_modules_import_only_each_other() -> None:
    """The arrows point one way: a driver -> the protocol modules -> nothing of the layer. Were kioko_core.store or
    kioko_core.store.link_store to import the layer (or a module importing it), every driver would load it too."""
    allowed = set(PROTOCOL_MODULES) | set(PROTOCOL_SUPPORT)
    found = {}
    for module in allowed:
        folder = PROJECT_ROOT / module.replace(".", "/")
        path = folder / "__init__.py" if folder.is_dir() else folder.with_suffix(".py")
        names = every_import(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")
        beyond = sorted(
            name
            for name in names
            if name.split(".")[0] in ("kioko_core", "kioko")
            and not any(name == ok or name.startswith(ok + ".") for ok in allowed)
        )
        if beyond:
            found[module] = beyond
    assert found == {}


@pytest.mark.parametrize(
    "statement",
    [
        "from kioko_core.layer.memory_layer import MemoryLayer",
        "import kioko_core.linking.linker",
        "from kioko_core import registry",
        "from kioko import connect",
        "def late():\n    from kioko_core.reading.analysis import analyse",
    ],
)
def test_the_driver_check_finds_core_imports(statement: str) -> None:
    """The check can fail: any other core module, the kioko package, in any form of import."""
    assert core_imports_beyond_protocol(statement) != []


def test_the_driver_check_allows_the_protocol() -> None:
    source = (
        "from kioko_core.store import Record\nfrom kioko_core.store.driver import StoreBase\n"
        "import kioko_core.store.url\nfrom kioko_core import store\nimport numpy\n"
        "from kioko_core.errors import StoreError\nfrom kioko_core import errors\n"
    )
    assert core_imports_beyond_protocol(source) == []


# --------------------------------------------------------------------------- the arrow points one way: intelligence -> core

INTELLIGENCE = "kioko_intelligence"
INTELLIGENCE_DIR = PROJECT_ROOT / INTELLIGENCE
CORE_OUTSIDE_INTELLIGENCE = sorted(CORE_DIR.rglob("*.py"))
"""The whole core: the intelligence is a package of its own beside it (until the house move of issue 37)."""


def module_name(path: Path) -> str:
    """``kioko_core/recall/hybrid.py`` -> ``kioko_core.recall.hybrid``; a package's ``__init__.py`` -> the package."""
    return ".".join(path.relative_to(PROJECT_ROOT).with_suffix("").parts).removesuffix(".__init__")


def every_import(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module an import statement of ``source`` names, relative ones resolved against ``module``.

    All statements count: at module level, inside functions and under ``if TYPE_CHECKING:`` (a type-only
    import is still an arrow a reader follows). ``from pkg import name`` yields ``pkg`` and ``pkg.name``.
    """
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".") if is_package else module.split(".")[:-1]
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def intelligence_imports(source: str, module: str) -> list[str]:
    """The modules of the intelligence package that ``source`` (the core module ``module``) imports."""
    return sorted(n for n in every_import(source, module) if n == INTELLIGENCE or n.startswith(INTELLIGENCE + "."))


def test_nothing_in_the_core_outside_intelligence_imports_it() -> None:
    """kioko_core outside intelligence/ never imports kioko_intelligence: not at module level, not in a
    function, not for types. The intelligence installs itself on the layer (kioko_core.layer.hooks)."""
    assert len(CORE_OUTSIDE_INTELLIGENCE) > 20, f"expected kioko_core's modules under {CORE_DIR}"
    found = {
        str(path.relative_to(PROJECT_ROOT)): hits
        for path in CORE_OUTSIDE_INTELLIGENCE
        if (hits := intelligence_imports(path.read_text(encoding="utf-8"), module_name(path)))
    }
    assert found == {}


@pytest.mark.parametrize(
    "statement",
    [
        "from kioko_intelligence.surface import IntelligentMemory",
        "import kioko_intelligence",
        "from kioko_intelligence import Intelligence",
        "import kioko_intelligence.brain as brain",
        "from kioko_intelligence.ops import MemoryOp",
        "def late():\n    from kioko_intelligence.forgetting import erase_traces",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from kioko_intelligence.planner import RecallPlan",
    ],
)
def test_the_intelligence_check_finds_every_form_of_import(statement: str) -> None:
    """The check can fail: module, package, aliased, function-local and type-only imports are all seen."""
    assert intelligence_imports(statement, "kioko_core.layer.memory_layer") != []


def test_the_intelligence_check_allows_the_core() -> None:
    source = "from .store import Record\nfrom .hooks import LayerHooks\nimport kioko_core.recall.hybrid\nfrom . import links\n"
    assert intelligence_imports(source, "kioko_core.layer.memory_layer") == []


def test_importing_the_core_outside_intelligence_loads_no_intelligence() -> None:
    """In a fresh interpreter the layer and every core module outside intelligence/ load without it."""
    names = [module_name(path) for path in CORE_OUTSIDE_INTELLIGENCE]
    loaded = modules_loaded(names)
    assert "kioko_core.layer.memory_layer" in loaded
    assert "kioko_core.layer.hooks" in loaded
    assert sorted(m for m in loaded if m.startswith(INTELLIGENCE)) == []


def import_circles(modules: dict[str, tuple[str, bool]]) -> list[tuple[str, str]]:
    """Pairs (a, b) of ``modules`` (name -> (source, is package)) that import each other, directly or through
    others, every import statement counted (functions and ``TYPE_CHECKING`` too); a package and its own
    modules are not a circle (importing a module runs its package's ``__init__`` first, by design)."""
    graph = {
        name: {d for d in every_import(source, name, is_package) if d in modules and d != name}
        for name, (source, is_package) in modules.items()
    }

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reached = {name: reach(name) for name in graph}
    return sorted(
        (a, b)
        for a in graph
        for b in graph[a]
        if a < b and a in reached[b] and not (a.startswith(b + ".") or b.startswith(a + "."))
    )


def test_kioko_core_has_no_import_circle() -> None:
    """No two modules of kioko_core import each other, directly or through others: the algorithms take the
    Protocols of kioko_core.layer.parts, not the layer that imports them; the intelligence's modules import each
    other by name, not through their package."""
    sources = sorted(CORE_DIR.rglob("*.py")) + sorted(INTELLIGENCE_DIR.rglob("*.py"))
    modules = {module_name(p): (p.read_text(encoding="utf-8"), p.name == "__init__.py") for p in sources}
    assert len(modules) > 40
    assert "kioko_intelligence.brain" in modules
    assert import_circles(modules) == []


@pytest.mark.parametrize(
    "modules",
    [
        {  # direct, one of them type-only
            "kioko_core.layer.memory_layer": ("from kioko_core.recall.hybrid import recall", False),
            "kioko_core.recall.hybrid": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..layer.memory_layer import X",
                False,
            ),
        },
        {  # through a third module, from inside a function
            "kioko_core.a": ("from .b import x", False),
            "kioko_core.b": ("import kioko_core.c", False),
            "kioko_core.c": ("def late():\n    from . import a", False),
        },
        {  # through a package's __init__ (`from . import x`)
            "kioko_core.pkg": ("from .brain import Brain", True),
            "kioko_core.pkg.brain": ("from .maintenance import Scheduler", False),
            "kioko_core.pkg.maintenance": ("from . import summaries", False),
            "kioko_core.pkg.summaries": ("", False),
        },
    ],
)
def test_the_circle_check_finds_circles(modules: dict[str, tuple[str, bool]]) -> None:
    """The check can fail: direct, indirect, function-local, type-only and through-the-package circles."""
    assert import_circles(modules) != []


def test_the_circle_check_allows_a_package_and_its_modules() -> None:
    modules = {
        "kioko_core.pkg": ("from .brain import Brain", True),
        "kioko_core.pkg.brain": ("import kioko_core.pkg.maintenance as maintenance", False),
        "kioko_core.pkg.maintenance": ("from ..store import Record", False),
        "kioko_core.store": ("", False),
    }
    assert import_circles(modules) == []


def test_the_intelligence_imports_no_surface() -> None:
    """intelligence -> core, surfaces -> the public API: kioko_intelligence never imports kioko (the surfaces), so
    the library's layer can be made intelligent without loading a CLI, a server or a client."""
    found = {
        str(path.relative_to(PROJECT_ROOT)): hits
        for path in sorted(INTELLIGENCE_DIR.rglob("*.py"))
        if (
            hits := sorted(
                n
                for n in every_import(path.read_text(encoding="utf-8"), module_name(path))
                if n.split(".")[0] == "kioko"
            )
        )
    }
    assert len(list(INTELLIGENCE_DIR.rglob("*.py"))) > 15
    assert found == {}


def test_kioko_has_no_import_circle() -> None:
    """No two modules of the kioko package (the surfaces) import each other, directly or through others: the
    service's routes take what they share with the app from kioko.http.deps, never from the app."""
    root = PROJECT_ROOT / "kioko"
    modules = {module_name(p): (p.read_text(encoding="utf-8"), p.name == "__init__.py") for p in root.rglob("*.py")}
    assert "kioko.http.app" in modules
    assert "kioko.http.routes" in modules
    assert import_circles(modules) == []
