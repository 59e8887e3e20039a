"""Every recipe of examples/cookbook runs (offline) and its own checks hold; the SQLite -> PostgreSQL one
moves to the suite's real PostgreSQL."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
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


@pytest.mark.parametrize("recipe", RECIPES)
def test_recipe_runs(recipe: str, tmp_path: Path) -> None:
    done = run(recipe, cwd=tmp_path)
    assert done.returncode == 0, f"{recipe}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert done.stdout.strip(), f"{recipe} printed nothing"


def test_moving_from_sqlite_to_postgresql(postgresql_store_url: str, tmp_path: Path) -> None:
    done = run("04_sqlite_to_postgresql.py", postgresql_store_url, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "from SQLite to postgresql" in done.stdout
