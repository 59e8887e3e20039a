"""No credential reaches a log line or an answer: ``kioko serve`` on PostgreSQL with a password in the store URL,
a webhook URL with a user, a password and a token whose deliveries fail, and a refused registration with a
password; every captured line of the server's output (at debug level) is searched for each planted secret.
URLs are shown with their password as ``***`` (``http://hookuser:***@127.0.0.1:PORT/hook?token=***``)."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import httpx
import pytest
import services
from console_support import kioko_serve
from ports import free_port

from kioko_core.privacy.secrets import get_logger
from kioko_core.store.url import mask_credentials, masked_url

HOOK_PASSWORD = "hookPa55-7f2c9e41"
HOOK_TOKEN = "tok-90d1c4be77"
REFUSED_PASSWORD = "refusedPa55-e1b2"


def _wait_for_line(log: Path, text: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while text not in log.read_text(encoding="utf-8", errors="replace"):
        if time.monotonic() > deadline:
            raise AssertionError(f"no log line with {text!r}: {log.read_text()[-3000:]}")
        time.sleep(0.1)


def test_no_credential_in_any_log_line_or_answer(postgres_service: services.Service, tmp_path: Path) -> None:
    if not postgres_service.available:
        services.store_unavailable("postgresql", postgres_service.how)
    store = services.postgres_database(postgres_service, "kioko_logs")
    assert services.EMBEDDED_PASSWORD in store
    port = free_port()  # nothing listens there: every delivery fails
    hook = f"http://hookuser:{HOOK_PASSWORD}@127.0.0.1:{port}/hook?token={HOOK_TOKEN}"
    shown = f"http://hookuser:***@127.0.0.1:{port}/hook?token=***"
    log = tmp_path / "serve.log"
    args = ("--log-level", "debug", "--webhook-allow", "127.0.0.1")
    with kioko_serve(store, *args, log=log) as base, httpx.Client(base_url=base, timeout=30) as api:
        registered = api.post("/v1/webhooks", json={"url": hook, "user_id": "ana"})
        assert registered.status_code == 201, registered.text
        assert registered.json()["url"] == shown
        assert [h["url"] for h in api.get("/v1/webhooks", params={"user_id": "ana"}).json()] == [shown]
        assert api.post("/v1/memories", json={"content": "Ana likes tea.", "user_id": "ana"}).status_code == 201
        _wait_for_line(log, f"webhook delivery to 127.0.0.1:{port} failed")
        refused = api.post("/v1/webhooks", json={"url": f"https://bob:{REFUSED_PASSWORD}@10.1.2.3/x", "user_id": "ana"})
        assert refused.status_code == 422
        assert REFUSED_PASSWORD not in refused.text
        answers = registered.text + api.get("/v1/webhooks", params={"user_id": "ana"}).text
        assert HOOK_PASSWORD not in answers
        assert HOOK_TOKEN not in answers
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    assert len(lines) > 10
    assert any("store PostgresStore(" in line for line in lines)
    for secret in (services.EMBEDDED_PASSWORD, HOOK_PASSWORD, HOOK_TOKEN, REFUSED_PASSWORD):
        leaked = [line for line in lines if secret in line]
        assert leaked == [], (secret, leaked)


def test_a_log_line_of_any_logger_shows_urls_with_the_password_masked(caplog: pytest.LogCaptureFixture) -> None:
    url = "https://ana:correct-horse-battery@hooks.example.com/in?sig=abc123&x=1"
    assert masked_url(url) == "https://ana:***@hooks.example.com/in?sig=***&x=1"
    # a password that looks like no secret (a word the secret screen takes for a placeholder) is masked too
    assert mask_credentials("open postgresql://kioko:secret@db:5432/kioko now") == (
        "open postgresql://kioko:***@db:5432/kioko now"
    )
    assert mask_credentials("redis://:pw@cache:6379/0 and http://host/p@th") == (
        "redis://:***@cache:6379/0 and http://host/p@th"
    )
    logger = get_logger("kioko.test.urls")
    with caplog.at_level(logging.INFO, logger="kioko.test.urls"):
        logger.info("delivery to %s failed", url)
    assert caplog.messages == ["delivery to https://ana:***@hooks.example.com/in?sig=***&x=1 failed"]
