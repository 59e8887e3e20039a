// Small DOM helpers shared by the tabs. Text always goes in as text nodes (never as HTML).

export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className = value;
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name === "style" && typeof value === "object") Object.assign(el.style, value);
    else if (name === "value" || name === "checked" || name === "selected") el[name] = value;
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function status(message, error = false) {
  const line = document.getElementById("status");
  line.textContent = message;
  line.classList.toggle("error", Boolean(error));
}

/** Run an async action, showing its failure in the status line instead of throwing. */
export async function guarded(what, action) {
  try {
    return await action();
  } catch (error) {
    status(`${what}: ${error.type ? `${error.type}: ` : ""}${error.message}`, true);
    return undefined;
  }
}

export function when(stamp) {
  if (!stamp) return "";
  const date = new Date(stamp * 1000);
  return date.toISOString().replace("T", " ").slice(0, 16);
}

export function short(text, width = 90) {
  const flat = String(text ?? "").split(/\s+/).join(" ").trim();
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`;
}

export function number(value, digits = 3) {
  return typeof value === "number" ? value.toFixed(digits) : String(value ?? "");
}

let counter = 0;
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** A labelled control: the label's for= points at the control's id. */
export function field(label, control) {
  if (!control.id) control.id = uid("f");
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control);
}

// The kinds of memory, as the server's kind registry says (GET /v1/kinds: name, what a person calls it, colour ...),
// in the registry's order; loadKinds() fills them before the tabs are built, so no kind is spelled here.
export const KINDS = [];
export const KIND_COLOUR = {};

export async function loadKinds(api) {
  const kinds = await api("GET", "/kinds");
  KINDS.splice(0, KINDS.length, ...kinds);
  for (const kind of kinds) KIND_COLOUR[kind.name] = kind.colour;
  return KINDS;
}

// link types: the colour of their edges and how they read (spec: graph memory, section 2)
export const LINK_TYPES = {
  serves: ["#59a14f", "serves"], advances: ["#2e8540", "advances"], concerns: ["#edc948", "concerns"],
  informs: ["#4e79a7", "informs"], refines: ["#b07aa1", "refines"], learned_from: ["#ff9da7", "was learned from"],
  applies_to: ["#f28e2b", "applies to"], resolves: ["#e15759", "resolves"], follows: ["#79706e", "follows"],
  part_of: ["#2f2f2f", "is part of"], supersedes: ["#9c755f", "supersedes"], derived_from: ["#76b7b2", "is derived from"],
  related_to: ["#9aa0a6", "is related to"],
};
export const FIX_THAT_WORKED = "#1e9e3a";

export const AUTHORS = {
  structure: "follows from the memories' own fields (never fades)",
  manual: "made by a person (never fades)",
  feedback: "a fix that worked, from feedback (fades)",
  llm: "confirmed or retyped by a model review (fades)",
  auto: "the linking algorithm at write time (fades)",
};

export function kindChip(kind) {
  return h("span", { class: "chip", style: { background: `${KIND_COLOUR[kind] || "#ccc"}33` } },
    h("span", { class: "swatch", style: { background: KIND_COLOUR[kind] || "#ccc" } }), kind);
}

export function signalChips(signals) {
  const entries = Object.entries(signals || {});
  if (!entries.length) return h("span", { class: "empty" }, "no signals");
  return h("span", { class: "signals" }, entries.map(([name, value]) =>
    h("span", { class: "chip", dataset: { signal: name } }, `${name} ${typeof value === "number" ? number(value, 2) : value}`)));
}
