// Memories: a filtered list, one memory opened (content, kind, metadata, links), edit / delete / pin, add any kind.

import { api, scope, session } from "./api.js";
import { h, clear, field, guarded, status, when, short, number, KINDS, kindChip, LINK_TYPES } from "./ui.js";

const PAGE = 50;
// kinds the server refuses to pin (kioko_intelligence.pins: the profile and instructions are always in
// the prefix, working memory belongs to its session); no Pin button for them rather than a 422
// the kinds the linker never links (instructions, profile slots, working memory) are not pinned either
const unpinnable = (kind) => KINDS.some((k) => k.name === kind && !k.links);

export function create(panel, ctx) {
  const kind = h("select", { name: "kind" }, h("option", { value: "" }, "any kind"),
    KINDS.map(({ name, called }) => h("option", { value: name }, `${called} (${name})`)));
  const session_ = h("input", { name: "session", placeholder: "session id", maxlength: 200 });
  const text = h("input", { name: "text", type: "search", placeholder: "words in the memory" });
  const pinned = h("input", { type: "checkbox", name: "pinned" });
  const superseded = h("input", { type: "checkbox", name: "superseded", checked: true });
  const filters = h("form", { class: "filters", id: "memory-filters", onsubmit: (e) => { e.preventDefault(); load(); } },
    h("div", { class: "row" }, field("Kind", kind), field("Session", session_), field("Text", text)),
    h("div", { class: "row" },
      h("label", {}, pinned, " pinned only"), h("label", {}, superseded, " show superseded"),
      h("button", { type: "submit", class: "primary" }, "Filter"),
      h("button", { type: "button", onclick: () => openAdd() }, "Add a memory")));
  const count = h("p", { class: "muted", id: "memory-count" });
  const list = h("ul", { class: "list", id: "memory-list", "aria-label": "Memories" });
  const more = h("button", { type: "button", hidden: true, onclick: () => load(true) }, "More");
  const detail = h("div", { class: "card", id: "memory-detail", "aria-live": "polite" },
    h("p", { class: "empty" }, "Open a memory from the list, or add one."));
  clear(panel, h("div", { class: "split" },
    h("div", { class: "card" }, h("h2", {}, "Memories"), filters, count, list, more), detail));

  let cursor = null;
  let shown = [];
  let openId = null;
  const tab = { stale: true };

  function keep(record) {
    if (kind.value && record.kind !== kind.value) return false;
    if (session_.value.trim() && record.session_id !== session_.value.trim()) return false;
    if (pinned.checked && record.metadata.pinned !== true) return false;
    if (!superseded.checked && record.metadata.superseded_by) return false;
    return true;
  }

  let generation = 0;

  async function load(next = false) {
    if (!session.user) return;
    tab.stale = false;
    const mine = ++generation; // a newer load (another filter, another user) wins over one still running
    const words = text.value.trim();
    let page;
    if (words) {
      page = { items: await api("POST", "/search", { body: scope({ query: words, limit: 100 }) }), next_cursor: null };
    } else if (pinned.checked) {
      page = { items: await api("GET", "/pins", { query: scope() }), next_cursor: null };
    } else {
      page = await api("GET", "/memories", {
        query: scope({ kind: kind.value || undefined, session_id: session_.value.trim() || undefined, limit: PAGE, cursor: next ? cursor : undefined }),
      });
    }
    if (mine !== generation) return;
    if (!next) shown = [];
    cursor = page.next_cursor;
    shown = shown.concat(page.items.filter(keep));
    render();
    more.hidden = !cursor;
  }

  function render() {
    count.textContent = `${shown.length} memor${shown.length === 1 ? "y" : "ies"} shown${cursor ? " (more available)" : ""}`;
    clear(list, shown.map((record) => h("li", {},
      h("button", { type: "button", dataset: { id: record.id }, "aria-current": String(record.id === openId), onclick: () => open(record.id) },
        kindChip(record.kind),
        record.metadata.pinned === true ? h("span", { class: "chip" }, "pinned") : null,
        record.metadata.superseded_by ? h("span", { class: "chip" }, "superseded") : null,
        short(record.content, 120),
        h("div", { class: "muted" }, `${when(record.created_at)}${record.session_id ? ` · session ${record.session_id}` : ""}`)))));
    if (!shown.length) list.append(h("li", { class: "empty" }, "No memory matches."));
  }

  async function open(id) {
    openId = id;
    for (const button of list.querySelectorAll("button[data-id]")) button.setAttribute("aria-current", String(button.dataset.id === id));
    const done = await guarded("Open", async () => {
      const [record, links] = await Promise.all([
        api("GET", `/memories/${encodeURIComponent(id)}`, { query: scope() }),
        api("GET", `/memories/${encodeURIComponent(id)}/links`, { query: scope() }),
      ]);
      showRecord(record, links);
      return true;
    });
    if (!done) clear(detail, h("p", { class: "empty" }, "That memory could not be read."));
  }

  function showRecord(record, links) {
    const content = h("textarea", { id: "memory-content", rows: 4 }, record.content);
    // a server older than the one wire shape sent entities inside metadata._kioko
    const { _kioko: internal, ...metadata } = record.metadata;
    const entities = record.entities || (internal && internal.entities) || [];
    const isPinned = record.metadata.pinned === true;
    clear(detail,
      h("h2", {}, "Memory ", kindChip(record.kind)),
      h("dl", { class: "kv" },
        h("dt", {}, "id"), h("dd", {}, h("code", {}, record.id)),
        h("dt", {}, "created"), h("dd", {}, when(record.created_at)),
        h("dt", {}, "updated"), h("dd", {}, `${when(record.updated_at)} (version ${record.version})`),
        record.session_id ? [h("dt", {}, "session"), h("dd", {}, record.session_id)] : null,
        entities.length ? [h("dt", {}, "about"), h("dd", {}, entities.join(", "))] : null),
      field("Content", content),
      h("div", { class: "row" },
        h("button", { type: "button", class: "primary", onclick: () => save(record, content.value) }, "Save"),
        unpinnable(record.kind) ? null
          : h("button", { type: "button", id: "pin-button", onclick: () => pin(record, !isPinned) }, isPinned ? "Unpin" : "Pin"),
        h("button", { type: "button", onclick: () => ctx.showInGraph(record.id) }, "Show in graph"),
        h("button", { type: "button", class: "danger", onclick: () => remove(record) }, "Delete")),
      h("h3", {}, "Metadata"), h("pre", { id: "memory-metadata" }, JSON.stringify(metadata, null, 2)),
      h("h3", {}, `Links (${links.length})`),
      links.length ? h("ul", { class: "list", id: "memory-links" }, links.map((link) => linkItem(record, link)))
        : h("p", { class: "empty" }, "No links yet."));
  }

  function linkItem(record, link) {
    const out = link.source === record.id;
    const other = out ? `${link.target_type} “${short(link.target_label, 70)}”` : `${link.source_type} “${short(link.source_label, 70)}”`;
    const reads = (LINK_TYPES[link.type] || [null, link.type])[1];
    return h("li", {}, h("button", {
      type: "button", class: "link-item", dataset: { source: link.source, target: link.target },
      onclick: () => ctx.openLink(link.source, link.target, () => open(record.id)),
    }, out ? `this ${reads} ${other}` : `${other} ${reads} this`,
    h("div", { class: "muted" }, `weight ${number(link.weight_now ?? link.weight, 2)} · by ${link.by} · ${short(link.why, 80)}`)));
  }

  async function save(record, content) {
    await guarded("Save", async () => {
      const body = scope({});
      if (content !== record.content) body.content = content;
      await api("PATCH", `/memories/${encodeURIComponent(record.id)}`, { body });
      status("Saved.");
      ctx.changed();
      await Promise.all([load(), open(record.id)]);
    });
  }

  async function pin(record, on) {
    await guarded(on ? "Pin" : "Unpin", async () => {
      if (on) await api("POST", `/memories/${encodeURIComponent(record.id)}/pin`, { body: scope() });
      else await api("DELETE", `/memories/${encodeURIComponent(record.id)}/pin`, { query: scope() });
      status(on ? "Pinned: every context shows it under “Keep in mind”." : "Unpinned.");
      ctx.changed();
      await Promise.all([load(), open(record.id)]);
    });
  }

  async function remove(record) {
    if (!window.confirm(`Delete this ${record.kind} memory? Its links go with it.`)) return;
    await guarded("Delete", async () => {
      await api("DELETE", `/memories/${encodeURIComponent(record.id)}`, { query: scope() });
      status("Deleted.");
      openId = null;
      ctx.changed();
      clear(detail, h("p", { class: "empty" }, "Deleted."));
      await load();
    });
  }

  function openAdd() {
    const addKind = h("select", { id: "add-kind" }, KINDS.map(({ name, called }) => h("option", { value: name }, `${called} (${name})`)));
    const addContent = h("textarea", { id: "add-content", rows: 4, required: true });
    const addSession = h("input", { id: "add-session", maxlength: 200 });
    const addMeta = h("textarea", { id: "add-metadata", rows: 2, placeholder: '{"source": "console"}' });
    const form = h("form", { id: "add-form", onsubmit: async (event) => {
      event.preventDefault();
      await guarded("Add", async () => {
        const metadata = addMeta.value.trim() ? JSON.parse(addMeta.value) : undefined;
        const stored = await api("POST", "/memories", { body: scope({
          content: addContent.value, memory_type: addKind.value, session_id: addSession.value.trim() || undefined, metadata,
        }) });
        status("Added; its links were made as it was written.");
        ctx.changed();
        await load();
        await open(stored.id);
      });
    } },
    h("h2", {}, "Add a memory"), field("Kind", addKind), field("Content", addContent),
    h("div", { class: "row" }, field("Session (optional)", addSession)), field("Metadata (JSON, optional)", addMeta),
    h("div", { class: "row" }, h("button", { type: "submit", class: "primary" }, "Add")));
    clear(detail, form);
    addContent.focus();
  }

  return Object.assign(tab, {
    show() { if (tab.stale) guarded("List", load); },
    userChanged() { tab.stale = true; openId = null; clear(detail, h("p", { class: "empty" }, "Open a memory from the list, or add one.")); },
    open,
  });
}
