"""Every Python snippet of docs/integrations.md runs as it is, each in a process of its own (offline)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "integrations.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def test_the_page_has_its_snippets() -> None:
    assert len(SNIPPETS) >= 1


@pytest.mark.parametrize("number", range(len(SNIPPETS)))
def test_snippet_runs(number: int, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run(
        [sys.executable, "-c", SNIPPETS[number]], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, f"snippet {number} of docs/integrations.md:\n{SNIPPETS[number]}\n{run.stderr[-3000:]}"
