"""OpenTelemetry spans of the public operations and their stages, seen by the SDK's own in-memory exporter."""

from __future__ import annotations

import pytest

import kioko

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace", reason="the OpenTelemetry SDK is in the test extra")
from opentelemetry import trace  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

_EXPORTER = InMemorySpanExporter()


@pytest.fixture
def spans() -> InMemorySpanExporter:
    """The process's tracer provider (set once: OpenTelemetry allows one) exporting into memory."""
    provider = trace.get_tracer_provider()
    if not isinstance(provider, sdk_trace.TracerProvider):
        provider = sdk_trace.TracerProvider()
        trace.set_tracer_provider(provider)
        provider = trace.get_tracer_provider()
    if not getattr(provider, "_kioko_test_exporter", False):
        provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))  # type: ignore[attr-defined]
        provider._kioko_test_exporter = True  # type: ignore[attr-defined]
    _EXPORTER.clear()
    return _EXPORTER


def test_add_and_recall_are_spans_with_their_stages_inside_the_callers_trace(spans: InMemorySpanExporter) -> None:
    tracer = trace.get_tracer("agent")
    with kioko.connect("memory://", auto_link=True) as memory:
        with tracer.start_as_current_span("agent.step") as step:
            memory.episodes.add("Line 3 keeps faulting with error E-217.", user_id="u", session_id="s1")
            memory.recall("line 3 faulting", user_id="u")
    finished = spans.get_finished_spans()
    names = [s.name for s in finished]
    for expected in (
        "kioko.add",
        "kioko.add.analyse",
        "kioko.add.write",
        "kioko.add.link",
        "kioko.recall",
        "kioko.recall.read",
        "kioko.recall.retrieve",
        "kioko.recall.candidates",
        "kioko.recall.context",
    ):
        assert expected in names, f"{expected} missing from {names}"
    by_name = {s.name: s for s in finished}
    trace_id = step.get_span_context().trace_id
    assert by_name["kioko.recall"].context.trace_id == trace_id, "Kioko's spans are in the agent's trace"
    assert by_name["kioko.recall"].parent.span_id == step.get_span_context().span_id
    assert by_name["kioko.recall.retrieve"].parent.span_id == by_name["kioko.recall"].context.span_id
    assert by_name["kioko.add.link"].parent.span_id == by_name["kioko.add.write"].context.span_id


def test_a_failed_operation_is_an_error_span(spans: InMemorySpanExporter) -> None:
    with kioko.connect("memory://") as memory, pytest.raises(kioko.SecretDropped):
        memory.add("password: hunter2-Xy9!", user_id="u")
    failed = [s for s in spans.get_finished_spans() if s.name == "kioko.add"]
    assert failed
    assert failed[0].status.status_code == trace.StatusCode.ERROR
    assert failed[0].status.description == "SecretDropped"
    assert failed[0].attributes["kioko.error"] == "SecretDropped"
    assert "hunter2" not in str(failed[0].attributes), "no text of the memory on a span"
    assert not failed[0].events, "the exception's message (which may quote the text) is not recorded"


def test_without_a_tracer_provider_no_span_is_made_and_one_set_later_is_used() -> None:
    """The API alone (no SDK provider set): a stage is no span at all (each one set and reset the current context
    for nothing); a provider set afterwards gets the spans from then on. In a process of its own: OpenTelemetry
    sets a provider once per process."""
    import subprocess
    import sys
    from pathlib import Path

    script = (
        "from contextlib import nullcontext\n"
        "from opentelemetry import trace\n"
        "from opentelemetry.sdk.trace import TracerProvider\n"
        "from opentelemetry.sdk.trace.export import SimpleSpanProcessor\n"
        "from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter\n"
        "from kioko_core.telemetry import stage\n"
        "assert isinstance(stage('add.link'), nullcontext)\n"
        "provider, exporter = TracerProvider(), InMemorySpanExporter()\n"
        "provider.add_span_processor(SimpleSpanProcessor(exporter))\n"
        "trace.set_tracer_provider(provider)\n"
        "with stage('add.link'):\n"
        "    pass\n"
        "assert [s.name for s in exporter.get_finished_spans()] == ['kioko.add.link']\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
