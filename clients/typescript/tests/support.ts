// The tests' live server: a real `kioko serve` on loopback (scripts/server.mjs), one per test file.
import type * as ServerModule from "../scripts/server.mjs";

// from dist/tests/ at run time; the types come from scripts/server.d.mts
const serverModule = (await import(new URL("../../scripts/server.mjs", import.meta.url).href)) as typeof ServerModule;
export const { startServer, python } = serverModule;

let counter = 0;
/** A user id no other test of the run uses, so tests share a server without seeing each other's memories. */
export function freshUser(prefix = "ts"): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

/** Resolves when `predicate` holds for an event of the iterator, or rejects after `limit` events. */
export async function firstMatching<T>(events: AsyncIterable<T>, predicate: (event: T) => boolean, limit = 100): Promise<T> {
  let seen = 0;
  for await (const event of events) {
    if (predicate(event)) return event;
    seen += 1;
    if (seen >= limit) break;
  }
  throw new Error(`no matching event among ${seen}`);
}
