"""The ``kioko`` command through typer's CliRunner, for the CLI test modules: the runner, the plain
environment every CLI test runs in (autouse where imported), and a SQLite URL per test."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kioko.cli import app

BAR = re.compile(r"[━╸╺]|\r|\x1b\[")  # rich's bar glyphs, carriage returns, escape codes


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "KIOKO_URL",
        "KIOKO_USER",
        "KIOKO_AGENT",
        "KIOKO_DEBUG",
        "FORCE_COLOR",
        "TTY_COMPATIBLE",
        "TTY_INTERACTIVE",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'cli.db'}"


def kioko_cli(*args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(app, list(args), env=env)


def ok(*args: str, env: dict[str, str] | None = None) -> Any:
    result = kioko_cli(*args, env=env)
    assert result.exit_code == 0, (args, result.output)
    return result


def as_json(*args: str, env: dict[str, str] | None = None) -> Any:
    result = ok(*args, "--json", env=env)
    return json.loads(result.stdout)
