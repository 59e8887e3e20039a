// The console's only way to the server: the public /v1 API and the /v1/events stream.
// The API key lives in this tab's sessionStorage and travels as an Authorization header, never in a URL.

const KEY_SLOT = "kioko.console.key";
const USER_SLOT = "kioko.console.user";

export class ApiError extends Error {
  constructor(status, type, message) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

export const session = {
  get key() { return sessionStorage.getItem(KEY_SLOT) || ""; },
  set key(value) {
    if (value) sessionStorage.setItem(KEY_SLOT, value);
    else sessionStorage.removeItem(KEY_SLOT);
  },
  get user() { return sessionStorage.getItem(USER_SLOT) || ""; },
  set user(value) { sessionStorage.setItem(USER_SLOT, value); },
};

// The server's console token, put in the page as the server sends it: a server without API keys answers a
// browser's API calls only with it, so a page of another site (which cannot read this page) cannot drive it.
const TOKEN = document.querySelector('meta[name="kioko-console"]')?.content || "";

function headers(extra = {}) {
  const out = { Accept: "application/json", ...extra };
  if (TOKEN) out["X-Kioko-Console"] = TOKEN;
  const key = session.key;
  if (key) out.Authorization = `Bearer ${key}`;
  return out;
}

function address(path, query) {
  const url = new URL(`/v1${path}`, location.origin);
  for (const [name, value] of Object.entries(query || {})) {
    if (value === undefined || value === null || value === "") continue;
    for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(one));
  }
  return url;
}

/** One API call: resolves to the answer's JSON, rejects with an ApiError carrying the server's error type. */
export async function api(method, path, { query, body } = {}) {
  const init = { method, headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }), cache: "no-store" };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(address(path, query), init);
  const text = await response.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = { error: { type: "BadAnswer", message: text.slice(0, 200) } }; }
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(response.status, error.type || "HTTPError", error.message || response.statusText);
  }
  return data;
}

/** Current user's scope parameters, for query strings and bodies alike. */
export function scope(extra = {}) {
  return { user_id: session.user, ...extra };
}

/**
 * Read /v1/events (server-sent events) with fetch, so the key goes in a header (EventSource cannot send one).
 * Calls onEvent(name, payload) per event until signal aborts; resolves when the stream ends.
 */
export async function events(query, onEvent, signal) {
  const response = await fetch(address("/events", query), { headers: headers({ Accept: "text/event-stream" }), signal, cache: "no-store" });
  if (!response.ok || !response.body) throw new ApiError(response.status, "HTTPError", "the event stream did not open");
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    pending += value;
    let end;
    while ((end = pending.indexOf("\n\n")) >= 0) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      let name = "";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      if (name && data.length) {
        try { onEvent(name, JSON.parse(data.join("\n"))); } catch (error) { console.warn("event not shown", error); }
      }
    }
  }
}
