"""Fixtures of every CLI test: the plain environment the command runs in (no KIOKO_* variable of the
machine, no colour, wide columns) and a SQLite URL per test."""

from __future__ import annotations

from pathlib import Path

import pytest


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
