"""``kioko manage "text" --user U [--dry-run]``: the report on stdout; a dry run leaves the store as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kioko
from kioko.cli import main


def test_manage_prints_the_report_and_a_dry_run_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    text = "I'm Kumar, I live in Pune."
    assert main(["manage", text, "--user", "kumar", "--store", url, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "profile.set name = Kumar",
        "profile.set location = Pune",
        "(dry run: nothing was written)",
    ]
    with kioko.connect(url) as memory:
        assert list(memory.memories(user_id="kumar")) == []
    assert main(["manage", text, "--user", "kumar", "--store", url, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [op["status"] for op in report["ops"]] == ["applied", "applied"]
    with kioko.connect(url) as memory:
        assert memory.profile.all(user_id="kumar") == {"name": "Kumar", "location": "Pune"}


def test_manage_with_bad_input_is_a_readable_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert main(["manage", "x" * 100_001, "--user", "kumar", "--store", url]) == 2
    assert "at most" in capsys.readouterr().err
