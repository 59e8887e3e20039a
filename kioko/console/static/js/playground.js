// Playground: a chat-like pane. Each turn is previewed (a dry run: what the router would write) and then applied;
// the applied turn shows the operations it made and the links they created. The offline router needs no model.

import { api, scope, session } from "./api.js";
import { h, clear, guarded, status, uid } from "./ui.js";
import { operations } from "./operations.js";

export function create(panel, ctx) {
  const said = h("textarea", { id: "play-text", rows: 2, placeholder: "Say something to the agent, e.g. Line 3 keeps faulting with error E-217." });
  const atOnce = h("input", { type: "checkbox", id: "play-at-once" });
  const chat = h("div", { class: "chat", id: "play-chat", "aria-live": "polite" });
  const sessionId = `playground-${Math.random().toString(36).slice(2, 8)}`;
  const form = h("form", { onsubmit: (e) => { e.preventDefault(); guarded("Turn", send); } },
    h("label", { for: "play-text" }, "Your turn"), said,
    h("div", { class: "row" }, h("button", { type: "submit", class: "primary", id: "play-send" }, "Send (preview)"),
      h("label", {}, atOnce, " apply at once"), h("span", { class: "muted" }, `session ${sessionId}`)));
  clear(panel, h("div", { class: "card" }, h("h2", {}, "Playground"),
    h("p", { class: "muted" }, "Each turn goes through manage(): first as a preview that writes nothing, then applied. The links each write made are listed under it."),
    chat, form));
  const tab = { stale: false };

  async function send() {
    const text = said.value.trim();
    if (!text || !session.user) return;
    said.value = "";
    const id = uid("turn");
    const box = h("div", { class: "turn", id }, h("div", { class: "said" }, text), h("p", { class: "muted" }, "Deciding…"));
    chat.append(box);
    const body = (dryRun) => scope({ text, session_id: sessionId, dry_run: dryRun });
    if (atOnce.checked) return apply(box, body);
    const report = await api("POST", "/manage", { body: body(true) });
    box.replaceChildren(h("div", { class: "said" }, text), h("h3", {}, "Preview"), operations(report, ctx),
      h("div", { class: "row" },
        h("button", { type: "button", class: "primary play-apply", onclick: () => guarded("Apply", () => apply(box, body)) }, "Apply"),
        h("button", { type: "button", onclick: () => { box.remove(); status("Discarded: nothing was written."); } }, "Discard")));
    box.querySelector(".play-apply").focus();
    chat.scrollTop = chat.scrollHeight;
  }

  async function apply(box, body) {
    const text = box.querySelector(".said").textContent;
    const report = await api("POST", "/manage", { body: body(false) });
    box.replaceChildren(h("div", { class: "said" }, text), h("h3", {}, "Applied"), operations(report, ctx));
    box.dataset.applied = "true";
    status(`Applied: ${report.ops.filter((op) => op.status === "applied").length} operation(s).`);
    ctx.changed();
    chat.scrollTop = chat.scrollHeight;
  }

  return Object.assign(tab, { show() {}, userChanged() { clear(chat); } });
}
