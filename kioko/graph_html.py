"""``kioko graph``: the memory graph as Graphviz DOT or as one self-contained HTML page (no network needed).

The page lays the memories out with a small force simulation written inline, colours memories by kind and
links by type (with an arrowhead pointing at the link's target, and a legend of both), dashes structural
links, and shows a memory's links with their evidence when it is clicked. Labels never overlap: once the
layout settles, the best-linked memories' labels are placed first and a label that would overlap one
already placed is hidden (the memory's name shows on hover, and in full when clicked).
"""

from __future__ import annotations

import html
import json
from typing import Any

from kioko_core.kinds.registry import KINDS

KIND_COLOURS = {info.name: info.colour for info in KINDS}
"""One colour per kind: the registry's, which the console shows too (``GET /v1/kinds``)."""

LINK_COLOURS = {
    "resolves": "#16a34a",
    "serves": "#2563eb",
    "advances": "#0891b2",
    "applies_to": "#7c3aed",
    "learned_from": "#c026d3",
    "derived_from": "#a16207",
    "informs": "#0d9488",
    "concerns": "#ea580c",
    "refines": "#4f46e5",
    "supersedes": "#dc2626",
    "follows": "#64748b",
    "part_of": "#b45309",
    "related_to": "#94a3b8",
}
"""One colour per link type (kioko_core.linking.links.LINK_TYPES; a test checks every type has one)."""

OTHER_LINK = "#475569"
"""The colour of a link whose type this page does not know (a newer store's)."""


