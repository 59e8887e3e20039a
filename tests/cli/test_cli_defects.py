"""Issue 21's command-line defects, each pinned by a test that fails on the old code: importing a file that is
not there, doctor on a mistyped path, long texts from stdin or a file, the truth about qdrant+local's knn."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import kioko
from kioko.cli import app

ROOT = Path(__file__).resolve().parents[2]
LONG = 300_000  # bytes: over the 128 KiB one argument may hold on Linux, and over the layer's default limit


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("KIOKO_URL", "KIOKO_USER", "KIOKO_AGENT", "KIOKO_DEBUG", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "200")


def kioko_cli(*args: str, stdin: str | None = None) -> Any:
    return CliRunner().invoke(app, list(args), input=stdin)


def one_line(result: Any) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("kioko: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


def long_text() -> str:
    line = "The conveyor on line {n} was inspected; belt tension, encoder cable and photo-eye were checked.\n"
    text = "".join(line.format(n=n) for n in range(LONG // len(line) + 1))
    return text[:LONG]


def test_importing_a_file_that_is_not_there_is_one_line_and_makes_no_store(tmp_path: Path) -> None:
    db = tmp_path / "never.db"
    result = kioko_cli("import", str(tmp_path / "missing.jsonl"), "--store", f"sqlite:///{db}")
    assert result.exit_code != 0
    line = one_line(result)
    assert "missing.jsonl" in line
    assert "FileNotFoundError" not in line
    assert "Errno" not in line
    assert not db.exists()  # the file is looked at before any store is opened


def test_doctor_on_a_mistyped_path_creates_nothing_and_is_not_ok(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    for store in ("typo.db", "sqlite:///typo.db", f"sqlite:///{tmp_path / 'sub' / 'typo2.db'}", "qdrant+local:///qd"):
        result = kioko_cli("doctor", "--store", store)
        assert result.exit_code == 1, (store, result.output)
        assert "no store at" in one_line(result)
        assert "OK" not in result.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    # an existing store still checks out
    with kioko.connect(f"sqlite:///{tmp_path / 'real.db'}") as memory:
        memory.add("The PLC network uses 10.20.0.0/16.", user_id="kumar")
    checked = kioko_cli("doctor", "--store", "real.db", "--json")
    assert checked.exit_code == 0
    assert json.loads(checked.stdout)["ok"] is True


def test_a_long_text_from_stdin_or_a_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'long.db'}"
    text = long_text()
    source = tmp_path / "notes.txt"
    source.write_text(text, encoding="utf-8")
    user = ("--store", url, "--user", "kumar", "--json")

    refused = kioko_cli("add", "--file", str(source), *user)
    assert refused.exit_code == 2  # the limit, named as an option
    assert "--max-bytes 300000" in one_line(refused)

    from_file = kioko_cli("add", "--file", str(source), "--max-bytes", "400000", "--type", "knowledge", *user)
    assert from_file.exit_code == 0, from_file.output
    from_stdin = kioko_cli("add", "-", "--max-bytes", "400000", "--session", "s1", *user, stdin=text.upper())
    assert from_stdin.exit_code == 0, from_stdin.output
    with kioko.connect(url) as memory:
        first = memory.get(json.loads(from_file.stdout)["id"], user_id="kumar")
        second = memory.get(json.loads(from_stdin.stdout)["id"], user_id="kumar")
    assert first.content == text
    assert first.kind == "semantic"
    assert second.content == text.upper()
    assert second.session_id == "s1"

    # update takes the same: --text - (stdin) or --file, with --max-bytes
    changed = kioko_cli(
        "update", json.loads(from_file.stdout)["id"], "--text", "-", "--max-bytes", "400000", *user, stdin=text[::-1]
    )
    assert changed.exit_code == 0, changed.stderr
    assert json.loads(changed.stdout)["version"] > 1
    with kioko.connect(url) as memory:
        assert memory.get(json.loads(from_file.stdout)["id"], user_id="kumar").content == text[::-1]
    assert kioko_cli("update", json.loads(from_stdin.stdout)["id"], "--file", str(source), *user).exit_code == 2

    for args in (("a text", "--file", str(source)), ("--file", str(tmp_path / "nope.txt")), ()):
        wrong = kioko_cli("add", *args, "--store", url, "--user", "kumar")
        assert wrong.exit_code == 2, args
        one_line(wrong)


def test_a_long_text_through_the_installed_command_stdin(tmp_path: Path) -> None:
    """The real pipe, in a fresh process: ``cat notes.txt | kioko add - ...``."""
    url = f"sqlite:///{tmp_path / 'pipe.db'}"
    text = long_text()
    added = subprocess.run(
        [sys.executable, "-m", "kioko", "add", "-", "--max-bytes", "400000", "--store", url, "--user", "kumar"],
        input=text,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert added.returncode == 0, added.stderr
    with kioko.connect(url) as memory:
        (stored,) = memory.memories(user_id="kumar")
    assert stored.content == text


def test_stores_tells_the_capabilities_a_store_of_that_scheme_has(tmp_path: Path) -> None:
    pytest.importorskip("qdrant_client", reason="qdrant+local needs the qdrant extra")
    result = kioko_cli("stores", "--json")
    rows = {row["scheme"]: row for row in json.loads(result.stdout)}
    for scheme, url in (
        ("qdrant+local", f"qdrant+local:///{tmp_path / 'qd'}"),
        ("sqlite", f"sqlite:///{tmp_path / 'x.db'}"),
        ("memory", "memory://"),
    ):
        with kioko.connect(url) as memory:
            caps = memory.store.capabilities
        # approximate_knn follows a store's ?ann= option, so only the promises a URL cannot change are compared
        fixed = ("transactions", "native_knn", "persistent", "multi_process")
        listed = set(rows[scheme]["capabilities"]) & set(fixed)
        assert listed == {name for name in fixed if getattr(caps, name)}, scheme
    assert "native_knn" not in rows["qdrant+local"]["capabilities"]  # as the README's table says
    assert "native_knn" in rows["qdrant"]["capabilities"]
