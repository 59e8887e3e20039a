// The committed types must be what openapi-typescript makes of the live service's document: a route or a
// body changed in Python without `npm run generate` fails here.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import type * as RenderModule from "../scripts/render.mjs";
import { startServer } from "./support.js";

const { renderTypes } = (await import(new URL("../../scripts/render.mjs", import.meta.url).href)) as typeof RenderModule;
const committed = new URL("../../src/generated/schema.ts", import.meta.url);

let server: Awaited<ReturnType<typeof startServer>>;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

test("src/generated/schema.ts matches the service's OpenAPI document (run `npm run generate`)", async () => {
  const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as { paths: object };
  assert.ok(Object.keys(document.paths).length > 50, "the live document lists the service's routes");
  const fresh = await renderTypes(document);
  const stored = readFileSync(committed, "utf8");
  if (fresh !== stored) {
    const a = fresh.split("\n");
    const b = stored.split("\n");
    const line = a.findIndex((text, i) => text !== b[i]);
    assert.fail(
      `the generated types drifted from the service at line ${line + 1}:\n  service:   ${a[line]}\n  committed: ${b[line]}\nrun \`npm run generate\` in clients/typescript`,
    );
  }
});
