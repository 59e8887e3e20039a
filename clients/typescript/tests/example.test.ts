import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { memoryTools } from "../examples/memory-tool.js";
import { KiokoClient } from "../src/index.js";
import { freshUser, startServer } from "./support.js";

let server: Awaited<ReturnType<typeof startServer>>;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

test("the example's tools remember, recall and forget through a live server", async () => {
  const memory = new KiokoClient({ url: server.url });
  const user = freshUser("agent");
  const tools = Object.fromEntries(memoryTools(memory, user).map((tool) => [tool.name, tool]));
  assert.deepEqual(Object.keys(tools).sort(), ["forget", "recall", "remember"]);

  assert.match(await tools.remember!.execute({ text: "We decided to deploy on Fridays only after the smoke tests pass." }), /^remembered/);
  const context = await tools.recall!.execute({ question: "what did we decide about deploying?" });
  assert.match(context, /smoke tests/);

  const stored = (await memory.list({ user_id: user })).items;
  assert.ok(stored.length > 0);
  for (const item of stored) assert.equal(await tools.forget!.execute({ id: item.id }), "forgotten");
  assert.equal((await memory.list({ user_id: user })).items.length, 0);
});
