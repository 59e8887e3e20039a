"""The console's browser tests' machinery: Debian's chromium driven by Selenium, and ``kioko serve`` on loopback.

Nothing here downloads a browser: the browser is ``/usr/bin/chromium`` (the Debian package ``chromium``) and the
driver ``/usr/bin/chromedriver`` (``chromium-driver``), both named explicitly so Selenium never looks elsewhere.
``.ci/run`` and the Makefile install them; under CI=true a missing browser is a failure, locally a skip whose
reason says what to install.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from ports import free_port, stop_process

ROOT = Path(__file__).resolve().parent.parent
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)
SHOTS_ENV = "KIOKO_CONSOLE_SHOTS"
"""Set to a directory (the docs use docs/img/console) to keep the screenshots there instead of a temp dir."""


def browser_paths() -> tuple[str, str] | str:
    """(chromium, chromedriver), or the reason they cannot be used."""
    chromium = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    driver = shutil.which("chromedriver") or (
        "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None
    )
    if chromium is None or driver is None:
        return "no chromium/chromedriver: apt-get install -y chromium chromium-driver (the Makefile's browser target)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed: pip install 'kioko[test]'"
    return chromium, driver


def require_browser() -> tuple[str, str]:
    """The browser's paths; skips with the reason locally, fails under CI=true (CI must run these tests)."""
    found = browser_paths()
    if isinstance(found, str):
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI runs the console's browser tests, but {found}")
        pytest.skip(found)
    return found


def start_browser(chromium: str, driver: str, width: int = 1280, height: int = 800) -> Any:
    """A headless chromium with a fresh profile, its console messages kept for :func:`console_errors`."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must not fetch anything
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='kioko-chromium-')}")
    options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    viewport(browser, width, height)
    return browser


def viewport(browser: Any, width: int, height: int) -> None:
    """Make the page's viewport exactly width x height CSS pixels (the window's size includes no frame here,
    but headless chromium's default differs between versions)."""
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )


def console_errors(browser: Any) -> list[dict[str, Any]]:
    """The browser console's errors since the last call (chromedriver hands each entry out once)."""
    return [entry for entry in browser.get_log("browser") if entry.get("level") == "SEVERE"]


@contextmanager
def kioko_serve(store: str, *args: str, log: Path | None = None) -> Iterator[str]:
    """``python -m kioko serve --store STORE ARGS`` on a free loopback port until the block ends; yields its base URL.

    Its output (the request log included) goes to ``log``. A port taken between the choice and the server's bind
    (by anything else on the machine) gets the server started again on another one.
    """
    log = log or Path(tempfile.mkstemp(prefix="kioko-serve-", suffix=".log")[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    for attempt in range(3):
        port = free_port()
        command = [sys.executable, "-m", "kioko", "serve", "--store", store, "--port", str(port), *args]
        with open(log, "wb") as sink:
            process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        try:
            if _answers(process, base, log, last=attempt == 2):
                yield base
                return
        finally:
            stop_process(process)


def _answers(process: subprocess.Popen[bytes], base: str, log: Path, *, last: bool) -> bool:
    """Wait until the server at ``base`` answers /healthz: True; False when it exited because its port was taken
    (and this is not the ``last`` try); any other exit or 60 s of silence is an error."""
    deadline = time.monotonic() + 60
    while True:
        if process.poll() is not None:
            output = log.read_text()
            if "address already in use" in output and not last:
                return False
            raise RuntimeError(f"kioko serve exited with {process.returncode}: {output[-2000:]}")
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return True
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"kioko serve did not answer within 60 s: {log.read_text()[-2000:]}")
        time.sleep(0.1)


def shots_dir() -> Path:
    """Where screenshots go: $KIOKO_CONSOLE_SHOTS (e.g. docs/img/console), else a fresh temp dir."""
    chosen = os.environ.get(SHOTS_ENV)
    path = Path(chosen) if chosen else Path(tempfile.mkdtemp(prefix="kioko-console-shots-"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def wait(browser: Any, css: str, text: str | None = None, timeout: float = 20.0) -> Any:
    """The first visible element matching ``css`` (containing ``text``), waiting for it to appear."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    def found(driver: Any) -> Any:
        for element in driver.find_elements(By.CSS_SELECTOR, css):
            if element.is_displayed() and (text is None or text in element.text):
                return element
        return False

    # a re-render replaces elements between finding and reading them: that is a retry, not a failure
    return WebDriverWait(
        browser, timeout, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException,)
    ).until(found, f"no visible {css!r}" + (f" with {text!r}" if text else ""))


def find(browser: Any, css: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return browser.find_elements(By.CSS_SELECTOR, css)


def tab(browser: Any, name: str) -> Any:
    wait(browser, f"#tab-{name}").click()
    return wait(browser, f"#panel-{name}")


def typed(browser: Any, css: str, text: str) -> None:
    element = wait(browser, css)
    element.clear()
    element.send_keys(text)
