// Recall with its reasons: the context as the agent gets it, each memory's signals, links 0 and 3 side by side,
// the plan; "why not" for a memory one expected.

import { api, scope, session } from "./api.js";
import { h, clear, field, guarded, number, short, kindChip, signalChips, LINK_TYPES } from "./ui.js";

export function create(panel, ctx) {
  const query = h("input", { id: "recall-query", type: "search", placeholder: "a question the agent might ask", style: { minWidth: "18rem" } });
  const sessionId = h("input", { id: "recall-session", placeholder: "optional", maxlength: 200 });
  const expected = h("input", { id: "recall-expected", placeholder: "memory id (optional)", maxlength: 200 });
  const out = h("div", { id: "recall-out" });
  const form = h("form", { class: "card filters", onsubmit: (e) => { e.preventDefault(); guarded("Recall", run); } },
    h("h2", {}, "Recall with its reasons"),
    h("div", { class: "row" }, field("Question", query), field("Session", sessionId), field("Why not this memory?", expected),
      h("button", { type: "submit", class: "primary" }, "Recall")));
  clear(panel, form, out);
  const tab = { stale: false };

  async function run() {
    const question = query.value.trim();
    if (!question || !session.user) return;
    const body = (links) => scope({ query: question, links, session_id: sessionId.value.trim() || undefined, plan: "auto" });
    const [plain, linked] = await Promise.all([
      api("POST", "/recall", { body: body(0) }), api("POST", "/recall", { body: body(3) }),
    ]);
    clear(out, h("div", { class: "columns" }, column("links 0", plain, "recall-links0"), column("links 3", linked, "recall-links3")));
    if (expected.value.trim()) out.prepend(await whyNot(expected.value.trim(), plain, linked));
  }

  function column(title, context, id) {
    const plan = context.plan;
    return h("div", { class: "card", id },
      h("h3", {}, `${title}: ${context.memories.length} memories`),
      plan ? h("p", { class: "muted plan" }, `Plan: ${plan.intents.length ? `${plan.intents.join(", ")}: ` : ""}${plan.reason}`,
        Object.keys(plan.section_limits).length ? `; caps ${JSON.stringify(plan.section_limits)}` : "", `; links ${plan.links}`) : null,
      h("h3", {}, "Why each memory is there"),
      h("table", { class: "recalled" },
        h("thead", {}, h("tr", {}, h("th", {}, "memory"), h("th", {}, "section"), h("th", {}, "score"), h("th", {}, "signals"))),
        h("tbody", {}, context.memories.map((m) => h("tr", { dataset: { id: m.id } },
          h("td", {}, kindChip(m.kind), h("button", { type: "button", class: "link-like", onclick: () => ctx.openMemory(m.id) }, short(m.content, 70))),
          h("td", {}, m.section), h("td", {}, number(m.score, 3)), h("td", {}, signalChips(m.signals)))))),
      h("h3", {}, "The context as the agent gets it"),
      h("pre", { class: "context-text" }, context.text || "(empty)"),
      context.links.length ? [h("h3", {}, "How these memories connect"),
        h("ul", {}, context.links.map((k) => h("li", {}, `${k.source_type} “${short(k.source_label, 40)}” ${(LINK_TYPES[k.type] || [0, k.type])[1]} ${k.target_type} “${short(k.target_label, 40)}” (${number(k.weight, 2)})`)))] : null);
  }

  async function whyNot(id, plain, linked) {
    const record = await api("GET", `/memories/${encodeURIComponent(id)}`, { query: scope() });
    const found0 = plain.memories.find((m) => m.id === id);
    const found3 = linked.memories.find((m) => m.id === id);
    const lines = [];
    if (found0) lines.push(`It is in the context without links (section ${found0.section}, score ${number(found0.score, 3)}).`);
    else if (found3) lines.push(`Only following links brings it (section ${found3.section}, signals ${JSON.stringify(found3.signals)}).`);
    else lines.push("Neither recall brought it.");
    const top = (linked.memories[0] || plain.memories[0]);
    if (!found0 && !found3 && top) {
      const explained = await api("GET", `/memories/${encodeURIComponent(top.id)}/links/${encodeURIComponent(id)}/explain`, { query: scope() });
      lines.push(`Against the top memory (“${short(top.content, 50)}”) it scores ${number(explained.score, 3)}: ${explained.why || "no shared evidence"}; `
        + `${explained.linked ? "they are linked, but the link was weaker than the cap allowed" : "not linked, so links cannot bring it"}.`);
    }
    return h("div", { class: "card", id: "recall-why-not" }, h("h3", {}, "Why not ", kindChip(record.kind), short(record.content, 60), "?"),
      lines.map((line) => h("p", {}, line)));
  }

  return Object.assign(tab, { show() {}, userChanged() { clear(out); } });
}
