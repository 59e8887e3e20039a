"""Every recipe of examples/cookbook runs (offline) and its own checks hold; the SQLite -> PostgreSQL one
moves to the suite's real PostgreSQL.

The recipes run in this process (``runpy``, as ``__main__``), so the frameworks are imported once, not once
per recipe; the quick start also runs as a fresh interpreter would run it, and docs/integrations.md's
snippets each run in a process of their own (tests/integrations/test_integrations_docs.py).
"""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COOKBOOK = ROOT / "examples" / "cookbook"
RECIPES = sorted(p.name for p in COOKBOOK.glob("[0-9][0-9]_*.py"))


def run(recipe: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env["AGNO_TELEMETRY"] = "false"
    return subprocess.run(
        [sys.executable, str(COOKBOOK / recipe), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def test_the_cookbook_has_the_spec_recipes_and_a_readme_naming_each() -> None:
    for name in ("20_intelligent_memory.py", "21_llm_intelligence.py", "22_efficiency.py"):
        assert name in RECIPES
    readme = (COOKBOOK / "README.md").read_text()
    assert all(f"`{name}`" in readme for name in RECIPES)


def run_here(recipe: str, *args: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGNO_TELEMETRY", "false")
    monkeypatch.setattr(sys, "argv", [str(COOKBOOK / recipe), *args])
    runpy.run_path(str(COOKBOOK / recipe), run_name="__main__")


@pytest.mark.parametrize("recipe", RECIPES)
def test_recipe_runs(
    recipe: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run_here(recipe, monkeypatch=monkeypatch, tmp_path=tmp_path)  # a failed check of the recipe raises here
    assert capsys.readouterr().out.strip(), f"{recipe} printed nothing"


def test_the_quick_start_runs_as_a_script(tmp_path: Path) -> None:
    done = run("01_quick_start.py", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "line 3 conveyor jammed" in done.stdout


def test_moving_from_sqlite_to_postgresql(
    postgresql_store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run_here("04_sqlite_to_postgresql.py", postgresql_store_url, monkeypatch=monkeypatch, tmp_path=tmp_path)
    assert "from SQLite to postgresql" in capsys.readouterr().out
