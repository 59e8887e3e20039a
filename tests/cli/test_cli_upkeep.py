"""``kioko plan``, ``recall --plan``, ``maintain``, ``end-session``, ``pin`` / ``unpin`` through typer's CliRunner.

memory:// lives as long as one invocation, so the flows that span commands run on a SQLite file;
each command also runs once on memory:// on its own.
"""

from __future__ import annotations

import json

import pytest
from cli_support import BAR, as_json, kioko_cli, ok

import kioko
from kioko_intelligence.maintenance import TASKS

DEBUGGING = "I'm debugging ticket INC-4521, the drive shows error E-217 on line 3."
TERMINAL = {"TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1", "NO_COLOR": "1"}


def test_plan_prints_the_intents_and_caps_and_json_is_the_library_plan(url: str) -> None:
    user = ("--store", url, "--user", "kumar")
    shown = ok("plan", "How do I reset the safety relay?", *user).stdout
    assert shown.startswith("intents: howto\nwhy: ")
    assert "procedures" in shown
    assert "links: 3" in shown
    planned = as_json("plan", "How do I reset the safety relay?", *user)
    with kioko.connect(url) as memory:
        assert planned == memory.plan("How do I reset the safety relay?", user_id="kumar").to_dict()
    assert as_json("plan", "thanks!", "--store", "memory://", "--user", "kumar")["intents"] == ["smalltalk"]


def test_recall_follows_a_plan_on_request(url: str) -> None:
    user = ("--store", url, "--user", "kumar")
    with kioko.connect(url) as memory:
        for day in range(12):
            memory.episodes.add(f"Line 3 stopped for a jam on day {day}.", user_id="kumar")
    assert len(as_json("recall", "When did line 3 stop for a jam?", *user)["memories"]) == 8
    planned = as_json("recall", "When did line 3 stop for a jam?", "--plan", "auto", *user)
    assert len(planned["memories"]) == 10
    assert planned["plan"]["intents"] == ["temporal"]
    assert len(as_json("recall", "When did line 3 stop?", "--plan", "auto", "--limit", "4", *user)["memories"]) == 4
    bad = kioko_cli("recall", "x", "--plan", "sometimes", *user)
    assert bad.exit_code == 2
    assert "auto or off" in bad.stderr


def test_end_session_and_pins_on_sqlite(url: str) -> None:
    user = ("--store", url, "--user", "kumar")
    with kioko.connect(url) as memory:
        memory.working.set("task", "Debugging the E-217 drive fault on line 3", session_id="s1", user_id="kumar")
        memory.working.set("root_cause", "a loose encoder cable", session_id="s1", user_id="kumar")
        subnet = memory.facts.add("The plant's PLC network uses the 10.20.0.0/16 subnet", user_id="kumar")
    episode = as_json("end-session", "s1", *user)
    assert episode["kind"] == "episodic"
    assert episode["content"].startswith("Session s1: Debugging the E-217")
    assert ok("end-session", "s1", *user).stdout.startswith("session s1 had nothing lasting")  # cleared already
    assert as_json("end-session", "s2", *user) is None

    assert ok("pin", subnet.id, *user).stdout.strip() == f"pinned {subnet.id} (1 pinned now)"
    pinned = as_json("pin", subnet.id, *user)  # pinning twice changes nothing
    assert pinned["pinned"] == [subnet.id]
    assert pinned["metadata"]["pinned"] is True
    assert "Keep in mind" in ok("recall", "station 12", *user).stdout
    assert as_json("unpin", subnet.id, *user)["pinned"] == []
    missing = kioko_cli("pin", "nope", *user)
    assert missing.exit_code == 1
    assert "kioko list" in missing.stderr
    with kioko.connect(url) as memory:
        name = memory.profile.set("name", "Kumar", user_id="kumar")
    refused = kioko_cli("pin", name.id, *user)
    assert refused.exit_code == 2
    assert "cannot be pinned" in refused.stderr


def test_maintain_one_user_or_every_user_with_a_bar_only_on_a_terminal(url: str) -> None:
    with kioko.connect(url, intelligence=True) as memory:
        memory.record_turn(DEBUGGING, session_id="s1", user_id="kumar")
        memory.record_turn("I'm debugging ticket INC-7, the pump shows error P-3.", session_id="t1", user_id="asha")
    store = ("--store", url)
    every = as_json("maintain", "--tasks", "end_sessions", *store)
    assert set(every) == {"asha", "kumar"}
    assert all(len(r["end_sessions"]) == 1 for r in every.values())
    one = as_json("maintain", "--user", "kumar", *store)
    assert set(one) == {"kumar"}
    assert set(one["kumar"]) == set(TASKS)
    assert set(as_json("maintain", "--tasks", "end_sessions,tend", "--user", "asha", *store)["asha"]) == {
        "end_sessions",
        "tend",
    }
    piped = ok("maintain", *store)  # CliRunner's streams are not terminals: a table, no bar
    assert "kumar" in piped.stdout
    assert "asha" in piped.stdout
    assert not BAR.search(piped.output)
    shown = ok("maintain", "--tasks", "tend", *store, env=TERMINAL)
    assert "2/2" in shown.stderr  # the bar, on stderr only
    assert "━" in shown.stderr
    assert "━" not in shown.stdout
    assert "\r" not in shown.stdout
    assert "asha" in shown.stdout
    quiet = kioko_cli("maintain", "--json", *store, env=TERMINAL)
    assert quiet.exit_code == 0
    assert not BAR.search(quiet.stderr)
    assert set(json.loads(quiet.stdout)) == {"asha", "kumar"}
    for bad in (["--tasks", "reflect-on-everything"], ["--tasks", ","], ["--agent", "bot"]):
        result = kioko_cli("maintain", *bad, *store)
        assert result.exit_code == 2, (bad, result.output)
        assert "Traceback" not in result.output, (bad, result.output)
    assert "known: " + ", ".join(TASKS) in kioko_cli("maintain", "--tasks", "nope", *store).stderr


@pytest.mark.parametrize(
    "command",
    [
        ["plan", "Why did we choose pgvector?"],
        ["recall", "line 3", "--plan", "auto"],
        ["maintain"],
        ["maintain", "--user", "kumar", "--tasks", "tend"],
        ["end-session", "s1"],
    ],
)
def test_each_command_works_on_memory_on_its_own(command: list[str]) -> None:
    if command[0] == "maintain" and "--user" not in command:
        assert as_json(*command, "--store", "memory://") == {}  # nobody has turns counted in a new store
        assert "nothing to maintain" in ok(*command, "--store", "memory://").stdout
        return
    as_json(*command, "--store", "memory://", "--user", "kumar")


def test_pin_on_memory_fails_cleanly() -> None:
    result = kioko_cli("pin", "0123", "--store", "memory://", "--user", "kumar")
    assert result.exit_code == 1
    assert result.stderr.startswith("kioko: ")
    assert "Traceback" not in result.output


def test_ui_is_a_command() -> None:
    # (running it serves until stopped: tests/console/test_console_cli.py runs it as a process)
    shown = ok("ui", "--help").stdout
    assert "--store" in shown
    assert "--intelligence" in shown
    assert "--no-browser" in shown
    assert " ui " in ok("--help").stdout
