// A ManageReport's operations as a list, each with the links it created (shared by Intelligence and Playground).

import { h, short, kindChip, number } from "./ui.js";

export function operations(report, ctx) {
  const ops = report.ops || [];
  return h("div", { class: "report" },
    h("p", { class: "muted" }, `${report.dry_run ? "Dry run" : "Applied"} by the ${report.router} router; ${report.model_calls} model call(s)`
      + `${report.skipped ? `; skipped: ${report.skipped}` : ""}${report.error ? `; error: ${report.error}` : ""}.`),
    ops.length ? ops.map((op) => h("div", { class: `op ${op.status}`, dataset: { op: op.op, status: op.status } },
      h("div", {}, kindChip(op.kind), h("strong", {}, op.op), ` ${op.status}: `, short(op.description, 140)),
      h("div", { class: "muted" }, `${op.reason} · importance ${number(op.importance, 2)} · confidence ${number(op.confidence, 2)}`),
      op.error ? h("div", { class: "muted" }, `error: ${op.error}`) : null,
      op.memory_id ? h("button", { type: "button", class: "link-like", onclick: () => ctx.openMemory(op.memory_id) }, "open the memory") : null,
      (op.linked || []).length ? h("ul", { class: "op-links" }, op.linked.map((line) => h("li", {}, `linked: ${typeof line === "string" ? line : JSON.stringify(line)}`)))
        : op.status === "applied" && op.memory_id ? h("div", { class: "muted" }, "no link made") : null))
      : h("p", { class: "empty" }, "No operation: nothing in this turn is worth remembering."));
}
