"""/metrics (Prometheus text format) and memory.stats(): the series move with what the layer did."""

from __future__ import annotations

import hashlib
import time

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

import kioko
from kioko.api.auth import KeyRing
from kioko.http import create_app
from kioko.http.live import LiveServer
from kioko_core import telemetry
from kioko_core.privacy.secrets import SecretDropped

U = "metrics-user"


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of an exposition, by name and labels."""
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def _value(samples: dict, name: str, **labels: str) -> float:
    """The sum of the samples of ``name`` whose labels include ``labels`` (0 when none)."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= set(ls))


@pytest.fixture
def served():
    layer = kioko.connect("memory://", auto_link=True)
    with LiveServer(create_app(layer)) as server:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            yield http
    layer.close()


def test_metrics_show_requests_operations_and_writes_after_a_recall_and_a_write(served: httpx.Client) -> None:
    before = _samples(served.get("/metrics").text)
    fault = {
        "content": "Line 3 keeps faulting with error E-217.",
        "user_id": U,
        "memory_type": "episodic",
        "session_id": "s1",
    }
    made = served.post("/v1/memories", json=fault)
    assert made.status_code == 201
    fix = {**fault, "content": "Found it: the encoder cable on line 3 was loose."}
    assert served.post("/v1/memories", json=fix).status_code == 201
    assert served.post("/v1/recall", json={"query": "line 3 faulting", "user_id": U}).status_code == 200
    assert served.delete(f"/v1/memories/{made.json()['id']}", params={"user_id": U}).status_code in (200, 204)
    answer = served.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain")
    after = _samples(answer.text)

    def moved(name: str, **labels: str) -> float:
        return _value(after, name, **labels) - _value(before, name, **labels)

    assert moved("kioko_http_requests_total", route="/v1/memories", method="POST", status="201") == 2
    assert moved("kioko_http_requests_total", route="/v1/recall", method="POST", status="200") == 1
    # the route's template, never the path with the memory's id
    assert moved("kioko_http_requests_total", route="/v1/memories/{memory_id}", method="DELETE") == 1
    assert made.json()["id"] not in answer.text
    assert moved("kioko_operations_total", operation="add", outcome="ok") == 2
    assert moved("kioko_operations_total", operation="recall", outcome="ok") == 1
    assert moved("kioko_operation_seconds_count", operation="recall") == 1
    assert moved("kioko_operation_seconds_bucket", operation="recall", le="+Inf") == 1
    assert moved("kioko_memories_written_total", kind="episodic") == 2
    assert moved("kioko_memories_linked_total") >= 1, "the fix was linked to the fault at write time"
    assert moved("kioko_memories_forgotten_total") == 1
    assert moved("kioko_http_request_seconds_count", route="/v1/recall", method="POST") == 1
    assert moved("kioko_index_cache_total", outcome="fetch") >= 1, "the first write read postings from the store"
    assert moved("kioko_index_cache_total", outcome="hit") >= 1, "a later lookup was answered from the cache"


def test_a_refused_secret_is_counted_by_kind_and_the_secret_is_nowhere_in_the_metrics(served: httpx.Client) -> None:
    token = "ghp_Zq8vT1mR4kP0wX7yB2nL9cJ5hF3dG6sA1eU0"
    before = _samples(served.get("/metrics").text)
    refused = served.post("/v1/memories", json={"content": f"our deploy token is {token}", "user_id": U})
    assert refused.status_code == 422
    text = served.get("/metrics").text
    after = _samples(text)
    assert _value(after, "kioko_secrets_refused_total") - _value(before, "kioko_secrets_refused_total") >= 1
    assert _value(after, "kioko_operations_total", operation="add", outcome="SecretDropped") > _value(
        before, "kioko_operations_total", operation="add", outcome="SecretDropped"
    )
    assert token not in text


