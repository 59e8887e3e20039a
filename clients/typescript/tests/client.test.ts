import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  InvalidRecordError,
  KiokoClient,
  KiokoError,
  MemoryNotFound,
  RequestInvalid,
  SecretDropped,
  type KiokoEvent,
} from "../src/index.js";
import { firstMatching, freshUser, startServer } from "./support.js";

let server: Awaited<ReturnType<typeof startServer>>;
let memory: KiokoClient;

before(async () => {
  server = await startServer();
  memory = new KiokoClient({ url: server.url });
});
after(async () => {
  await server?.stop();
});

describe("memories", () => {
  test("add, get, update and delete round-trip; a deleted memory is MemoryNotFound", async () => {
    const user = freshUser();
    const added = await memory.add("The staging database runs PostgreSQL 16.", {
      user_id: user,
      metadata: { source: "ticket-4711", tags: ["db"] },
    });
    assert.equal(added.user_id, user);
    assert.equal(added.content, "The staging database runs PostgreSQL 16.");
    assert.deepEqual(added.metadata, { source: "ticket-4711", tags: ["db"] });

    const read = await memory.get(added.id, { user_id: user });
    assert.equal(read.id, added.id);
    assert.deepEqual(read.metadata, { source: "ticket-4711", tags: ["db"] }, "no bookkeeping of Kioko's in metadata");

    const changed = await memory.update(added.id, { user_id: user, content: "The staging database runs PostgreSQL 18." });
    assert.equal(changed.content, "The staging database runs PostgreSQL 18.");
    assert.ok(changed.version > read.version);

    await memory.delete(added.id, { user_id: user });
    await assert.rejects(memory.get(added.id, { user_id: user }), (error: unknown) => {
      assert.ok(error instanceof MemoryNotFound);
      assert.ok(error instanceof KiokoError);
      assert.equal(error.status, 404);
      assert.equal(error.type, "MemoryNotFound");
      return true;
    });
  });

  test("a scoped client fills in its user, and another user's memory is not found", async () => {
    const alice = memory.scoped({ user_id: freshUser("alice") });
    const bob = memory.scoped({ user_id: freshUser("bob") });
    const note = await alice.add("Alice keeps her spare keys in the blue drawer.");
    assert.equal((await alice.get(note.id)).content, note.content);
    await assert.rejects(bob.get(note.id), MemoryNotFound);
    const page = await alice.list();
    assert.deepEqual(
      page.items.map((item) => item.id),
      [note.id],
    );
  });

  test("a secret is refused with SecretDropped and nothing is stored", async () => {
    const user = freshUser();
    await assert.rejects(
      memory.add("our deploy token is ghp_Zq8vT1mR4kP0wX7yB2nL9cJ5hF3dG6sA1eU0", { user_id: user }),
      (error: unknown) => {
        assert.ok(error instanceof SecretDropped);
        assert.ok(error instanceof InvalidRecordError, "SecretDropped is an InvalidRecordError, as in Python");
        assert.ok(error.kinds.length > 0, "the kinds of secret found are named");
        return true;
      },
    );
    assert.equal((await memory.list({ user_id: user })).items.length, 0);
  });

  test("input outside the schema is a typed 422", async () => {
    await assert.rejects(memory.recall("anything", { user_id: freshUser(), limit: 10_000 }), (error: unknown) => {
      assert.ok(error instanceof RequestInvalid);
      assert.equal(error.status, 422);
      return true;
    });
  });
});

describe("recall", () => {
  test("recall and context bring back what was stored, and what is linked to it", async () => {
    const kumar = memory.scoped({ user_id: freshUser("kumar") });
    const fault = await kumar.episodes.add("Line 3 keeps faulting with error E-217.", { session_id: "s1" });
    const fix = await kumar.episodes.add("Found it: the encoder cable on line 3 was loose.", { session_id: "s1" });
    await kumar.add("The cafeteria serves lasagne on Thursdays.");

    const context = await kumar.recall("line 3 is faulting with E-217 again");
    const ids = context.memories.map((m) => m.id);
    assert.ok(ids.includes(fault.id), "the fault itself");
    assert.ok(ids.includes(fix.id), "the fix that resolved it");
    assert.match(context.text, /E-217/);

    const planned = await kumar.context("what fixed the E-217 fault on line 3?");
    assert.ok(planned.memories.some((m) => m.id === fix.id));
  });

  test("a budget bounds the context; a memory too long for it is cut with a marker", async () => {
    const kumar = memory.scoped({ user_id: freshUser("kumar") });
    const long = "The conveyor manual says: " + "check the belt tension and the drive temperature. ".repeat(2000);
    const stored = await kumar.add(long);
    const context = await kumar.recall("what does the conveyor manual say about belt tension?", { budget: 200 });
    assert.equal(context.budget, 200);
    assert.ok(Math.ceil(context.text.length / 4) <= 200 && context.tokens <= 200, context.text);
    assert.match(context.text, /\[\.\.\. cut: [\d,]+ more characters\]/);
    assert.deepEqual(context.cut, [stored.id]);
  });

  test("forgetAbout lists, then forgets, every memory naming a subject", async () => {
    const kumar = memory.scoped({ user_id: freshUser("kumar") });
    await kumar.add("Krutika prefers short status reports.");
    await kumar.add("The cafeteria serves lasagne on Thursdays.");
    const listed = await kumar.forgetAbout("Krutika", { dry_run: true });
    assert.deepEqual(listed.memories.map((m) => m.content), ["Krutika prefers short status reports."]);
    assert.equal(listed.deleted, 0);
    const done = await kumar.forgetAbout("Krutika");
    assert.equal(done.deleted, 1);
    assert.doesNotMatch((await kumar.recall("who is Krutika?")).text, /Krutika/);
  });
});

