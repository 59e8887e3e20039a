// Activity: live events from /v1/events (added, updated, linked, managed, deleted ...), with an Intelligence filter.

import { events, session } from "./api.js";
import { h, clear, short, when } from "./ui.js";

const KEEP = 300;
const FILTERS = [
  ["", "everything"], ["intelligence", "Intelligence (managed turns)"], ["memory.added", "added"], ["memory.linked", "linked"],
  ["memory.updated", "updated"], ["memory.unlinked", "unlinked"], ["memory.deleted", "deleted or forgotten"],
];

export function create(panel) {
  const filter = h("select", { id: "activity-filter" }, FILTERS.map(([value, label]) => h("option", { value }, label)));
  const state = h("span", { class: "muted", id: "activity-state" }, "not connected");
  const rows = h("tbody", { id: "activity-rows" });
  clear(panel, h("div", { class: "card" }, h("h2", {}, "Activity"),
    h("div", { class: "row" }, h("label", { for: "activity-filter" }, "Show"), filter, state),
    h("table", { class: "events" }, h("thead", {}, h("tr", {}, h("th", {}, "when"), h("th", {}, "event"), h("th", {}, "what"))), rows)));
  filter.addEventListener("change", render);

  let seen = [];
  let stop = null;

  function wanted(item) {
    if (!filter.value) return true;
    if (filter.value === "intelligence") return item.name === "memory.managed";
    if (filter.value === "memory.deleted") return item.name === "memory.deleted" || item.name === "memory.forgotten";
    return item.name === filter.value;
  }

  function describe(name, data) {
    if (data.memory) return `${data.memory.kind}: ${short(data.memory.content, 100)}`;
    if (data.link) return `${data.link.type} (${Number(data.link.weight).toFixed(2)}, ${data.link.by}): ${short(data.link.why, 80)}`;
    if (name === "memory.managed") {
      const ops = (data.report && data.report.ops) || data.ops || [];
      return `${ops.length} operation(s): ${ops.map((op) => `${op.op} ${op.status}`).join(", ")}`;
    }
    if (data.line) return `${data.line} (${Number(data.weight).toFixed(2)}, ${data.by})`;
    if (data.id) return `memory ${data.id}`;
    if (data.source) return `${data.source} → ${data.target}`;
    return short(JSON.stringify(data), 100);
  }

  function render() {
    clear(rows, seen.filter(wanted).map((item) => h("tr", { dataset: { event: item.name } },
      h("td", {}, when(item.at)), h("td", {}, item.name), h("td", {}, item.text))));
    if (!rows.children.length) rows.append(h("tr", {}, h("td", { colspan: 3, class: "empty" }, "No events yet: they appear as memories are written.")));
  }

  function connect() {
    if (stop) stop.abort();
    seen = [];
    render();
    if (!session.user) return;
    const control = new AbortController();
    stop = control;
    state.textContent = "live";
    events({ user_id: session.user }, (name, data) => {
      seen.unshift({ name, at: Date.now() / 1000, text: describe(name, data) });
      seen = seen.slice(0, KEEP);
      render();
    }, control.signal).then(() => { if (stop === control) state.textContent = "the stream ended"; })
      .catch((error) => { if (error.name !== "AbortError") state.textContent = `not connected: ${error.message}`; });
  }

  return { stale: false, show() {}, userChanged: connect };
}
