"""Rotating and revoking keys with the CLI while ``kioko serve`` runs: the old secret stops at once, and revoking
the last key of the file revokes it (the server then refuses every request; it never falls back to serving
without keys). A server started on an empty key file refuses everything, and an empty key setting is refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
from console_support import ROOT, kioko_serve

from kioko.api.auth import add_key


def _cli(*args: str) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "kioko", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _status(base: str, key: str | None, path: str = "/v1/whoami") -> int:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.get(base + path, headers=headers, timeout=30).status_code


def test_rotation_and_revocation_over_a_running_server(tmp_path: Path) -> None:
    keys = tmp_path / "keys.json"
    ana = add_key(keys, name="ana-laptop", users=["ana"])
    ops = add_key(keys, name="ops", admin=True)
    with kioko_serve("memory://", "--api-keys", str(keys), log=tmp_path / "serve.log") as base:
        assert _status(base, ana) == 200
        assert _status(base, ops) == 200
        assert _status(base, None) == 401

        rotated = _cli("keys-rotate", "--file", str(keys), "--name", "ana-laptop")
        assert rotated.startswith("kk_")
        assert rotated != ana
        assert _status(base, ana) == 401
        assert _status(base, rotated) == 200

        _cli("keys-revoke", "--file", str(keys), "--name", "ana-laptop")
        assert _status(base, rotated) == 401
        assert _status(base, ops) == 200

        _cli("keys-revoke", "--file", str(keys), "--name", "ops")  # the last key of the file
        assert json.loads(keys.read_text()) == {"keys": []}
        assert _status(base, ops) == 401
        # no key, no fallback: a request without one acts for nobody, reads and writes alike
        assert _status(base, None) == 401
        assert _status(base, None, "/v1/export?user_id=ana") == 401
        write = httpx.post(f"{base}/v1/memories", json={"content": "x", "user_id": "ana"}, timeout=30)
        assert write.status_code == 401
        assert _status(base, None, "/healthz") == 200

        again = add_key(keys, name="ops-2", admin=True)  # a key added afterwards works without a restart
        assert _status(base, again) == 200
    log = (tmp_path / "serve.log").read_text()
    assert ana not in log
    assert ops not in log
    assert rotated not in log
    assert again not in log


def test_an_empty_key_file_refuses_everything_from_the_start(tmp_path: Path) -> None:
    keys = tmp_path / "keys.json"
    keys.write_text('{"keys": []}')
    log = tmp_path / "serve.log"
    with kioko_serve("memory://", "--api-keys", str(keys), log=log) as base:
        assert _status(base, None) == 401
        assert _status(base, "kk_guess") == 401
        assert httpx.get(f"{base}/v1/memories?user_id=ana", timeout=30).status_code == 401
    assert "every request is refused" in log.read_text()


def test_an_empty_key_setting_does_not_start_a_server_without_keys(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "KIOKO_API_KEYS": "",
    }
    done = subprocess.run(
        [sys.executable, "-m", "kioko", "serve", "--store", "memory://", "--port", "1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "named as empty" in done.stderr + done.stdout
