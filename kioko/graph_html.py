"""``kioko graph``: the memory graph as Graphviz DOT or as one self-contained HTML page (no network needed).

The page lays the memories out with a small force simulation written inline, colours them by kind,
dashes structural links, and shows a memory's links with their evidence when it is clicked.
"""

from __future__ import annotations

import html
import json
from typing import Any

KIND_COLOURS = {
    "goal": "#d97706",
    "decision": "#2563eb",
    "episodic": "#6b7280",
    "factual": "#059669",
    "semantic": "#0d9488",
    "preference": "#db2777",
    "procedural": "#7c3aed",
    "skill": "#9333ea",
    "strategy": "#c026d3",
    "insight": "#ca8a04",
    "summary": "#4b5563",
}


def to_dot(graph: dict[str, Any]) -> str:
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
        lines.append(
            f'  "{edge["source"]}" -> "{edge["target"]}" [label={_dot(edge["type"])}, '
            f"penwidth={0.5 + 2.5 * float(edge['weight']):.2f}, style={style}, tooltip={_dot(edge['why'])}];"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def to_html(graph: dict[str, Any], title: str) -> str:
    # "</" cannot appear inside the inline script, whatever a memory says
    data = json.dumps(
        {"nodes": graph["nodes"], "edges": graph["edges"], "stats": graph["stats"], "colours": KIND_COLOURS},
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
h1{font-size:16px;margin:0 0 4px} .muted{color:#666;font-size:12px}
.link{margin:8px 0;padding:6px 8px;border-left:3px solid #94a3b8;background:#f8fafc}
.why{color:#555;font-size:12px} circle{cursor:pointer;stroke:#fff;stroke-width:1.5}
text{font-size:10px;pointer-events:none;fill:#333} line{stroke:#94a3b8}
</style></head><body>
<svg id="canvas"></svg>
<div id="side"><h1>__TITLE__</h1><div class="muted" id="stats"></div>
<p class="muted">Click a memory to see its links and why each was made. Dashed: structure; green: resolves.</p>
<div id="detail"></div></div>
<script>
const G = __DATA__;
const svg = document.getElementById('canvas'), NS = 'http://www.w3.org/2000/svg';
const W = () => svg.clientWidth || 800, H = () => svg.clientHeight || 600;
const byId = {}; G.nodes.forEach((n, i) => { n.x = W()/2 + 200*Math.cos(i); n.y = H()/2 + 200*Math.sin(i*1.7);
  n.vx = 0; n.vy = 0; byId[n.id] = n; });
const edges = G.edges.filter(e => byId[e.source] && byId[e.target]);
document.getElementById('stats').textContent =
  `${G.stats.nodes} memories, ${G.stats.edges} links, mean degree ${G.stats.mean_degree}`;
function el(tag, attrs, parent) { const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]); parent.appendChild(e); return e; }
const lines = edges.map(e => el('line', {'stroke-width': 0.5 + 3*e.weight,
  'stroke-dasharray': e.by === 'structure' ? '4 3' : '', stroke: e.type === 'resolves' ? '#16a34a' : '#94a3b8'}, svg));
const dots = G.nodes.map(n => { const c = el('circle', {r: 6 + Math.min(n.degree, 8),
  fill: G.colours[n.kind] || '#374151', opacity: n.superseded ? 0.45 : 1}, svg);
  const t = el('title', {}, c); t.textContent = n.type + ': ' + n.label; c.onclick = () => show(n); return c; });
const labels = G.nodes.map(n => { const t = el('text', {}, svg); t.textContent = n.label.slice(0, 28); return t; });
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
    lines[i].setAttribute('x1', a.x); lines[i].setAttribute('y1', a.y);
    lines[i].setAttribute('x2', b.x); lines[i].setAttribute('y2', b.y); });
  G.nodes.forEach((n, i) => { dots[i].setAttribute('cx', n.x); dots[i].setAttribute('cy', n.y);
    labels[i].setAttribute('x', n.x + 10); labels[i].setAttribute('y', n.y + 3); });
}
let ticks = 0; (function loop() { step(); draw(); if (++ticks < 300) requestAnimationFrame(loop); })();
function show(n) {
  const d = document.getElementById('detail'); d.textContent = '';
  const h = document.createElement('h1'); h.textContent = n.type + ': ' + n.label; d.appendChild(h);
  const id = document.createElement('div'); id.className = 'muted'; id.textContent = n.id; d.appendChild(id);
  for (const e of edges.filter(e => e.source === n.id || e.target === n.id)) {
    const box = document.createElement('div'); box.className = 'link';
    box.textContent = e.line + ` (weight ${e.weight}, by ${e.by})`;
    const why = document.createElement('div'); why.className = 'why'; why.textContent = e.why || '';
    box.appendChild(why); d.appendChild(box); }
}
</script></body></html>
"""
