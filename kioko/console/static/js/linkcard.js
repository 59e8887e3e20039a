// The link card: why two memories are linked (the rule, the evidence words, the signals), its weight now and
// as stored, who made it; unlink or re-weight.

import { api, scope } from "./api.js";
import { h, clear, field, guarded, status, when, number, short, LINK_TYPES, AUTHORS } from "./ui.js";

/** The rule that made a link of this type between these kinds, in words (spec: graph memory, sections 2-3). */
function rule(link) {
  if (link.by === "manual") return "linked by hand";
  if (link.by === "structure") return `${link.source_type} ${(LINK_TYPES[link.type] || [0, link.type])[1]} ${link.target_type}, from the memory's own fields`;
  if (link.by === "feedback") return "a fix that worked (feedback credited it)";
  const reads = (LINK_TYPES[link.type] || [0, link.type])[1];
  const kinds = `kind rule: ${link.source_type} ${reads} ${link.target_type}`;
  return link.by === "llm" ? `${kinds}, confirmed by a model review` : kinds;
}

/** The evidence words of a why: "shared: line 3, encoder; similar meaning (0.30); ..." -> ["line 3", "encoder"]. */
function evidenceWords(why) {
  const words = [];
  for (const part of String(why || "").split(";")) {
    const text = part.trim();
    if (text.startsWith("shared:")) words.push(...text.slice(7).split(",").map((w) => w.trim()).filter(Boolean));
    const via = text.match(/^via (.+)$/);
    if (via) words.push(via[1]);
  }
  return words;
}

export async function openLinkCard(source, target, afterChange) {
  const dialog = document.getElementById("link-dialog");
  const card = document.getElementById("link-card");
  clear(card, h("p", {}, "Reading the link…"));
  if (!dialog.open) dialog.showModal();
  const shown = await guarded("Link", async () => {
    const [links, explained] = await Promise.all([
      api("GET", `/memories/${encodeURIComponent(source)}/links`, { query: scope() }),
      api("GET", `/memories/${encodeURIComponent(source)}/links/${encodeURIComponent(target)}/explain`, { query: scope() }),
    ]);
    const link = links.find((k) => (k.source === source && k.target === target) || (k.source === target && k.target === source));
    if (!link) {
      clear(card, h("h2", { id: "link-title" }, "No link"), h("p", {}, "These memories are not linked (any more)."),
        closeRow(dialog));
      return true;
    }
    render(dialog, card, link, explained, afterChange);
    return true;
  });
  if (!shown) clear(card, h("p", {}, "The link could not be read."), closeRow(dialog));
}

function closeRow(dialog) {
  return h("div", { class: "row" }, h("button", { type: "button", onclick: () => dialog.close() }, "Close"));
}

function render(dialog, card, link, explained, afterChange) {
  const [colour, reads] = LINK_TYPES[link.type] || ["#999", link.type];
  const words = evidenceWords(link.why);
  const weight = h("input", { type: "number", id: "reweight", min: 0.05, max: 1, step: 0.05, value: number(link.weight_now ?? link.weight, 2) });
  const signals = Object.entries(explained.signals || {}).filter(([, v]) => v !== 0 && v !== false);
  clear(card,
    h("h2", { id: "link-title" }, h("span", { class: "line", style: { borderColor: colour } }), `Link: ${reads}`),
    h("p", { class: "sentence", id: "link-sentence" },
      `${link.source_type} “${short(link.source_label, 80)}” `, h("strong", {}, reads), ` ${link.target_type} “${short(link.target_label, 80)}”`),
    h("dl", { class: "kv", id: "link-facts" },
      h("dt", {}, "rule"), h("dd", { dataset: { fact: "rule" } }, rule(link)),
      h("dt", {}, "evidence"), h("dd", { dataset: { fact: "why" } }, link.why || "(none recorded)"),
      h("dt", {}, "evidence words"), h("dd", { dataset: { fact: "words" } },
        words.length ? words.map((w) => h("span", { class: "chip" }, w)) : h("span", { class: "empty" }, "none (not a shared-words link)")),
      h("dt", {}, "weight now"), h("dd", { dataset: { fact: "weight-now" } }, number(link.weight_now ?? link.weight, 3),
        h("div", { class: "bar", style: { width: "12rem" } }, h("span", { style: { width: `${Math.round(100 * (link.weight_now ?? link.weight))}%` } }))),
      h("dt", {}, "weight as stored"), h("dd", { dataset: { fact: "weight" } }, `${number(link.weight, 3)} (made ${when(link.at)}, last reinforced ${when(link.seen)})`),
      h("dt", {}, "made by"), h("dd", { dataset: { fact: "by" } }, `${link.by}: ${AUTHORS[link.by] || ""}`),
      link.taken_from ? [h("dt", {}, "taken over"), h("dd", {}, `from the decision it replaced (${link.taken_from})`)] : null,
      h("dt", {}, "scored again now"), h("dd", { dataset: { fact: "explain" } },
        `${number(explained.score, 3)} ${explained.linked ? "(would link)" : "(would not link today)"}`,
        h("div", { class: "signals" }, signals.map(([name, value]) => h("span", { class: "chip" }, `${name} ${typeof value === "number" ? number(value, 2) : value}`))))),
    h("div", { class: "row" },
      field("New weight", weight),
      h("button", { type: "button", id: "reweight-button", onclick: () => reweight(dialog, link, Number(weight.value), afterChange) }, "Re-weight"),
      h("button", { type: "button", class: "danger", id: "unlink-button", onclick: () => unlink(dialog, link, afterChange) }, "Unlink"),
      h("button", { type: "button", onclick: () => dialog.close() }, "Close")),
    h("p", { class: "muted" }, "Re-weighting makes it a manual link (it no longer fades). Unlinking is remembered: linking will not make this link again."));
  document.getElementById("reweight-button").focus();
}

async function unlink(dialog, link, afterChange) {
  await guarded("Unlink", async () => {
    const done = await api("DELETE", `/memories/${encodeURIComponent(link.source)}/links/${encodeURIComponent(link.target)}`, { query: scope() });
    status(done.unlinked ? "Unlinked." : "There was no such link.");
    dialog.close();
    if (afterChange) await afterChange();
  });
}

async function reweight(dialog, link, weight, afterChange) {
  if (!(weight > 0 && weight <= 1)) { status("A weight is above 0 and at most 1.", true); return; }
  await guarded("Re-weight", async () => {
    await api("POST", `/memories/${encodeURIComponent(link.source)}/links`, {
      body: scope({ target: link.target, type: link.type, weight, why: link.why || "re-weighted in the console" }),
    });
    status(`Re-weighted to ${number(weight, 2)}.`);
    dialog.close();
    if (afterChange) await afterChange();
  });
}
