"""Model providers named by a string, against a real OpenAI-compatible server on loopback (tests/model_server.py).

Each test scripts the server's answers and checks what the provider sent (the endpoint, the model, the
prompt, the key's header), how it retried, the router's validation and its fallback to the offline
router, and that the key shows up in no log line, error or report.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from model_server import ModelServer, Reply, ops
from ports import free_port

import kioko
from kioko import (
    ChatModel,
    KiokoError,
    MissingAPIKeyError,
    ProviderConfigError,
    UnknownProviderError,
    chat_model,
)
from kioko.cli import main
from kioko_intelligence import Intelligence
from kioko_intelligence.providers import ProviderHTTPError, ProviderTimeout

U, S = "kumar", "s1"
KEY = "sk-proj-kioko-TEST-7f3a91c2d4e85b06aa19"
GOAL = "Run the Berlin marathon"
PROGRESS = "I'm about 60% done with the marathon training."
KEY_VARS = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_ENDPOINT",
    "AZURE_OPENAI_API_VERSION",
    "OPENAI_API_VERSION",
    "OLLAMA_HOST",
    "KIOKO_LLM_API_KEY",
)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEY_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


def fast(server: ModelServer, **options: object) -> ChatModel:
    """An openai-compatible model at ``server`` with short waits, so retries cost milliseconds."""
    settings = {"timeout": 2.0, "max_wait": 0.05, **options}
    return chat_model(f"openai-compatible:{server.url}/v1#test-model", **settings)  # type: ignore[arg-type]


def progress_turn(llm: object) -> tuple[kioko.MemoryLayer, kioko.ManageReport]:
    memory = kioko.intelligent("memory://", llm=llm)
    memory.goals.add(GOAL, user_id=U)
    return memory, memory.record_turn(PROGRESS, "", user_id=U, session_id=S)


def test_openai_sends_model_prompt_and_bearer_key_and_applies_the_answer(
    server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    server.script.append(ops({"op": "goal.progress", "target": "g1", "progress": 0.6, "reason": "60% done"}))
    memory, report = progress_turn("openai:gpt-4o-mini")
    assert (report.router, report.model_calls, report.error) == ("llm", 1, None)
    assert memory.goals.open(user_id=U)[0].metadata["progress"] == 0.6
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == f"Bearer {KEY}"
    assert request["json"]["model"] == "gpt-4o-mini"
    assert request["json"]["temperature"] == 0
    [message] = request["json"]["messages"]
    assert message["role"] == "user"
    assert f"user: {PROGRESS}" in message["content"]
    assert f"g1: [goal] {GOAL} (0% done)" in message["content"]
    memory.close()


def test_azure_uses_the_deployment_path_api_version_and_api_key_header(
    server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", KEY)
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", server.url + "/")
    monkeypatch.setenv("OPENAI_API_VERSION", "2024-06-01")
    server.script.append(ops({"op": "goal.progress", "target": "g1", "progress": "60%"}))
    memory, report = progress_turn("azure:prod-gpt4o")
    assert (report.router, [op.op for op in report.ops]) == ("llm", ["goal.progress"])
    [request] = server.requests
    assert request["path"] == "/openai/deployments/prod-gpt4o/chat/completions"
    assert request["query"] == {"api-version": "2024-06-01"}
    assert request["headers"]["api-key"] == KEY
    assert "authorization" not in request["headers"]
    monkeypatch.setenv("AZURE_OPENAI_API_VERSION", "2025-01-01-preview")  # the Azure-specific name wins
    chat_model("azure:prod-gpt4o")("hello")
    assert server.requests[-1]["query"] == {"api-version": "2025-01-01-preview"}
    memory.close()


def test_ollama_reads_ollama_host_and_sends_no_key(server: ModelServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{server.port}")  # as Ollama itself takes it: no scheme
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # never sent to another provider
    model = chat_model("ollama:llama3.1:8b")
    assert model.url == f"{server.url}/v1/chat/completions"
    assert model("Say hi") == '{"operations": []}'
    [request] = server.requests
    assert request["json"]["model"] == "llama3.1:8b"
    assert "authorization" not in request["headers"]
    monkeypatch.delenv("OLLAMA_HOST")
    assert chat_model("ollama:llama3.1").url == "http://127.0.0.1:11434/v1/chat/completions"


def test_openai_compatible_sends_its_own_key_variable_only(
    server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    fast(server)("first")
    assert "authorization" not in server.requests[-1]["headers"]  # OPENAI_API_KEY is not for any server
    monkeypatch.setenv("KIOKO_LLM_API_KEY", "local-server-key")
    fast(server)("second")
    assert server.requests[-1]["headers"]["authorization"] == "Bearer local-server-key"
    assert server.requests[-1]["json"]["model"] == "test-model"


@pytest.mark.parametrize(
    "reply, error",
    [
        (Reply(body=b'{"choices": [{"message": {"content": "trunc'), "not JSON"),
        (Reply(body={"result": "no choices here"}), "not a chat completion"),
        (Reply(body={"choices": [{"message": {"content": None, "tool_calls": []}}]}), "has no text"),
        (Reply(content="Sure, I will remember that you are 60% done!"), "no operations JSON"),
        (Reply(status=400, body={"error": {"message": "model 'test-model' does not exist"}}), "HTTP 400"),
    ],
    ids=["malformed-json", "wrong-schema", "no-text", "prose", "bad-request"],
)
def test_a_bad_answer_falls_back_to_the_offline_router(server: ModelServer, reply: Reply, error: str) -> None:
    server.script.append(reply)
    memory, report = progress_turn(fast(server))
    assert report.router == "llm->heuristic"
    assert report.model_calls == 1
    assert error in (report.error or "")
    assert len(server.requests) == 1  # none of these is retried
    # the offline router decided: the turn is not lost
    assert report.ops
    assert all(op.status == "applied" for op in report.ops)
    memory.close()


def test_a_wrong_target_from_the_model_is_validated_as_today(server: ModelServer) -> None:
    server.script.append(
        ops(
            {"op": "goal.progress", "target": "g7", "progress": 0.6},
            {"op": "fact.delete", "target": "mem_of_someone_else"},
            {"op": "telepathy.add", "text": "x"},
        )
    )
    memory, report = progress_turn(fast(server))
    assert report.router == "llm"
    assert [(op.op, op.status) for op in report.ops] == [("goal.progress", "skipped"), ("fact.delete", "skipped")]
    assert memory.goals.open(user_id=U)[0].metadata.get("progress", 0) == 0
    memory.close()


def test_a_model_that_hangs_times_out_once_and_the_offline_router_decides(server: ModelServer) -> None:
    server.script.append(Reply(delay=1.5))
    memory, report = progress_turn(fast(server, timeout=0.3))
    assert report.router == "llm->heuristic"
    assert report.error is not None
    assert report.error.startswith("ProviderTimeout: openai-compatible:test-model")
    assert len(server.requests) == 1  # a read timeout is not retried
    memory.close()


def test_429_waits_for_retry_after_then_succeeds(server: ModelServer) -> None:
    server.script += [
        Reply(status=429, body={"error": {"message": "Rate limit reached"}}, headers={"Retry-After": "0.3"}),
        ops({"op": "goal.progress", "target": "g1", "progress": 0.6}),
    ]
    memory, report = progress_turn(fast(server, max_wait=1.0))
    assert (report.router, report.error) == ("llm", None)
    assert [r["path"] for r in server.requests] == ["/v1/chat/completions"] * 2
    assert server.requests[1]["at"] - server.requests[0]["at"] >= 0.3  # the server's own clock
    memory.close()


def test_a_retry_after_longer_than_max_wait_falls_back_at_once(server: ModelServer) -> None:
    server.script.append(Reply(status=429, body={"error": {"message": "quota"}}, headers={"Retry-After": "120"}))
    memory, report = progress_turn(fast(server, max_wait=1.0))
    assert report.router == "llm->heuristic"
    assert "asks to wait 120 s" in (report.error or "")
    assert len(server.requests) == 1
    memory.close()


def test_5xx_is_retried_a_bounded_number_of_times(server: ModelServer) -> None:
    server.script += [
        Reply(status=500),
        Reply(status=503),
        ops({"op": "goal.progress", "target": "g1", "progress": 0.6}),
    ]
    memory, report = progress_turn(fast(server))
    assert (report.router, len(server.requests)) == ("llm", 3)
    server.requests.clear()
    server.script += [Reply(status=502)] * 5
    model = fast(server, max_retries=1)
    with pytest.raises(ProviderHTTPError) as failed:
        model("hello")
    assert failed.value.status == 502
    assert len(server.requests) == 2
    assert len(server.script) == 3
    memory.close()


def test_a_refused_connection_is_retried_then_falls_back(caplog: pytest.LogCaptureFixture) -> None:
    port = free_port()
    model = chat_model(f"openai-compatible:http://127.0.0.1:{port}/v1#m", max_wait=0.05, max_retries=2)
    caplog.set_level(logging.WARNING, logger="kioko.intelligence.providers")
    memory, report = progress_turn(model)
    assert report.router == "llm->heuristic"
    assert "ProviderConnectionError" in (report.error or "")
    retries = [r.getMessage() for r in caplog.records]
    assert [line.split("(")[-1] for line in retries] == ["attempt 2 of 3)", "attempt 3 of 3)"]
    assert all(
        line.startswith("openai-compatible:m: ProviderConnectionError") or "ConnectError" in line for line in retries
    )
    memory.close()


def test_the_key_is_in_no_log_error_report_or_repr(
    server: ModelServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Every failure path with logging at DEBUG (httpx and httpcore included): the key appears nowhere."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    caplog.set_level(logging.DEBUG)
    model = chat_model("openai:gpt-4o-mini", max_wait=0.05, timeout=0.3)
    server.script += [
        Reply(status=401, body={"error": {"message": f"Incorrect API key provided: {KEY[:8]}***{KEY[-4:]}"}}),
        Reply(status=500, body={"error": {"message": f"upstream echoed Bearer {KEY}"}}),
        Reply(status=500, body={"error": {"message": f"upstream echoed Bearer {KEY}"}}),
        Reply(status=500, body={"error": {"message": f"upstream echoed Bearer {KEY}"}}),
        Reply(status=429, headers={"Retry-After": "0"}),
        Reply(body=b"not json"),
        Reply(delay=1.0),
    ]
    messages = []
    for _ in range(3):  # 401; 500 three times; 429 then a body that is not JSON
        with pytest.raises(KiokoError) as failed:
            model("hello")
        messages.append(f"{type(failed.value).__name__}: {failed.value}")
    memory = kioko.intelligent("memory://", llm=model)
    report = memory.record_turn(PROGRESS, "", user_id=U, session_id=S)  # the last scripted reply: a timeout
    assert report.router == "llm->heuristic"
    assert messages[0] == "ProviderHTTPError: openai:gpt-4o-mini refused the request: HTTP 401; check OPENAI_API_KEY"
    assert "[REDACTED]" in messages[1]
    everything = "\n".join([*messages, caplog.text, json.dumps(report.to_dict()), repr(model), repr(memory)])
    assert any(r.name.startswith("httpx") for r in caplog.records)  # the HTTP library's own lines were captured
    for fragment in (KEY, KEY[-12:], KEY[8:24]):
        assert fragment not in everything
    assert all(r["headers"]["authorization"] == f"Bearer {KEY}" for r in server.requests)
    assert "_key" not in vars(model)  # read from the environment at each call
    assert KEY not in repr(vars(model))
    memory.close()


def test_unknown_provider_and_missing_settings_are_typed_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UnknownProviderError, match="known: openai, azure, ollama, openai-compatible"):
        kioko.intelligent("memory://", llm="anthropic:claude-3")
    with pytest.raises(UnknownProviderError):
        Intelligence(llm="gpt-4o-mini")
    with pytest.raises(MissingAPIKeyError, match="set the OPENAI_API_KEY environment variable"):
        kioko.intelligent("memory://", llm="openai:gpt-4o-mini")
    with pytest.raises(ProviderConfigError, match="AZURE_OPENAI_ENDPOINT"):
        chat_model("azure:prod")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "http://127.0.0.1:9")
    with pytest.raises(MissingAPIKeyError, match="AZURE_OPENAI_API_KEY"):
        chat_model("azure:prod")
    with pytest.raises(ProviderConfigError, match="names no model"):
        chat_model("openai-compatible:http://127.0.0.1:8000/v1")
    with pytest.raises(ProviderConfigError, match="names no model"):
        chat_model("ollama:")
    with pytest.raises(ProviderConfigError, match="must be an http"):
        chat_model("openai-compatible:ftp://127.0.0.1/v1#m")
    with pytest.raises(ProviderConfigError, match="unknown provider option"):
        chat_model("ollama:llama3.1", api_key=KEY)
    with pytest.raises(ProviderConfigError, match="max_retries"):
        chat_model("ollama:llama3.1", max_retries=-1)
    for error in (UnknownProviderError, MissingAPIKeyError, ProviderTimeout):
        assert issubclass(error, KiokoError)


def test_config_dicts_and_strings_name_providers(server: ModelServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", server.url)
    with kioko.connect("memory://", intelligence="ollama:llama3.1") as memory:
        assert memory.manage(PROGRESS, user_id=U).router == "llm"
    with kioko.connect("memory://", intelligence={"type": "llm", "llm": "ollama:qwen2.5", "timeout": 4}) as memory:
        assert memory.manage(PROGRESS, user_id=U).model_calls == 1
    assert [r["json"]["model"] for r in server.requests] == ["llama3.1", "qwen2.5"]


def test_cli_manage_with_llm(server: ModelServer, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    server.script.append(ops({"op": "fact.add", "text": "User has two cats", "reason": "said so"}))
    llm = f"openai-compatible:{server.url}/v1#test-model"
    assert main(["manage", "I have two cats.", "--user", U, "--store", url, "--llm", llm, "--dry-run"]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == ["[llm, 1 LLM call(s)]", 'fact.add "User has two cats"']
    assert main(["manage", "I have two cats.", "--user", U, "--store", url, "--llm", "gpt-4o"]) == 2
    assert "--llm takes a provider string" in capsys.readouterr().err


def test_kioko_serve_intelligence_llm_takes_a_provider_string(server: ModelServer, tmp_path: Path) -> None:
    """A real `kioko serve` process: /v1/manage reaches the scripted model; the key stays in the environment."""
    port = free_port()
    server.script.append(ops({"op": "fact.add", "text": "User has two cats"}))
    env = {**os.environ, "KIOKO_LLM_API_KEY": KEY, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    command = [sys.executable, "-m", "kioko", "serve", "--store", f"sqlite:///{tmp_path / 's.db'}", "--port", str(port)]
    command += ["--intelligence-llm", f"openai-compatible:{server.url}/v1#served-model", "--log-level", "debug"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        # ready first (a cheap call), then the turn with room for the first request's lazy set-up on a busy machine
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=30).raise_for_status()
                break
            except (httpx.ConnectError, httpx.ReadTimeout):
                assert process.poll() is None, "kioko serve did not start"
                assert time.monotonic() < deadline, "kioko serve did not start"
                time.sleep(0.2)
        answer = httpx.post(
            f"http://127.0.0.1:{port}/v1/manage", json={"text": "I have two cats.", "user_id": U}, timeout=120
        )
        assert answer.status_code == 200, answer.text
        report = answer.json()
        assert (report["router"], [op["op"] for op in report["ops"]]) == ("llm", ["fact.add"])
        assert server.requests[-1]["json"]["model"] == "served-model"
        assert server.requests[-1]["headers"]["authorization"] == f"Bearer {KEY}"
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=20)
    assert KEY not in output
    assert "kioko serve" in output
