// The console's shell: the API key, the user, the tabs, and the calls one tab makes into another.

import { api, session } from "./api.js";
import { status, guarded, clear, h, loadKinds } from "./ui.js";
import { openLinkCard } from "./linkcard.js";
import * as memories from "./memories.js";
import * as graph from "./graph.js";
import * as recall from "./recall.js";
import * as intelligence from "./intelligence.js";
import * as playground from "./playground.js";
import * as activity from "./activity.js";

const MODULES = { memories, graph, recall, intelligence, playground, activity };
const tabs = {};
let current = null;

const ctx = {
  /** Switch to a tab (and let it refresh itself). */
  go(name) { select(name, true); },
  openMemory(id) { select("memories", true); tabs.memories.open(id); },
  showInGraph(id) { select("graph", true); tabs.graph.centre(id); },
  openLink(source, target, afterChange) { openLinkCard(source, target, afterChange); },
  /** Something changed the store: tabs that show it reload when next shown. */
  changed() { for (const tab of Object.values(tabs)) tab.stale = true; },
};

function select(name, focus = false, refresh = true) {
  if (!MODULES[name]) name = "memories";
  for (const button of document.querySelectorAll("[role=tab]")) {
    const on = button.dataset.tab === name;
    button.setAttribute("aria-selected", String(on));
    button.tabIndex = on ? 0 : -1;
    document.getElementById(button.getAttribute("aria-controls")).hidden = !on;
  }
  if (history.replaceState) history.replaceState(null, "", `#${name}`);
  current = name;
  if (refresh && session.user) tabs[name].show();
  if (focus) document.getElementById(`tab-${name}`).focus();
}

function tablist() {
  const buttons = [...document.querySelectorAll("[role=tab]")];
  for (const button of buttons) {
    button.addEventListener("click", () => select(button.dataset.tab));
    button.addEventListener("keydown", (event) => {
      const at = buttons.indexOf(button);
      const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: buttons.length - 1 }[event.key];
      if (to === undefined) return;
      event.preventDefault();
      const next = buttons[(to + buttons.length) % buttons.length];
      select(next.dataset.tab, true);
    });
  }
}

async function whoami() {
  me = await api("GET", "/whoami");
  const list = document.getElementById("users");
  clear(list, (me.users || []).map((user) => h("option", { value: user })));
  document.getElementById("who-am-i").textContent = me.admin ? `key: ${me.name} (every user)` : `key: ${me.name}`;
  if (!me.admin && me.users && me.users.length && !me.users.includes(session.user)) session.user = me.users[0];
  return me;
}

let me = null;

function switchUser(user) {
  if (me && !me.admin && !(me.users || []).includes(user)) {
    // the server refuses it too (403); saying so here keeps the console on a user the key may read
    status(`This API key (${me.name}) may not act for ${user}; its users: ${(me.users || []).join(", ")}.`, true);
    document.getElementById("user").value = session.user;
    return;
  }
  session.user = user;
  document.getElementById("user").value = user;
  for (const tab of Object.values(tabs)) tab.userChanged();
  status(`Showing the memories of ${user}.`);
  if (current) tabs[current].show();
}

function keyDialog() {
  const dialog = document.getElementById("key-dialog");
  const input = document.getElementById("key-input");
  document.getElementById("key-button").addEventListener("click", () => {
    input.value = "";
    dialog.showModal();
    input.focus();
  });
  dialog.addEventListener("close", async () => {
    if (dialog.returnValue === "save" && input.value.trim()) session.key = input.value.trim();
    if (dialog.returnValue === "forget") session.key = "";
    input.value = "";
    if (dialog.returnValue === "save" || dialog.returnValue === "forget") await start();
  });
}

async function start() {
  me = null;
  if (!(await guarded("API key", whoami))) {
    status("This server needs an API key: choose API key above.", true);
    return;
  }
  if (!session.user) {
    status("Type a user id above and choose Switch.");
    document.getElementById("user").focus();
    return;
  }
  switchUser(session.user);
}

async function boot() {
  // the kinds (names, colours) come from the server before any tab lists them
  await guarded("Kinds", () => loadKinds(api));
  for (const [name, module] of Object.entries(MODULES)) {
    tabs[name] = module.create(document.getElementById(`panel-${name}`), ctx);
  }
  tablist();
  keyDialog();
  document.getElementById("who").addEventListener("submit", (event) => {
    event.preventDefault();
    const user = document.getElementById("user").value.trim();
    if (user) switchUser(user);
  });
  // kioko ui names the user it opens with (?user=...); a user chosen in this tab wins
  const named = new URLSearchParams(location.search).get("user");
  if (named && !session.user) session.user = named;
  document.getElementById("user").value = session.user;
  select(location.hash.slice(1) || "memories", false, false);
  start();
}

boot();
