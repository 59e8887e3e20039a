"""What the process has done, for operators: counters, timings and trace spans of the public operations.

Three audiences read the same figures:

- ``memory.stats()`` returns :func:`snapshot` (plain numbers, no dependency);
- ``kioko serve`` exposes them at ``/metrics`` in the Prometheus text format, and
  :func:`kioko.metrics.registry` gives a host application a ``prometheus_client`` registry to mount;
- with the ``otel`` extra (the OpenTelemetry API), each public operation and its stages are spans of the
  tracer ``"kioko"``, so a host application's trace shows Kioko inside an agent's step.

The figures are process-wide, as Prometheus counters are: several layers in one process add to the same
series. Labels are operation names, kinds, routes, outcomes and API key *names*; never a memory's text, a
user's id or a key. Counting costs a dict update under a lock; without OpenTelemetry installed a span is a
``nullcontext`` (nothing is imported or allocated per call).
"""

from __future__ import annotations

import bisect
import functools
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
"""Upper bounds (seconds) of the timing histograms: a recall of a few ms and a maintenance run of seconds."""

Labels = tuple[tuple[str, str], ...]

SERIES: dict[str, tuple[str, str]] = {
    # name: (type, help)
    # maintenance is two operations: "maintain" (a run asked for) and "maintenance_step" (a bounded step run
    # after a turn, in the background or inline)
    "operations_total": ("counter", "Public operations called, by operation and outcome (ok or the error's class)."),
    "operation_seconds": ("histogram", "Duration of public operations (recall, add, add_many, manage, maintain ...)."),
    "memories_written_total": ("counter", "Memories stored, by kind."),
    "memories_linked_total": ("counter", "Links made between memories at write time or by maintenance."),
    "memories_superseded_total": ("counter", "Memories superseded by a newer one."),
    "memories_forgotten_total": ("counter", "Memories deleted (a forget, not housekeeping)."),
    "index_cache_total": (
        "counter",
        "The index cache's lookups: hit (answered from the cache), fetch (postings read from the store), and "
        "rebuild (a scope changed by another writer, started afresh).",
    ),
    "webhook_deliveries_total": (
        "counter",
        "Webhook delivery attempts, by outcome: delivered, retried (to be tried again), failed (given up), refused.",
    ),
    "secrets_refused_total": ("counter", "Writes refused because the text held a secret, by kind of secret."),
    "http_requests_total": ("counter", "HTTP requests served, by route template, method, status and API key name."),
    "http_request_seconds": ("histogram", "Duration of HTTP requests, by route template and method."),
}
"""Every series Kioko records (exported with the prefix ``kioko_``); docs/operations.md lists them."""


@dataclass
class _Histogram:
    buckets: list[int] = field(default_factory=lambda: [0] * (len(BUCKETS) + 1))
    total: float = 0.0
    count: int = 0


_lock = threading.Lock()
_counters: dict[tuple[str, Labels], float] = {}
_histograms: dict[tuple[str, Labels], _Histogram] = {}


def _labels(labels: Mapping[str, object]) -> Labels:
    return tuple(sorted((key, str(value)) for key, value in labels.items()))


def count(name: str, value: float = 1.0, **labels: object) -> None:
    """Add ``value`` to the counter ``name`` with these labels."""
    if name not in SERIES:
        raise KeyError(f"{name!r} is not one of Kioko's series (kioko_core.telemetry.SERIES)")
    key = (name, _labels(labels))
    with _lock:
        _counters[key] = _counters.get(key, 0.0) + value


def observe(name: str, seconds: float, **labels: object) -> None:
    """Record one duration in the histogram ``name``."""
    if name not in SERIES:
        raise KeyError(f"{name!r} is not one of Kioko's series (kioko_core.telemetry.SERIES)")
    key = (name, _labels(labels))
    slot = bisect.bisect_left(BUCKETS, seconds)
    with _lock:
        histogram = _histograms.get(key)
        if histogram is None:
            histogram = _histograms[key] = _Histogram()
        histogram.buckets[slot] += 1
        histogram.total += seconds
        histogram.count += 1


