"""The console's graph tab, first paint, in a real headless browser (Debian's chromium, as the browser tests).

Seeds one user with ``--memories`` linked memories (benchmarks/synthetic.py's notes) in a SQLite store, serves
it with ``kioko serve`` on loopback and opens ``/ui/#graph`` afresh ``--runs`` times at 1280x800. Each run reads
what the page measured itself: from the tab's request for the drawing to the first frame after the layout
(``paint``; ``fetch`` is the part spent waiting for the answer) and from navigation start to that frame
(``since_navigation``: the page, its modules and cytoscape loading included). The default drawing is the API's
cap of 120 nodes; ``--all`` also draws every memory (up to 2,000) in the same runs.

    python benchmarks/console_paint.py --memories 2000 --runs 5 --all --out benchmarks/results/console-paint

Figures are this machine's under its load at the time; compare rows of one run, not runs of different days.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import kioko  # noqa: E402

USER = "paint-user"


def seed(url: str, count: int) -> dict[str, Any]:
    """``count`` linked memories for :data:`USER`; returns how many links they made and how long writing took."""
    from synthetic import generate_notes

    started = time.perf_counter()
    with kioko.connect(url, auto_link=True) as memory:
        memory.add_many(
            [
                {
                    "content": n.content,
                    "memory_type": n.memory_type,
                    "created_at": n.created_at,
                    "session_id": n.session_id,
                }
                for n in generate_notes(count, seed=7)
            ],
            user_id=USER,
        )
        drawing = memory.graph.memories(user_id=USER, limit=max(count, 1))
    return {"memories": count, "links": drawing.stats.edges, "seed_s": round(time.perf_counter() - started, 1)}


def read_paint(browser: Any) -> dict[str, int]:
    from selenium.webdriver.support.ui import WebDriverWait

    def stamped(driver: Any) -> Any:
        values = driver.execute_script(
            "const s = document.getElementById('graph-stats'); return s && s.dataset.paintMs ? {...s.dataset} : null"
        )
        return values or False

    values = WebDriverWait(browser, 120, poll_frequency=0.05).until(stamped)
    return {
        "paint": int(values["paintMs"]),
        "fetch": int(values["fetchMs"]),
        "since_navigation": int(values["sinceNavigation"]),
    }


def draw_all(browser: Any, count: int) -> dict[str, int]:
    browser.execute_script(
        "document.getElementById('graph-stats').removeAttribute('data-paint-ms');"
        "document.getElementById('graph-limit').value = arguments[0];"
        "document.querySelector('#panel-graph form button[type=submit]').click();",
        min(count, 2000),
    )
    return read_paint(browser)


def measure(count: int, runs: int, every: bool) -> dict[str, Any]:
    from console_support import browser_paths, console_errors, kioko_serve, start_browser

    found = browser_paths()
    if isinstance(found, str):
        raise SystemExit(f"console_paint: {found}")
    with tempfile.TemporaryDirectory(prefix="kioko-paint-") as folder:
        url = f"sqlite:///{Path(folder) / 'kioko.db'}"
        seeded = seed(url, count)
        rows: dict[str, list[dict[str, int]]] = {"default": [], "all": []}
        with kioko_serve(url, log=Path(folder) / "serve.log") as base:
            browser = start_browser(*found)
            try:
                browser.get(f"{base}/ui/?user={USER}")
                for _ in range(runs):
                    browser.execute_script("sessionStorage.clear()")
                    browser.get(f"{base}/ui/?user={USER}&run={time.monotonic_ns()}#graph")
                    rows["default"].append(read_paint(browser))
                    if every:
                        rows["all"].append(draw_all(browser, count))
                errors = console_errors(browser)
            finally:
                browser.quit()
    # the machine's load when the runs ended: these figures move with it (the browser shares the cores)
    return {**seeded, "runs": runs, "rows": rows, "console_errors": len(errors), "load": round(os.getloadavg()[0], 1)}


def summary(rows: list[dict[str, int]]) -> dict[str, float]:
    return {key: statistics.median(r[key] for r in rows) for key in rows[0]} if rows else {}


def table(result: dict[str, Any]) -> list[str]:
    lines = [
        f"{result['memories']} memories, {result['links']} links (seeded in {result['seed_s']} s); "
        f"{result['runs']} fresh page loads at 1280x800; medians in ms",
        "",
        "| drawing | nodes | paint (request to first frame) | of it fetching | navigation start to that frame |",
        "|---|---|---|---|---|",
    ]
    for name, nodes in (("default", "120 (the API's default cap)"), ("all", str(min(result["memories"], 2000)))):
        if result["rows"][name]:
            med = summary(result["rows"][name])
            lines.append(
                f"| {name} | {nodes} | {med['paint']:.0f} | {med['fetch']:.0f} | {med['since_navigation']:.0f} |"
            )
    lines.append("")
    lines.append(
        f"browser console errors: {result['console_errors']}; load average (1 min) at the end: {result['load']}"
    )
    return lines


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--all", action="store_true", help="also draw every memory (up to 2,000) in each run")
    parser.add_argument("--out", type=Path, help="write OUT.json and OUT.md")
    args = parser.parse_args(argv)
    result = measure(args.memories, args.runs, args.all)
    text = "\n".join(table(result))
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
        args.out.with_suffix(".md").write_text("# The console's graph tab: first paint\n\n" + text + "\n")
    return result


if __name__ == "__main__":
    main()
