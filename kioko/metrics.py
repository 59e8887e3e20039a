"""Kioko's counters and timings as Prometheus metrics (``prometheus_client``, in the ``service`` extra).

``kioko serve`` answers ``GET /metrics`` with them. A host application that runs the library in its own
process mounts the same series on its exporter::

    from prometheus_client import make_asgi_app
    import kioko.metrics
    app.mount("/metrics", make_asgi_app(registry=kioko.metrics.registry()))

or adds :data:`COLLECTOR` to the registry it already serves (``REGISTRY.register(kioko.metrics.COLLECTOR)``).
Every series is named ``kioko_<name>`` after :data:`kioko_core.telemetry.SERIES`; docs/operations.md lists
them with their labels.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kioko_core import telemetry
from kioko_core.errors import MissingExtraError

PREFIX = "kioko_"


def _prometheus() -> Any:
    try:
        import prometheus_client
    except ImportError as error:  # pragma: no cover - the service extra brings it
        raise MissingExtraError("Prometheus metrics need prometheus_client: pip install 'kioko[service]'") from error
    return prometheus_client


class KiokoCollector:
    """A ``prometheus_client`` collector that reads :func:`kioko_core.telemetry.snapshot` at each scrape."""

    def collect(self) -> Iterator[Any]:
        """Kioko's counters and histograms, read from the telemetry at each scrape."""
        from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily

        data = telemetry.snapshot()
        for name, (kind, help_text) in telemetry.SERIES.items():
            if kind == "counter":
                rows = data["counters"].get(name, [])
                names = _label_names(rows)
                # the client appends _total itself: the family is named without it
                counter = CounterMetricFamily(PREFIX + name.removesuffix("_total"), help_text, labels=names)
                for row in rows:
                    counter.add_metric([row["labels"][k] for k in names], row["value"])
                yield counter
            else:
                rows = data["histograms"].get(name, [])
                names = _label_names(rows)
                histogram = HistogramMetricFamily(PREFIX + name, help_text, labels=names)
                for row in rows:
                    buckets = [(_bound(le), n) for le, n in row["buckets"]]
                    histogram.add_metric([row["labels"][k] for k in names], buckets, row["sum"])
                yield histogram

    def describe(self) -> Iterator[Any]:
        """Nothing: the series are collected fresh at each scrape."""
        return iter(())  # collected fresh at each scrape: nothing to check at registration


def _label_names(rows: list[dict[str, Any]]) -> list[str]:
    names: set[str] = set()
    for row in rows:
        names.update(row["labels"])
    for row in rows:  # a series counted with fewer labels than another gets them empty
        for name in names:
            row["labels"].setdefault(name, "")
    return sorted(names)


def _bound(le: float) -> str:
    return "+Inf" if le == float("inf") else repr(float(le))


COLLECTOR = KiokoCollector()
"""The one collector of this process's Kioko series (register it once per registry)."""


def registry() -> Any:
    """A new ``prometheus_client.CollectorRegistry`` holding Kioko's series only."""
    prometheus = _prometheus()
    own = prometheus.CollectorRegistry(auto_describe=False)
    own.register(COLLECTOR)
    return own


def exposition(registry_: Any | None = None) -> tuple[bytes, str]:
    """The Prometheus text exposition of ``registry_`` (default: Kioko's series) and its content type."""
    prometheus = _prometheus()
    return prometheus.generate_latest(registry_ or registry()), prometheus.CONTENT_TYPE_LATEST
