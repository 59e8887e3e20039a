// Intelligence: preview decisions (a dry run) and apply them, plan a recall, run maintenance, pins, stats.

import { api, scope, session } from "./api.js";
import { h, clear, field, guarded, status, short, kindChip } from "./ui.js";
import { operations } from "./operations.js";

export function create(panel, ctx) {
  const turn = h("textarea", { id: "preview-text", rows: 3, placeholder: "what the user said, e.g. We decided to use pgvector because we already run Postgres." });
  const preview = h("div", { id: "preview-out" });
  const planQuery = h("input", { id: "plan-query", type: "search", placeholder: "a question" });
  const planOut = h("div", { id: "plan-out" });
  const maintainOut = h("div", { id: "maintain-out" });
  const pins = h("ul", { class: "list", id: "pins" });
  const about = h("div", { id: "intelligence-about" });
  clear(panel, h("div", { class: "split" },
    h("div", {},
      h("div", { class: "card" }, h("h2", {}, "Preview decisions"),
        field("A turn", turn),
        h("div", { class: "row" },
          h("button", { type: "button", class: "primary", id: "preview-button", onclick: () => guarded("Preview", () => manage(true)) }, "Preview decisions"),
          h("button", { type: "button", id: "apply-button", onclick: () => guarded("Apply", () => manage(false)) }, "Apply")),
        preview),
      h("div", { class: "card", style: { marginTop: "1rem" } }, h("h2", {}, "Plan a recall"),
        h("form", { class: "row", onsubmit: (e) => { e.preventDefault(); guarded("Plan", plan); } }, field("Question", planQuery),
          h("button", { type: "submit", id: "plan-button" }, "Plan")), planOut)),
    h("div", {},
      h("div", { class: "card" }, h("h2", {}, "The intelligence"), about,
        h("div", { class: "row" }, h("button", { type: "button", id: "maintain-button", onclick: () => guarded("Maintenance", maintain) }, "Run maintenance")),
        maintainOut),
      h("div", { class: "card", style: { marginTop: "1rem" } }, h("h2", {}, "Pins"), pins))));
  const tab = { stale: true };

  async function manage(dryRun) {
    if (!turn.value.trim()) { status("Type a turn first.", true); return; }
    const report = await api("POST", "/manage", { body: scope({ text: turn.value, dry_run: dryRun }) });
    clear(preview, operations(report, ctx));
    status(dryRun ? "Preview: nothing was written." : "Applied.");
    if (!dryRun) { ctx.changed(); await loadPins(); }
  }

  async function plan() {
    if (!planQuery.value.trim()) return;
    const planned = await api("POST", "/plan", { body: scope({ query: planQuery.value.trim() }) });
    clear(planOut, h("dl", { class: "kv" },
      h("dt", {}, "intents"), h("dd", {}, planned.intents.length ? planned.intents.join(", ") : "none"),
      h("dt", {}, "why"), h("dd", {}, planned.reason),
      h("dt", {}, "section caps"), h("dd", {}, Object.keys(planned.section_limits).length ? JSON.stringify(planned.section_limits) : "the defaults"),
      h("dt", {}, "links"), h("dd", {}, String(planned.links)),
      h("dt", {}, "fill recent"), h("dd", {}, planned.fill_recent.join(", ") || "none")));
  }

  async function maintain() {
    const done = await api("POST", "/maintain", { body: scope() });
    clear(maintainOut, h("pre", {}, JSON.stringify(done, null, 2)));
    status("Maintenance ran.");
    ctx.changed();
  }

  async function loadPins() {
    const pinned = await api("GET", "/pins", { query: scope() });
    clear(pins, pinned.map((r) => h("li", { class: "row" }, kindChip(r.kind),
      h("button", { type: "button", class: "link-like", onclick: () => ctx.openMemory(r.id) }, short(r.content, 70)),
      h("button", { type: "button", onclick: () => guarded("Unpin", async () => {
        await api("DELETE", `/memories/${encodeURIComponent(r.id)}/pin`, { query: scope() });
        ctx.changed();
        await loadPins();
      }) }, "Unpin"))));
    if (!pinned.length) pins.append(h("li", { class: "empty" }, "Nothing pinned. Pin a memory from the Memories tab."));
  }

  async function load() {
    if (!session.user) return;
    tab.stale = false;
    const me = await api("GET", "/intelligence");
    clear(about, h("p", {}, me.enabled ? `On: the ${me.router} router decides what each turn writes.`
      : "Off on this server (kioko ui --intelligence turns it on): a preview uses the offline router on demand."),
    me.stats ? h("dl", { class: "kv", id: "intelligence-stats" }, Object.entries(me.stats).map(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))])) : null);
    await loadPins();
  }

  return Object.assign(tab, { show() { if (tab.stale) guarded("Intelligence", load); }, userChanged() { tab.stale = true; clear(preview); } });
}
