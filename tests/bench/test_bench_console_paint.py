"""benchmarks/console_paint.py, tiny: the page reports its graph tab's first paint, and the table says so.
(The figures are the benchmark's to report, never asserted here.)"""

from __future__ import annotations

import sys
from pathlib import Path

from console_support import require_browser

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import console_paint  # noqa: E402


def test_a_tiny_run_reads_the_paint_the_page_measured() -> None:
    require_browser()
    result = console_paint.measure(60, 1, every=True)
    assert result["memories"] == 60
    assert result["links"] > 0
    assert result["console_errors"] == 0
    for name in ("default", "all"):
        (row,) = result["rows"][name]
        assert set(row) == {"paint", "fetch", "since_navigation"}
        assert 0 <= row["fetch"] <= row["paint"]
    assert row["since_navigation"] >= row["paint"]  # the redraw comes after the first paint of the page
    text = "\n".join(console_paint.table(result))
    assert "| default | 120 (the API's default cap) |" in text
    assert "| all | 60 |" in text