def snapshot() -> dict[str, Any]:
    """Every series as plain numbers: ``{"counters": {name: [{"labels": {...}, "value": n}]}, "histograms":
    {name: [{"labels": {...}, "count": n, "sum": s, "buckets": [[le, cumulative], ...]}]}}``."""
    with _lock:
        counters = dict(_counters)
        histograms = {key: (list(h.buckets), h.total, h.count) for key, h in _histograms.items()}
    out: dict[str, Any] = {"counters": {}, "histograms": {}}
    for (name, labels), value in sorted(counters.items()):
        out["counters"].setdefault(name, []).append({"labels": dict(labels), "value": value})
    for (name, labels), (buckets, total, n) in sorted(histograms.items()):
        cumulative, running = [], 0
        for bound, hits in zip((*BUCKETS, float("inf")), buckets):
            running += hits
            cumulative.append([bound, running])
        out["histograms"].setdefault(name, []).append(
            {"labels": dict(labels), "count": n, "sum": total, "buckets": cumulative}
        )
    return out


def counter_value(name: str, **labels: object) -> float:
    """One counter's value (0 when never counted): for tests and ``kioko doctor``."""
    with _lock:
        return _counters.get((name, _labels(labels)), 0.0)


# -- traces


class _Tracing:
    """The OpenTelemetry tracer, looked up once: None when the API is not installed, or while no tracer provider is
    set (spans are then free)."""

    tracer: Any = None
    looked: bool = False
    provider: Callable[[], Any] | None = None
    idle: tuple[type, ...] = ()

    @classmethod
    def get(cls) -> Any:
        if not cls.looked:
            cls.looked = True
            try:
                from opentelemetry import trace
            except ImportError:
                cls.tracer = None
            else:
                cls.tracer = trace.get_tracer("kioko")
                cls.provider = trace.get_tracer_provider
                cls.idle = (trace.ProxyTracerProvider, trace.NoOpTracerProvider)
        if cls.provider is not None and isinstance(cls.provider(), cls.idle):
            # the API alone (no SDK set a provider): its spans record nothing and go nowhere, yet each one set and
            # reset the current context (three per add: 1.6 % of a linked import's CPU). The provider is asked
            # each time, so one set later (or named by OTEL_PYTHON_TRACER_PROVIDER) is used from the next span on
            return None
        return cls.tracer


def stage(name: str, **attributes: str | int | float | bool) -> AbstractContextManager[Any]:
    """A span for one stage of an operation (``recall.candidates``, ``add.link``): a no-op without OTel."""
    tracer = _Tracing.get()
    if tracer is None:
        return nullcontext()
    # never the exception's message on a span: it may quote a memory's text (the class name is set instead)
    return tracer.start_as_current_span(  # type: ignore[no-any-return]
        f"kioko.{name}", attributes=attributes or None, record_exception=False, set_status_on_exception=False
    )


@contextmanager
def operation(name: str, **attributes: str | int | float | bool) -> Iterator[None]:
    """Times a public operation into ``operation_seconds``, counts it by outcome, and makes it a span."""
    started = time.perf_counter()
    outcome = "ok"
    try:
        with stage(name, **attributes) as span:
            try:
                yield
            except BaseException as error:
                outcome = type(error).__name__
                if span is not None:
                    _failed(span, outcome)
                raise
    finally:
        observe("operation_seconds", time.perf_counter() - started, operation=name)
        count("operations_total", operation=name, outcome=outcome)


F = TypeVar("F", bound=Callable[..., Any])


def _failed(span: Any, error_class: str) -> None:
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute("kioko.error", error_class)
    span.set_status(Status(StatusCode.ERROR, error_class))


def timed(name: str) -> Callable[[F], F]:
    """Decorates a public method: each call is an :func:`operation` named ``name``."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            with operation(name):
                return function(*args, **kwargs)

        return cast(F, call)

    return decorate


def staged(name: str) -> Callable[[F], F]:
    """Decorates one stage of an operation: each call is a :func:`stage` span (free without OpenTelemetry)."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            if _Tracing.get() is None:
                return function(*args, **kwargs)
            with stage(name):
                return function(*args, **kwargs)

        return cast(F, call)

    return decorate
