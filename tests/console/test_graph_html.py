"""``kioko graph --format html``: links coloured by type (no stylesheet rule overriding them), an arrowhead on
each link pointing at its target, a legend of link types and memory kinds, and labels that do not overlap at
120 memories. Checked in a real headless browser (the console's chromium) on the page the command writes."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from console_support import console_errors, require_browser, start_browser
from typer.testing import CliRunner

import kioko
from benchmarks.synthetic import generate_notes
from kioko.cli import app, run_quick_start
from kioko.graph_html import LINK_COLOURS, OTHER_LINK, to_dot
from kioko_core.linking import links


def rgb(colour: str) -> str:
    """'#16a34a' as a browser's computed style writes it."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


def write_page(url: str, user: str, target: Path, limit: int = 120) -> None:
    result = CliRunner().invoke(
        app, ["graph", "--format", "html", "--limit", str(limit), "-o", str(target), "--store", url, "--user", user]
    )
    assert result.exit_code == 0, result.output


def test_every_link_type_has_its_colour_and_no_rule_overrides_it(tmp_path: Path) -> None:
    assert set(LINK_COLOURS) == set(links.LINK_TYPES)
    assert OTHER_LINK not in LINK_COLOURS.values()
    assert len(set(LINK_COLOURS.values())) == len(LINK_COLOURS)
    url = f"sqlite:///{tmp_path / 'g.db'}"
    with kioko.connect(url, auto_link=True) as memory:
        run_quick_start(memory, "kumar", out=io.StringIO())
        drawn = memory.graph.memories(user_id="kumar").to_dict()
    page = tmp_path / "graph.html"
    write_page(url, "kumar", page)
    style = page.read_text().split("<style>")[1].split("</style>")[0]
    assert not re.search(r"(^|[},\s])line\s*\{[^}]*stroke\s*:", style)  # the rule that made every link grey
    dot = to_dot(drawn)
    resolves = next(line for line in dot.splitlines() if '[label="resolves"' in line)
    assert f'color="{LINK_COLOURS["resolves"]}"' in resolves


@pytest.fixture(scope="module")
def browser() -> Any:
    chromium, driver = require_browser()
    page = start_browser(chromium, driver, width=1400, height=900)
    try:
        yield page
    finally:
        page.quit()


def settled(browser: Any, page: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(page.as_uri())
    WebDriverWait(browser, 60).until(lambda b: b.execute_script("return document.body.dataset.settled === 'yes'"))


def test_the_page_in_a_browser_colours_links_with_arrowheads_and_a_legend(browser: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'g.db'}"
    with kioko.connect(url, auto_link=True) as memory:
        run_quick_start(memory, "kumar", out=io.StringIO())
    page = tmp_path / "graph.html"
    write_page(url, "kumar", page)
    settled(browser, page)
    lines = browser.execute_script(
        """return [...document.querySelectorAll('#canvas > line')].map(l => {
             const id = (l.getAttribute('marker-end') || '').slice(5, -1), m = document.getElementById(id);
             return {type: l.dataset.type, stroke: getComputedStyle(l).stroke, marker: id,
                     head: m ? getComputedStyle(m.querySelector('path')).fill : null}; })"""
    )
    assert len(lines) >= 5
    for line in lines:
        assert line["stroke"] == rgb(LINK_COLOURS[line["type"]]), line  # its type's colour, not the grey
        assert line["marker"] == f"arrow-{line['type']}", line
        assert line["head"] == rgb(LINK_COLOURS[line["type"]]), line
    types = {line["type"] for line in lines}
    assert {"resolves", "serves"} <= types
    assert len({line["stroke"] for line in lines}) == len(types)
    legend = browser.execute_script(
        """return {links: [...document.querySelectorAll('#legend-links li')].map(li => [li.dataset.type,
                     getComputedStyle(li.querySelector('line')).stroke]),
                   kinds: [...document.querySelectorAll('#legend-kinds li')].map(li => li.dataset.kind)}"""
    )
    assert sorted(legend["links"]) == sorted([t, rgb(LINK_COLOURS[t])] for t in types)
    assert {"goal", "decision", "episodic", "procedural", "strategy", "preference", "factual"} <= set(legend["kinds"])
    # an arrowhead ends where the line does: at the target's rim, outside the circle
    gap = browser.execute_script(
        """const l = document.querySelector('#canvas > line'), c = [...document.querySelectorAll('#canvas > circle')];
           const x = +l.getAttribute('x2'), y = +l.getAttribute('y2');
           return Math.min(...c.map(d => Math.hypot(+d.getAttribute('cx') - x, +d.getAttribute('cy') - y)
                                         - +d.getAttribute('r')));"""
    )
    assert 0 < gap <= 3
    assert console_errors(browser) == []


def test_labels_do_not_overlap_at_120_memories(browser: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'many.db'}"
    with kioko.connect(url, auto_link=True) as memory:
        memory.add_many(
            [
                {"content": n.content, "memory_type": n.memory_type, "created_at": n.created_at}
                for n in generate_notes(120, seed=21)
            ],
            user_id="kumar",
        )
    page = tmp_path / "many.html"
    write_page(url, "kumar", page)
    settled(browser, page)
    boxes = browser.execute_script(
        """return [...document.querySelectorAll('#canvas > text')].filter(t => t.style.display !== 'none')
             .map(t => { const b = t.getBBox(); return [b.x, b.y, b.width, b.height]; })"""
    )
    width = browser.execute_script("return document.getElementById('canvas').clientWidth")
    assert all(x >= 0 and x + w <= width for x, _, w, _ in boxes)  # none runs off the drawing
    count = browser.execute_script("return document.querySelectorAll('#canvas > circle').length")
    assert count == 120
    assert len(boxes) >= 20  # enough of the graph stays named
    for i, (x, y, w, h) in enumerate(boxes):
        for x2, y2, w2, h2 in boxes[i + 1 :]:
            assert not (x < x2 + w2 and x2 < x + w and y < y2 + h2 and y2 < y + h), "two labels overlap"
    assert console_errors(browser) == []
