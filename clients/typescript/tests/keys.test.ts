import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { Forbidden, KiokoClient, Unauthorized } from "../src/index.js";
import { startServer } from "./support.js";

// a key file as `kioko keys-new` writes it: only the key's SHA-256, never the key
const aliceKey = `kk_${randomBytes(24).toString("base64url")}`;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

let server: Awaited<ReturnType<typeof startServer>>;

before(async () => {
  server = await startServer({ keys: { keys: [{ name: "alice-key", sha256: sha256(aliceKey), users: ["alice"] }] } });
});
after(async () => {
  await server?.stop();
});

test("no key is Unauthorized", async () => {
  const anonymous = new KiokoClient({ url: server.url, user_id: "alice" });
  await assert.rejects(anonymous.add("hello"), (error: unknown) => {
    assert.ok(error instanceof Unauthorized);
    assert.equal(error.status, 401);
    return true;
  });
});

test("a wrong key is Unauthorized", async () => {
  const wrong = new KiokoClient({ url: server.url, apiKey: `kk_${randomBytes(24).toString("base64url")}`, user_id: "alice" });
  await assert.rejects(wrong.recall("anything"), Unauthorized);
});

test("a key acts for its users only: another user is Forbidden", async () => {
  const alice = new KiokoClient({ url: server.url, apiKey: aliceKey, user_id: "alice" });
  const stored = await alice.add("Alice's standup is at 9:15.");
  assert.equal((await alice.get(stored.id)).content, "Alice's standup is at 9:15.");
  const who = await alice.whoami();
  assert.match(JSON.stringify(who), /alice-key/);
  assert.doesNotMatch(JSON.stringify(who), new RegExp(aliceKey), "the key itself is never echoed");

  const asBob = alice.scoped({ user_id: "bob" });
  await assert.rejects(asBob.add("Bob's note"), (error: unknown) => {
    assert.ok(error instanceof Forbidden);
    assert.equal(error.status, 403);
    return true;
  });
});
