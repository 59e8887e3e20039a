"""``kioko ui``: serves the API and the console on loopback, prints the address and opens it in the default browser
(here $BROWSER is a script that writes down the address it was asked to open, so no browser is needed)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
from console_support import ROOT
from ports import free_port

import kioko
from kioko.cli import DEMO_USER


def test_kioko_ui_serves_the_console_and_opens_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.db'}"
    with kioko.connect(url, auto_link=True) as memory:
        memory.add("Line 3 keeps faulting with error E-217.", user_id=DEMO_USER, memory_type="episodic")
    opened = tmp_path / "opened.txt"
    recorder = tmp_path / "browser.py"
    recorder.write_text(f"import sys\nopen({str(opened)!r}, 'a').write(sys.argv[1] + '\\n')\n")
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "BROWSER": f"{sys.executable} {recorder} %s",
    }
    command = [sys.executable, "-m", "kioko", "ui", "--store", url, "--port", str(port), "--intelligence"]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        first = process.stdout.readline() if process.stdout else ""
        address = f"http://127.0.0.1:{port}/ui/?user={DEMO_USER}"
        assert first.strip() == f"kioko ui: the console is at {address}"
        deadline = time.monotonic() + 60
        while not (opened.exists() and opened.read_text().strip()):
            assert process.poll() is None, "kioko ui exited"
            assert time.monotonic() < deadline, "the browser was never asked to open the console"
            time.sleep(0.1)
        assert opened.read_text().splitlines() == [address]
        page = httpx.get(address)
        assert page.status_code == 200
        assert "Kioko console" in page.text
        answer = httpx.get(f"http://127.0.0.1:{port}/v1/memories", params={"user_id": DEMO_USER}).json()
        assert [m["content"] for m in answer["items"]] == ["Line 3 keeps faulting with error E-217."]
        assert httpx.get(f"http://127.0.0.1:{port}/v1/intelligence").json()["enabled"] is True
    finally:
        process.terminate()
        process.wait(timeout=15)
