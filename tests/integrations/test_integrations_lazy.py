"""``import kioko`` loads no agent framework: each integration imports its framework when it is imported."""

from __future__ import annotations

import subprocess
import sys

FRAMEWORKS = ("langgraph", "langchain_core", "agents", "agno")


def test_import_kioko_loads_no_framework() -> None:
    probe = f"import sys, kioko, kioko.integrations; print([m for m in {FRAMEWORKS!r} if m in sys.modules])"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