describe("managers", () => {
  test("goals: add, open, progress, complete, subgoals", async () => {
    const user = freshUser();
    const goal = await memory.goals.add("Ship the TypeScript client by Friday", { user_id: user });
    const sub = await memory.goals.add("Write the client's tests", { user_id: user, parent: goal.id });
    assert.deepEqual(
      (await memory.goals.subgoals(goal.id, { user_id: user })).map((g) => g.id),
      [sub.id],
    );
    assert.ok((await memory.goals.open({ user_id: user })).some((g) => g.id === goal.id));
    await memory.goals.progress(goal.id, 0.5, { user_id: user, note: "halfway" });
    await memory.goals.complete(goal.id, { user_id: user });
    assert.ok(!(await memory.goals.open({ user_id: user })).some((g) => g.id === goal.id));
  });

  test("each kind's manager writes its kind", async () => {
    const user = freshUser();
    const fact = await memory.facts.add("The office wifi is called kestrel.", { user_id: user });
    const lesson = await memory.lessons.add("Restart the encoder before replacing the cable.", { user_id: user });
    assert.notEqual(fact.kind, lesson.kind);
    assert.deepEqual(
      (await memory.facts.list({ user_id: user })).map((m) => m.id),
      [fact.id],
    );
    await memory.facts.delete(fact.id, { user_id: user });
    await assert.rejects(memory.facts.get(fact.id, { user_id: user }), MemoryNotFound);
  });

  test("pins: pin, list, unpin", async () => {
    const user = freshUser();
    const rule = await memory.add("Always answer in British English.", { user_id: user });
    await memory.pin(rule.id, { user_id: user });
    assert.deepEqual(
      (await memory.pins({ user_id: user })).map((m) => m.id),
      [rule.id],
    );
    await memory.unpin(rule.id, { user_id: user });
    assert.deepEqual(await memory.pins({ user_id: user }), []);
  });
});

describe("intelligence", () => {
  test("manage and recordTurn report what they did; endSession closes the session", async () => {
    const user = freshUser();
    const dry = await memory.manage("I prefer dark mode in every editor.", { user_id: user, dry_run: true });
    assert.equal(dry.dry_run, true);
    assert.ok(dry.ops.length > 0, "the router planned at least one operation");
    assert.equal((await memory.list({ user_id: user })).items.length, 0, "a dry run writes nothing");

    const turn = await memory.recordTurn("We decided to use pgvector because we already run Postgres.", "Noted.", {
      user_id: user,
      session_id: "s-ts",
    });
    assert.equal(turn.user_id, user);
    assert.ok(turn.ops.length > 0);
    const stored = await memory.list({ user_id: user });
    assert.ok(stored.items.some((m) => /pgvector/.test(m.content)), "the turn's decision is stored");
    await memory.endSession("s-ts", { user_id: user });
  });
});

describe("events", () => {
  test("events() yields the service's events as they happen", async () => {
    const user = freshUser();
    const controller = new AbortController();
    let opened!: () => void;
    const listening = new Promise<void>((resolve) => (opened = resolve));
    const stream = memory.events({ user_id: user, signal: controller.signal, onOpen: () => opened() });
    const heard = firstMatching<KiokoEvent>(stream, (e) => e.event === "memory.added");
    await listening;
    const added = await memory.add("The release train leaves on Tuesdays.", { user_id: user });
    const event = await heard;
    controller.abort();
    assert.equal(event.event, "memory.added");
    assert.match(JSON.stringify(event), new RegExp(added.id));
  });
});
