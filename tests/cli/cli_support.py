"""The ``kioko`` command through typer's CliRunner, for the CLI test modules: the runner, the plain
environment every CLI test runs in (autouse where imported), and a SQLite URL per test."""

from __future__ import annotations

import json
import re
from typing import Any

from typer.testing import CliRunner

from kioko.cli import app

BAR = re.compile(r"[━╸╺]|\r|\x1b\[")  # rich's bar glyphs, carriage returns, escape codes


def kioko_cli(*args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(app, list(args), env=env)


def ok(*args: str, env: dict[str, str] | None = None) -> Any:
    result = kioko_cli(*args, env=env)
    assert result.exit_code == 0, (args, result.output)
    return result


def as_json(*args: str, env: dict[str, str] | None = None) -> Any:
    result = ok(*args, "--json", env=env)
    return json.loads(result.stdout)
