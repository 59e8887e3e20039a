"""The ``kioko`` command through typer's CliRunner: every command, ``--json`` parsed back, errors and exit codes.

memory:// lives as long as one invocation, so flows that span commands use a SQLite file.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import BAR, as_json, kioko_cli, ok

import kioko
from kioko.cli import main
from kioko_core.store import registry

ROOT = Path(__file__).resolve().parents[2]


def test_help_reads_as_a_table_of_contents_and_version() -> None:
    text = ok("--help").stdout
    for command in (
        "add",
        "get",
        "list",
        "update",
        "delete",
        "forget-user",
        "forget-about",
        "recall",
        "related",
        "link",
        "explain",
        "trace",
        "connect",
        "graph",
        "manage",
        "mcp",
        "stores",
        "doctor",
        "demo",
    ):
        assert re.search(rf"^\W*{re.escape(command)}\s", text, re.MULTILINE), command
    assert ok("--version").stdout.strip() == f"kioko {kioko.__version__}"


def test_memories_from_add_to_forget_user_on_sqlite(url: str) -> None:
    user = ("--store", url, "--user", "kumar")
    problem = as_json("add", "Line 3 keeps faulting with error E-217.", "--type", "episodic", "--session", "s1", *user)
    fix = as_json(
        "add",
        "Fixed E-217 on line 3: the encoder cable was loose.",
        "--type",
        "episodic",
        "--session",
        "s1",
        "--meta",
        "shift=2",
        *user,
    )
    tea = as_json("add", "User likes green tea.", "--type", "preference", *user)
    assert fix["metadata"]["shift"] == 2
    assert fix["session_id"] == "s1"
    assert [k["target"] for k in fix["links"]] == [problem["id"]]
    assert fix["links"][0]["type"] == "resolves"

    listed = as_json("list", *user)
    assert [m["id"] for m in listed] == [tea["id"], fix["id"], problem["id"]]
    assert [m["id"] for m in as_json("list", "--type", "episodic", "--limit", "1", *user)] == [fix["id"]]
    assert fix["id"] in ok("list", *user).stdout  # ids are printed whole, to be copied
    assert [m["id"] for m in as_json("list", "--text", "E-217", *user)] == [fix["id"], problem["id"]]
    assert [m["id"] for m in as_json("list", "--text", "green TEA", "--session", "s1", *user)] == []

    got = as_json("get", problem["id"], *user)
    assert got["content"] == problem["content"]
    assert got["links"][0]["source"] == fix["id"]
    assert "resolves" in ok("get", problem["id"], *user).stdout

    context = as_json("recall", "E-217 on line 3", "--limit", "2", *user)
    assert {m["id"] for m in context["memories"]} == {problem["id"], fix["id"]}
    assert all(m["signals"] and m["section"] for m in context["memories"])
    assert "How these memories connect:" in ok("recall", "E-217 on line 3", *user).stdout

    updated = as_json("update", tea["id"], "--text", "User likes jasmine tea.", *user)
    assert updated["content"] == "User likes jasmine tea."
    assert updated["version"] == 2
    assert kioko_cli("update", tea["id"], *user).exit_code == 2  # nothing to change

    assert as_json("delete", tea["id"], *user) == {"deleted": tea["id"]}
    again = kioko_cli("delete", tea["id"], *user)
    assert again.exit_code == 1
    assert f"kioko: no memory {tea['id']!r} for user 'kumar';" in again.stderr
    assert again.stderr.count("no memory") == 1  # said once, not nested in itself
    refused = kioko_cli("forget-user", *user)
    assert refused.exit_code == 2
    assert "--yes" in refused.stderr
    assert len(as_json("list", *user)) == 2
    assert as_json("forget-user", "--yes", *user)["deleted"] >= 2
    assert as_json("list", *user) == []


def test_links_related_explain_trace_and_graph(url: str, tmp_path: Path) -> None:
    with kioko.connect(url, auto_link=True) as memory:
        import io

        from kioko.cli import run_quick_start

        ids = run_quick_start(memory, "kumar", out=io.StringIO())
    user = ("--store", url, "--user", "kumar")

    related = as_json("related", ids["fault"], "--depth", "2", *user)
    assert ids["fix"] in [r["id"] for r in related]
    assert all(r["path"] for r in related)
    assert "resolves" in ok("related", ids["fault"], *user).stdout

    score = as_json("explain", ids["fix"], ids["fault"], *user)
    assert score["linked"] is True
    assert score["type"] == "resolves"
    assert "cue" in score["signals"]
    assert "linked as resolves" in ok("explain", ids["fix"], ids["fault"], *user).stdout

    made = as_json("link", ids["procedure"], ids["plc"], "--type", "related_to", "--why", "both about line 3", *user)
    assert made["by"] == "manual"
    assert made["why"] == "both about line 3"
    chain = as_json("trace", ids["procedure"], ids["plc"], *user)
    assert [(k["source"], k["target"]) for k in chain] == [(ids["procedure"], ids["plc"])]
    assert as_json("link", ids["procedure"], ids["plc"], "--remove", *user)["unlinked"] is True
    assert as_json("trace", ids["procedure"], ids["plc"], *user) == []
    assert "no chain" in ok("trace", ids["procedure"], ids["plc"], *user).stdout
    bad = kioko_cli("link", ids["fix"], ids["fault"], "--type", "likes", *user)
    assert bad.exit_code == 2
    assert "unknown link type" in bad.stderr

    drawn = as_json("graph", *user)
    assert {n["id"] for n in drawn["nodes"]} >= {ids["fix"], ids["fault"]}
    assert drawn["edges"]
    dot = ok("graph", "--format", "dot", "--center", ids["fault"], *user).stdout
    assert dot.startswith("digraph kioko {")
    assert f'"{ids["fix"]}" -> "{ids["fault"]}"' in dot
    page = tmp_path / "graph.html"
    ok("graph", "--format", "html", "--output", str(page), *user)
    html = page.read_text()
    assert html.startswith("<!doctype html>")
    assert "<svg" in html
    assert ids["fix"] in html
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)  # self-contained: nothing fetched
    assert kioko_cli("graph", "--format", "png", *user).exit_code == 2


def test_connect_links_old_memories_and_its_bar_stays_out_of_json_and_pipes(url: str) -> None:
    with kioko.connect(url, auto_link=False) as memory:  # written with linking off
        for n in range(6):
            memory.add(f"Pump P-{n % 2} on line 3 leaks oil at the seal, report {n}.", user_id="kumar")
    user = ("--store", url, "--user", "kumar")
    piped = ok("connect", *user)  # CliRunner's streams are not terminals
    assert piped.stdout.startswith("linked 6 memories:")
    assert not BAR.search(piped.output)
    shown = ok("connect", "--rebuild", *user, env={"TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1", "NO_COLOR": "1"})
    assert "━" in shown.stderr  # on a terminal the bar is drawn, on stderr only
    assert "6/6" in shown.stderr
    assert not BAR.search(shown.stdout)
    report = json.loads(ok("connect", "--rebuild", "--json", *user, env={"TTY_COMPATIBLE": "1"}).stdout)
    assert report["memories"] == 6
    assert report["links"] > 0
    assert not BAR.search(kioko_cli("connect", "--rebuild", "--json", *user, env={"TTY_COMPATIBLE": "1"}).stderr)


def test_import_shows_a_bar_on_a_terminal_only(url: str, tmp_path: Path) -> None:
    with kioko.connect(url) as memory:
        memory.add_many([f"Pump P-{n} on line 3 leaks oil at the seal." for n in range(5)], user_id="kumar")
        lines = list(memory.export_lines("kumar"))
    export = tmp_path / "kumar.jsonl"
    export.write_text("".join(lines))
    target = f"sqlite:///{tmp_path / 'copy.db'}"
    terminal = {"TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1", "NO_COLOR": "1"}
    shown = ok("import", str(export), "--store", target, env=terminal)
    assert "━" in shown.stderr
    assert "importing" in shown.stderr
    assert "5 records: 5 written" in shown.stderr
    again = ok("import", str(export), "--store", target)  # CliRunner's streams are not terminals
    assert not BAR.search(again.stderr)
    assert "5 already there" in again.stderr
    assert not BAR.search(ok("import", str(export), "--store", target, "--quiet", env=terminal).stderr)
    with kioko.connect(target) as copy:
        assert len(list(copy.memories(user_id="kumar"))) == 5


def test_each_invocation_on_memory_works_on_its_own() -> None:
    user = ("--store", "memory://", "--user", "kumar")
    assert as_json("add", "We decided to use SQLite for the laptop build.", "--type", "decision", *user)["version"] == 1
    assert as_json("list", *user) == []  # memory:// does not outlive the command
    assert ok("recall", "laptop build", *user).stdout.strip() == "(nothing relevant is remembered)"
    assert as_json("recall", "laptop build", *user)["memories"] == []
    assert "Links made at write time:" in ok("demo", "--store", "memory://").stdout
    shown = as_json("demo", "--store", "memory://", "--user", "ann")
    assert shown["user_id"] == "ann"
    assert set(shown["ids"]) >= {"goal", "fix"}
    assert "resolves" in shown["output"]
    report = as_json("manage", "I'm Kumar, I live in Pune.", "--dry-run", *user)
    assert report["dry_run"] is True
    assert {op["op"] for op in report["ops"]} == {"profile.set"}
    assert as_json("doctor", *user)["memories"] == {}
    missing = kioko_cli("get", "0123", *user)
    assert missing.exit_code == 1
    assert "no memory '0123'" in missing.stderr


def test_stores_and_doctor(url: str) -> None:
    rows = {row["scheme"]: row for row in as_json("stores")}
    assert {"memory", "sqlite", "postgresql", "qdrant"} <= set(rows)
    assert rows["sqlite"]["installed"]
    assert "persistent" in rows["sqlite"]["capabilities"]
    assert "persistent" not in rows["memory"]["capabilities"]
    ok("add", "The PLC network uses 10.20.0.0/16.", "--store", url, "--user", "kumar")
    checks = as_json("doctor", "--store", url, "--user", "kumar")
    assert checks["ok"]
    assert checks["dim"] == 256
    assert checks["driver"].endswith("SQLiteStore")
    assert checks["memories"] == {"factual": 1}
    assert checks["python"]
    assert "store opened: OK" in ok("doctor", "--store", url).stdout


def test_usage_errors_exit_2_failures_exit_1_and_never_a_traceback(url: str) -> None:
    no_user = kioko_cli("add", "hello", "--store", url)
    assert no_user.exit_code == 2
    assert "Missing option '--user'" in no_user.stderr
    bad_url = kioko_cli("add", "hello", "--store", "nosuch://x", "--user", "kumar")
    assert bad_url.exit_code == 2
    assert "known schemes" in bad_url.stderr
    assert "sqlite" in bad_url.stderr
    bad_type = kioko_cli("add", "hello", "--type", "rumour", "--store", url, "--user", "kumar")
    assert bad_type.exit_code == 2
    assert "unknown memory_type" in bad_type.stderr
    secret = kioko_cli("add", "my api key is sk-abcdefghijklmnopqrstuvwxyz123456", "--store", url, "--user", "kumar")
    assert secret.exit_code == 2
    for result in (no_user, bad_url, bad_type, secret):
        assert "Traceback" not in result.output
        assert len(result.stderr.strip().splitlines()) == 1
        assert result.stderr.startswith("kioko: ")
    debug = kioko_cli("--debug", "get", "nope", "--store", url, "--user", "kumar")
    assert debug.exit_code == 1
    assert "Traceback" in debug.stderr
    assert "MemoryNotFound" in debug.stderr
    assert kioko_cli("no-such-command").exit_code == 2


def test_a_missing_extra_names_the_pip_install(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    # a scheme whose driver library is absent, exactly as postgresql:// is without kioko[postgres]
    monkeypatch.setitem(registry.BUILTIN_STORES, "fancydb", ("kioko_fancydb_driver_not_installed:Store", "fancydb"))
    result = kioko_cli("list", "--store", "fancydb://host/db", "--user", "kumar")
    assert result.exit_code == 1
    assert "pip install 'kioko[fancydb]'" in result.stderr
    row = next(r for r in as_json("stores") if r["scheme"] == "fancydb")
    assert not row["installed"]
    assert row["missing"] == "pip install 'kioko[fancydb]'"
    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)  # as if the mcp extra were not installed
    result = kioko_cli("mcp", "--store", url, "--user", "kumar")
    assert result.exit_code == 1
    assert "pip install 'kioko[mcp]'" in result.stderr


def test_mcp_rejects_a_bad_transport(url: str) -> None:
    result = kioko_cli("mcp", "--store", url, "--user", "kumar", "--transport", "carrier-pigeon")
    assert result.exit_code == 2
    assert "stdio or http" in result.stderr


def test_bench_is_no_installed_command_but_points_at_the_benchmark() -> None:
    """The benchmark needs the repository's benchmarks/ folder, which a package does not ship
    (tests/bench/test_bench_smoke.py runs it): the old spelling says where it went."""
    assert not re.search(r"^\W*bench\s", ok("--help").stdout, re.MULTILINE)
    result = kioko_cli("bench", "--quick", "--stores", "memory")
    assert result.exit_code == 2
    assert "benchmarks/memory_graph_bench.py" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_main_returns_the_status_instead_of_exiting(url: str, capsys: pytest.CaptureFixture) -> None:
    assert main(["add", "hello world", "--store", url, "--user", "kumar"]) == 0
    assert main(["get", "nope", "--store", url, "--user", "kumar"]) == 1
    assert main(["add", "hello"]) == 2
    assert "kioko: " in capsys.readouterr().err


def test_the_installed_command_end_to_end(url: str) -> None:
    """``python -m kioko`` is what the ``kioko`` entry point runs (kioko.cli:main), in a fresh process."""

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "kioko", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "HOME": str(Path(url[10:]).parent)},
            timeout=120,
        )

    added = run(
        "add",
        "Line 3 keeps faulting with error E-217.",
        "--type",
        "episodic",
        "--store",
        url,
        "--user",
        "kumar",
        "--json",
    )
    assert added.returncode == 0, added.stderr
    memory_id = json.loads(added.stdout)["id"]
    recalled = run("recall", "E-217", "--store", url, "--user", "kumar", "--json")
    assert recalled.returncode == 0
    assert [m["id"] for m in json.loads(recalled.stdout)["memories"]] == [memory_id]
    failed = run("get", "nope", "--store", url, "--user", "kumar")
    assert failed.returncode == 1
    assert failed.stderr.startswith("kioko: no memory")
    assert "\x1b[" not in failed.stderr


def test_the_demo_writes_to_a_store_of_its_own(tmp_path: Path) -> None:
    """Trying Kioko never fills the user's own store: without --store the demo writes demo.db in the data
    directory, whatever $KIOKO_URL says, and says how to open it in the console."""
    own = tmp_path / "mine.db"
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "KIOKO_URL": f"sqlite:///{own}", "KIOKO_EMBEDDER": "offline"}
    shown = as_json("demo", env=env)
    demo_file = tmp_path / "data" / "kioko" / "demo.db"
    assert str(demo_file) in shown["store"]
    assert not own.exists()
    with kioko.connect(f"sqlite:///{demo_file}") as memory:
        assert len(list(memory.memories(user_id=shown["user_id"]))) == 9
    assert "kioko ui --demo" in ok("demo", env=env).stdout


def test_the_console_opens_the_demo_or_a_store_not_both() -> None:
    refused = kioko_cli("ui", "--demo", "--store", "memory://", "--no-browser")
    assert refused.exit_code == 2
    assert "not both" in refused.stderr
