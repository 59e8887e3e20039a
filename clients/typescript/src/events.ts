// GET /v1/events (server-sent events) as an async iterator: `for await (const event of memory.events())`.
import { open, type Transport } from "./http.js";

/** One event of the service's bus: `event` names it ("memory.added", "memory.deleted", ...). */
export interface KiokoEvent {
  event: string;
  [field: string]: unknown;
}

export interface EventOptions {
  user_id?: string;
  /** The server closes the stream after this many seconds (the iterator then ends). */
  timeout?: number;
  /** Aborting ends the iterator (and closes the connection). */
  signal?: AbortSignal;
  /** Called once the server has the stream listening: a write made after it is heard. */
  onOpen?: () => void;
}

export async function* readEvents(transport: Transport, options: EventOptions = {}): AsyncGenerator<KiokoEvent> {
  const response = await open(transport, "get", "/v1/events", {
    query: { user_id: options.user_id, timeout: options.timeout },
    signal: options.signal,
    accept: "text/event-stream",
  });
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "";
  let data = "";
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, end).replace(/\r$/, "");
        buffer = buffer.slice(end + 1);
        if (line.startsWith(": connected")) {
          options.onOpen?.();
        } else if (line.startsWith("event:")) {
          event = line.slice(6).trim();
        } else if (line.startsWith("data:")) {
          data += line.slice(5).trim();
        } else if (line === "" && event) {
          const payload = parse(data);
          if (payload !== undefined) yield { ...payload, event };
          event = "";
          data = "";
        }
      }
    }
  } catch (error) {
    if ((error as { name?: string }).name !== "AbortError") throw error;
  }
}

function parse(data: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(data || "{}");
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // a malformed event is skipped, as the Python client skips it
  }
}