def to_dot(graph: dict[str, Any]) -> str:
    """The memory graph as Graphviz DOT: one coloured box per memory, one labelled edge per link."""
    lines = [
        "digraph kioko {",
        '  graph [rankdir=LR, fontname="Helvetica"];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10, fontcolor=white];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    for node in graph["nodes"]:
        colour = KIND_COLOURS.get(node["kind"], "#374151")
        label = f"{node['type']}: {node['label']}"
        lines.append(f'  "{node["id"]}" [label={_dot(label)}, fillcolor="{colour}"];')
    for edge in graph["edges"]:
        style = "dashed" if edge["by"] == "structure" else "solid"
        colour = LINK_COLOURS.get(edge["type"], OTHER_LINK)
        lines.append(
            f'  "{edge["source"]}" -> "{edge["target"]}" [label={_dot(edge["type"])}, color="{colour}", '
            f'fontcolor="{colour}", penwidth={0.5 + 2.5 * float(edge["weight"]):.2f}, style={style}, '
            f"tooltip={_dot(edge['why'])}];"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def to_html(graph: dict[str, Any], title: str) -> str:
    """The memory graph as one self-contained HTML page (the drawing script and its data inline)."""
    # "</" cannot appear inside the inline script, whatever a memory says
    data = json.dumps(
        {
            "nodes": graph["nodes"],
            "edges": graph["edges"],
            "stats": graph["stats"],
            "colours": KIND_COLOURS,
            "links": LINK_COLOURS,
            "other": OTHER_LINK,
        },
        ensure_ascii=False,
    ).replace("</", "<\\/")
    return _PAGE.replace("__TITLE__", html.escape(title)).replace("__DATA__", data)


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{margin:0;font:14px system-ui,sans-serif;display:flex;height:100vh;color:#111}
#canvas{flex:1;background:#fafafa}
#side{width:340px;overflow:auto;padding:12px 16px;border-left:1px solid #ddd;background:#fff}
h1{font-size:16px;margin:0 0 4px} h2{font-size:13px;margin:14px 0 4px} .muted{color:#666;font-size:12px}
.link{margin:8px 0;padding:6px 8px;border-left:3px solid #94a3b8;background:#f8fafc}
.why{color:#555;font-size:12px} circle{cursor:pointer;stroke:#fff;stroke-width:1.5}
text{font-size:10px;pointer-events:none;fill:#333}
#legend ul{list-style:none;margin:0;padding:0;font-size:12px} #legend li{display:flex;align-items:center;gap:6px;margin:2px 0}
#legend svg{flex:none}
</style></head><body>
<svg id="canvas"><defs id="markers"></defs></svg>
<div id="side"><h1>__TITLE__</h1><div class="muted" id="stats"></div>
<p class="muted">Click a memory to see its links and why each was made. An arrow points from a link's source to
its target; dashed: a structural link.</p>
<div id="detail"></div>
<div id="legend"><h2>Links</h2><ul id="legend-links"></ul><h2>Memories</h2><ul id="legend-kinds"></ul></div></div>
<script>
const G = __DATA__;
const svg = document.getElementById('canvas'), NS = 'http://www.w3.org/2000/svg';
const W = () => svg.clientWidth || 800, H = () => svg.clientHeight || 600;
const byId = {}; G.nodes.forEach((n, i) => { n.x = W()/2 + 200*Math.cos(i); n.y = H()/2 + 200*Math.sin(i*1.7);
  n.vx = 0; n.vy = 0; n.r = 6 + Math.min(n.degree, 8); byId[n.id] = n; });
const edges = G.edges.filter(e => byId[e.source] && byId[e.target]);
document.getElementById('stats').textContent =
  `${G.stats.nodes} memories, ${G.stats.edges} links, mean degree ${G.stats.mean_degree}`;
function el(tag, attrs, parent) { const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]); parent.appendChild(e); return e; }
const colourOf = type => G.links[type] || G.other;
const markerOf = type => 'arrow-' + (G.links[type] ? type : 'other');
// one arrowhead per colour (a marker does not take its line's colour everywhere); sized in pixels, not by width
const defs = document.getElementById('markers');
for (const type of [...Object.keys(G.links), 'other']) {
  const m = el('marker', {id: markerOf(type), viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 9,
    markerHeight: 9, markerUnits: 'userSpaceOnUse', orient: 'auto'}, defs);
  el('path', {d: 'M0,1 L10,5 L0,9 z', fill: colourOf(type)}, m); }
// the colour is set on the element itself: no stylesheet rule may override it
const lines = edges.map(e => { const l = el('line', {'stroke-width': 0.5 + 3*e.weight,
  'stroke-dasharray': e.by === 'structure' ? '4 3' : '', 'marker-end': `url(#${markerOf(e.type)})`,
  'data-type': e.type}, svg); l.style.stroke = colourOf(e.type);
  const t = el('title', {}, l); t.textContent = e.line; return l; });
const dots = G.nodes.map(n => { const c = el('circle', {r: n.r,
  fill: G.colours[n.kind] || '#374151', opacity: n.superseded ? 0.45 : 1}, svg);
  const t = el('title', {}, c); t.textContent = n.type + ': ' + n.label; c.onclick = () => show(n); return c; });
const labels = G.nodes.map(n => { const t = el('text', {}, svg); t.textContent = n.label.slice(0, 28); return t; });
function legend() {
  const counts = {}; edges.forEach(e => { counts[e.type] = (counts[e.type] || 0) + 1; });
  const links = document.getElementById('legend-links');
  for (const type of Object.keys(counts).sort()) {
    const li = document.createElement('li'); li.dataset.type = type;
    const s = el('svg', {width: 34, height: 10}, li);
    const l = el('line', {x1: 2, y1: 5, x2: 30, y2: 5, 'stroke-width': 2, 'marker-end': `url(#${markerOf(type)})`}, s);
    l.style.stroke = colourOf(type);
    li.appendChild(document.createTextNode(`${type.replace(/_/g, ' ')} (${counts[type]})`)); links.appendChild(li); }
  const kinds = {}; G.nodes.forEach(n => { kinds[n.kind] = n.type; });
  const list = document.getElementById('legend-kinds');
  for (const kind of Object.keys(kinds).sort()) {
    const li = document.createElement('li'); li.dataset.kind = kind;
    const s = el('svg', {width: 12, height: 12}, li); el('circle', {cx: 6, cy: 6, r: 5, fill: G.colours[kind] || '#374151'}, s);
    li.appendChild(document.createTextNode(kinds[kind])); list.appendChild(li); }
}
legend();
function step() {
  const k = 0.02, rep = 2200;
  for (const a of G.nodes) for (const b of G.nodes) if (a !== b) {
    const dx = a.x - b.x, dy = a.y - b.y, d2 = dx*dx + dy*dy + 0.01, f = rep / d2;
    a.vx += f*dx/Math.sqrt(d2); a.vy += f*dy/Math.sqrt(d2); }
  for (const e of edges) { const a = byId[e.source], b = byId[e.target];
    const dx = b.x - a.x, dy = b.y - a.y, d = Math.sqrt(dx*dx + dy*dy) + 0.01, f = k*(d - 90);
    a.vx += f*dx/d; a.vy += f*dy/d; b.vx -= f*dx/d; b.vy -= f*dy/d; }
  for (const n of G.nodes) { n.vx += (W()/2 - n.x)*0.002; n.vy += (H()/2 - n.y)*0.002;
    n.x += n.vx*0.5; n.y += n.vy*0.5; n.vx *= 0.6; n.vy *= 0.6;
    n.x = Math.max(20, Math.min(W()-20, n.x)); n.y = Math.max(20, Math.min(H()-20, n.y)); }
}
function draw() {
  edges.forEach((e, i) => { const a = byId[e.source], b = byId[e.target];
    // end the line at the target's rim, so its arrowhead shows
    const dx = b.x - a.x, dy = b.y - a.y, d = Math.sqrt(dx*dx + dy*dy) || 1, cut = Math.min(b.r + 2, d/2);
    lines[i].setAttribute('x1', a.x); lines[i].setAttribute('y1', a.y);
    lines[i].setAttribute('x2', b.x - dx*cut/d); lines[i].setAttribute('y2', b.y - dy*cut/d); });
  G.nodes.forEach((n, i) => { dots[i].setAttribute('cx', n.x); dots[i].setAttribute('cy', n.y);
    labels[i].setAttribute('x', n.x + n.r + 3); labels[i].setAttribute('y', n.y + 3); });
}
function placeLabels() {
  // best-linked first; a label overlapping one already placed is hidden (its memory's title still shows it)
  const order = G.nodes.map((n, i) => i).sort((i, j) => G.nodes[j].degree - G.nodes[i].degree || i - j);
  const placed = [];
  for (const i of order) { const n = G.nodes[i]; labels[i].style.display = '';
    if (labels[i].getBBox().x + labels[i].getBBox().width > W() - 2) {  // past the right edge: left of the memory
      labels[i].setAttribute('text-anchor', 'end'); labels[i].setAttribute('x', n.x - n.r - 3); }
    const b = labels[i].getBBox(), box = {x: b.x - 1, y: b.y - 1, w: b.width + 2, h: b.height + 2};
    const clash = placed.some(p => box.x < p.x + p.w && p.x < box.x + box.w && box.y < p.y + p.h && p.y < box.y + box.h);
    if (clash) labels[i].style.display = 'none'; else placed.push(box); }
}
let ticks = 0; (function loop() { step(); draw();
  if (++ticks < 300) requestAnimationFrame(loop); else { placeLabels(); document.body.dataset.settled = 'yes'; } })();
function show(n) {
  const d = document.getElementById('detail'); d.textContent = '';
  const h = document.createElement('h1'); h.textContent = n.type + ': ' + n.label; d.appendChild(h);
  const id = document.createElement('div'); id.className = 'muted'; id.textContent = n.id; d.appendChild(id);
  for (const e of edges.filter(e => e.source === n.id || e.target === n.id)) {
    const box = document.createElement('div'); box.className = 'link'; box.style.borderLeftColor = colourOf(e.type);
    box.textContent = e.line + ` (weight ${e.weight}, by ${e.by})`;
    const why = document.createElement('div'); why.className = 'why'; why.textContent = e.why || '';
    box.appendChild(why); d.appendChild(box); }
}
</script></body></html>
"""
