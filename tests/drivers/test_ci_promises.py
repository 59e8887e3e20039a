"""CI keeps its promises: a store a job promises (KIOKO_TEST_REQUIRE) fails the run when it cannot start,
instead of skipping while the job stays green; and the workflow has no job that cannot fail."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import services

ROOT = Path(__file__).resolve().parents[2]
ONE_SERVER_TEST = "tests/drivers/test_contract_matrix.py::TestContractMatrix::test_concurrent_increments_lose_no_update[qdrant-server]"


def _run_one_server_test(**env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in {"KIOKO_TEST_QDRANT_URL", "KIOKO_TEST_REQUIRE"}}
    # no Docker daemon can answer here, even on a runner that has one: the server cannot start
    environment |= {"DOCKER_HOST": "unix:///nonexistent/kioko-no-docker.sock", "PYTHONPATH": str(ROOT), **env}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", ONE_SERVER_TEST],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_promised_qdrant_server_that_cannot_start_fails_under_ci() -> None:
    promised = _run_one_server_test(CI="true", KIOKO_TEST_REQUIRE="qdrant-server")
    assert promised.returncode == 1, promised.stdout[-2000:]
    assert "could not start, and CI=true requires it" in promised.stdout


def test_a_misspelt_promise_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(services.REQUIRE_VARIABLE, "qdrant-sever")
    with pytest.raises(ValueError, match="names no store"):
        services.required_under_ci()
    monkeypatch.setenv(services.REQUIRE_VARIABLE, "qdrant-server, postgresql")
    assert {"qdrant-server", "postgresql", "sqlite"} <= services.required_under_ci()


def test_no_workflow_job_is_allowed_to_fail_quietly() -> None:
    for workflow in (ROOT / ".github" / "workflows").glob("*.yml"):
        text = workflow.read_text()
        assert "continue-on-error" not in text, workflow.name
    main = (ROOT / ".github" / "workflows" / "ci.yml").read_text()
    assert "KIOKO_TEST_REQUIRE: qdrant-server" in main, "the Docker job promises the Qdrant server"