def test_with_keys_metrics_carry_key_names_never_keys_and_only_an_admin_reads_them() -> None:
    admin_key, user_key = "kk_admin_" + "a" * 30, "kk_user_" + "b" * 30
    ring = KeyRing.from_config(
        {
            "keys": [
                {"name": "ops", "sha256": hashlib.sha256(admin_key.encode()).hexdigest(), "admin": True},
                {"name": "agent-7", "sha256": hashlib.sha256(user_key.encode()).hexdigest(), "users": [U]},
            ]
        }
    )
    layer = kioko.connect("memory://")
    try:
        with LiveServer(create_app(layer, api_keys=ring)) as server, httpx.Client(base_url=server.url) as http:
            as_user = {"authorization": f"Bearer {user_key}"}
            as_admin = {"authorization": f"Bearer {admin_key}"}
            assert (
                http.post("/v1/memories", json={"content": "a note", "user_id": U}, headers=as_user).status_code == 201
            )
            assert http.get("/metrics").status_code == 401
            assert http.get("/metrics", headers=as_user).status_code == 403
            answer = http.get("/metrics", headers=as_admin)
            assert answer.status_code == 200
            samples = _samples(answer.text)
            assert _value(samples, "kioko_http_requests_total", route="/v1/memories", key="agent-7") >= 1
            assert user_key not in answer.text
            assert admin_key not in answer.text
    finally:
        layer.close()


def test_webhook_deliveries_are_counted_by_outcome() -> None:
    from service_support import Receiver

    from kioko.api.webhook_guard import WebhookGuard
    from kioko.http.events import Dispatcher

    receiver = Receiver(fail_first=1)  # the first try fails, the retry is delivered
    dispatcher = Dispatcher(guard=WebhookGuard(["127.0.0.1"]), retry_delays=(0.0,))
    before = {o: telemetry.counter_value("webhook_deliveries_total", outcome=o) for o in ("retried", "delivered")}
    try:
        assert dispatcher.submit(receiver.url, "s" * 32, "memory.added", {"n": 1})
        receiver.wait_for(2)
        # the receiver has both requests; the dispatcher counts the delivery once the answer is back
        deadline = time.monotonic() + 30
        while dispatcher.delivered < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        dispatcher.close()
    for outcome in ("retried", "delivered"):
        assert telemetry.counter_value("webhook_deliveries_total", outcome=outcome) == before[outcome] + 1, outcome


def test_stats_in_process_move_with_the_library_calls() -> None:
    with kioko.connect("memory://", auto_link=True) as memory:
        before = telemetry.counter_value("operations_total", operation="recall", outcome="ok")
        written = telemetry.counter_value("memories_written_total", kind="goal")
        memory.goals.add("Ship the metrics by Friday", user_id=U)
        memory.recall("metrics", user_id=U)
        with pytest.raises(SecretDropped):
            memory.add("password: hunter2-Xy9!", user_id=U)
        stats = memory.stats()
    recalls = [
        r for r in stats["counters"]["operations_total"] if r["labels"] == {"operation": "recall", "outcome": "ok"}
    ]
    assert recalls[0]["value"] == before + 1
    assert telemetry.counter_value("memories_written_total", kind="goal") == written + 1
    timing = [h for h in stats["histograms"]["operation_seconds"] if h["labels"] == {"operation": "recall"}][0]
    assert timing["buckets"][-1] == [float("inf"), timing["count"]]
    assert any(r["labels"].get("outcome") == "SecretDropped" for r in stats["counters"]["operations_total"])


def test_a_correction_that_supersedes_is_counted() -> None:
    memory = kioko.intelligent("memory://")
    try:
        memory.record_turn("My editor is Vim.", user_id=U)
        before = telemetry.counter_value("memories_superseded_total")
        memory.record_turn("I switched from Vim to Helix last month.", user_id=U)
        assert telemetry.counter_value("memories_superseded_total") == before + 1
    finally:
        memory.close()


def test_an_unknown_series_is_refused() -> None:
    with pytest.raises(KeyError, match="not one of Kioko's series"):
        telemetry.count("made_up_total")
