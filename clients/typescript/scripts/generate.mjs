// Regenerates src/generated/schema.ts from a live server's OpenAPI document (openapi-typescript). Run after any change to the service's routes or bodies;
// tests/drift.test.ts fails while the two are out of step.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./server.mjs";
import { renderTypes } from "./render.mjs";

const out = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "generated");
const server = await startServer();
try {
  const document = await (await fetch(`${server.url}/v1/openapi.json`)).json();
  writeFileSync(join(out, "schema.ts"), await renderTypes(document));
  console.log(`wrote ${out}/schema.ts (${Object.keys(document.paths).length} paths)`);
} finally {
  await server.stop();
}
