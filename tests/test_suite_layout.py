"""No test module imports another module's tests: shared fixtures and helpers live in conftest files and
``*_support.py`` modules, and a library test that should also run over HTTP gets a remote surface as a
parameter of its own fixture (``remote_support.REMOTE_SURFACES``), so every test is collected once, in the
module that defines it.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").exists()) / "tests"
"""The whole tests/ folder, wherever in it this module lives."""


def imported_test_modules(source: str) -> list[str]:
    """One name per import statement of ``source`` that reaches a module named ``test_*`` (at any depth:
    ``tests.test_x``, ``.test_x``, ``from . import test_x``)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            # `from . import test_x` and `from tests import test_x` name the module in the imported names
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found += [name for name in names if any(part.startswith("test_") for part in name.split("."))][:1]
    return found


def test_the_finder_sees_every_spelling_of_a_test_import() -> None:
    planted = (
        "from test_kinds import test_goal_content_title_and_open_status\n"
        "import tests.test_recall\n"
        "from tests.test_secrets import memory\n"
        "from . import test_pins\n"
        "def later():\n    from core.test_layer import helper\n"
    )
    assert len(imported_test_modules(planted)) == 5
    assert imported_test_modules("from remote_support import server\nimport pytest\n") == []


def test_no_test_module_imports_another_modules_tests() -> None:
    assert (TESTS / "conftest.py").exists()
    assert len(list(TESTS.rglob("test_*.py"))) > 50
    offenders = {
        str(path.relative_to(TESTS)): names
        for path in sorted(TESTS.rglob("*.py"))
        if (names := imported_test_modules(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}, f"test modules importing another test module (share a support module instead): {offenders}"


def test_every_test_module_lives_in_an_area_folder() -> None:
    """tests/ is grouped by area (docs/architecture.md, "Tests"); only this check of the suite itself sits next
    to conftest.py."""
    flat = sorted(path.name for path in TESTS.glob("test_*.py") if path.name != Path(__file__).name)
    assert flat == [], f"put these test modules in the folder of their area: {flat}"
    areas = {path.parent.name for path in TESTS.rglob("test_*.py") if path.parent != TESTS}
    assert {"core", "drivers", "intelligence", "service", "cli"} <= areas, areas


def test_every_support_module_has_a_name_of_its_own() -> None:
    """Support modules are imported by their bare name (each area folder is on sys.path), so two of one name in two
    folders shadow each other: whichever a worker imported first answers both, and the other folder's tests fail
    to import (tests/intelligence/forget_support.py beside tests/privacy/forget_support.py did, under xdist)."""
    names: dict[str, list[str]] = {}
    for path in sorted(TESTS.rglob("*_support.py")):
        names.setdefault(path.name, []).append(str(path.relative_to(TESTS)))
    assert {name: paths for name, paths in names.items() if len(paths) > 1} == {}
