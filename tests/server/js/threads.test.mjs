// Threads: create (with a given id, if_exists), get, search, update, delete; a fresh thread's
// state and history.
import { test } from "node:test";
import assert from "node:assert/strict";
import { client, rejectsHttp, UUID } from "./harness.mjs";

const c = client();

test("threads.create makes an idle thread with the given metadata", async () => {
  const t = await c.threads.create({ metadata: { owner: "alice", n: 1 } });
  assert.match(t.thread_id, UUID);
  assert.equal(t.status, "idle");
  assert.deepEqual(t.metadata, { owner: "alice", n: 1 });
  assert.equal(typeof t.created_at, "string");
  assert.equal(typeof t.updated_at, "string");
  assert.ok(!Number.isNaN(Date.parse(t.created_at)), "created_at is an ISO time");
  const got = await c.threads.get(t.thread_id);
  assert.equal(got.thread_id, t.thread_id);
  assert.equal(got.status, "idle");
  assert.deepEqual(got.metadata, { owner: "alice", n: 1 });
});

test("threads.create with thread_id: if_exists raise gives 409, do_nothing gives the same thread", async () => {
  const id = crypto.randomUUID();
  const t = await c.threads.create({ threadId: id, metadata: { a: 1 } });
  assert.equal(t.thread_id, id);
  await rejectsHttp(c.threads.create({ threadId: id, ifExists: "raise" }), 409);
  await rejectsHttp(c.threads.create({ threadId: id }), 409); // raise is the default
  const same = await c.threads.create({ threadId: id, ifExists: "do_nothing", metadata: { b: 2 } });
  assert.equal(same.thread_id, id);
  assert.deepEqual(same.metadata, { a: 1 }, "do_nothing leaves the existing thread as it was");
  assert.equal(same.created_at, t.created_at);
});

test("a thread that never ran has empty state and history", async () => {
  const t = await c.threads.create();
  const s = await c.threads.getState(t.thread_id);
  assert.deepEqual(s.values, {});
  assert.deepEqual(s.next, []);
  assert.deepEqual(s.tasks, []);
  assert.equal(s.checkpoint, null);
  assert.equal(s.parent_checkpoint ?? null, null);
  assert.deepEqual(await c.threads.getHistory(t.thread_id), []);
});

test("threads.update merges metadata", async () => {
  const t = await c.threads.create({ metadata: { a: 1, keep: "x" } });
  const u = await c.threads.update(t.thread_id, { metadata: { a: 2, b: 3 } });
  assert.deepEqual(u.metadata, { a: 2, keep: "x", b: 3 });
  assert.deepEqual((await c.threads.get(t.thread_id)).metadata, { a: 2, keep: "x", b: 3 });
  assert.ok(Date.parse(u.updated_at) >= Date.parse(t.updated_at));
});

test("threads.search filters by metadata and by status", async () => {
  const tag = crypto.randomUUID();
  const a = await c.threads.create({ metadata: { tag, role: "a" } });
  const b = await c.threads.create({ metadata: { tag, role: "b" } });
  const both = await c.threads.search({ metadata: { tag }, limit: 10 });
  assert.deepEqual(both.map((t) => t.thread_id).sort(), [a.thread_id, b.thread_id].sort());
  const onlyB = await c.threads.search({ metadata: { tag, role: "b" } });
  assert.deepEqual(onlyB.map((t) => t.thread_id), [b.thread_id]);
  const idle = await c.threads.search({ metadata: { tag }, status: "idle" });
  assert.equal(idle.length, 2);
  assert.deepEqual(await c.threads.search({ metadata: { tag }, status: "busy" }), []);
  assert.deepEqual(await c.threads.search({ metadata: { tag: crypto.randomUUID() } }), []);
  const one = await c.threads.search({ metadata: { tag }, limit: 1 });
  assert.equal(one.length, 1);
});

test("threads.delete removes the thread: get, getState and delete again are 404", async () => {
  const t = await c.threads.create();
  await c.runs.wait(t.thread_id, "loop", { input: { target: 1 } });
  assert.equal(await c.threads.delete(t.thread_id), undefined);
  await rejectsHttp(c.threads.get(t.thread_id), 404);
  await rejectsHttp(c.threads.getState(t.thread_id), 404);
  await rejectsHttp(c.threads.delete(t.thread_id), 404);
});

test("unknown threads are 404", async () => {
  const id = crypto.randomUUID();
  await rejectsHttp(c.threads.get(id), 404);
  await rejectsHttp(c.threads.update(id, { metadata: { a: 1 } }), 404);
  await rejectsHttp(c.threads.getState(id), 404);
  await rejectsHttp(c.threads.getHistory(id), 404);
});

test("threads.copy makes a new thread with the metadata and the whole history", async () => {
  const t = await c.threads.create({ metadata: { owner: "carol" } });
  await c.runs.wait(t.thread_id, "approval", { input: { topic: "Oslo" } });
  const copy = await c.threads.copy(t.thread_id);
  assert.match(copy.thread_id, UUID);
  assert.notEqual(copy.thread_id, t.thread_id);
  assert.equal(copy.metadata.owner, "carol");
  assert.equal(copy.metadata.thread_id, copy.thread_id);
  const [a, b] = await Promise.all([c.threads.getState(t.thread_id), c.threads.getState(copy.thread_id)]);
  assert.deepEqual(b.values, a.values);
  assert.deepEqual(b.next, a.next);
  assert.equal(b.checkpoint.checkpoint_id, a.checkpoint.checkpoint_id);
  assert.equal(b.checkpoint.thread_id, copy.thread_id);
  const [ha, hb] = await Promise.all([c.threads.getHistory(t.thread_id), c.threads.getHistory(copy.thread_id)]);
  assert.equal(hb.length, ha.length);
  // the copy goes on by itself: resuming it leaves the original paused
  const out = await c.runs.wait(copy.thread_id, "approval", { command: { resume: "yes" } });
  assert.ok(out.published.startsWith("PUBLISHED"));
  assert.deepEqual((await c.threads.getState(t.thread_id)).next, ["approve"]);
});

test("checkpoint metadata holds the assistant's and the thread's metadata and the run's configurable values, as the reference", async () => {
  const a = await c.assistants.create({ graphId: "loop", metadata: { am: 1 }, config: { configurable: { k: 1 } } });
  const t = await c.threads.create({ metadata: { tm: 1 } });
  await c.runs.wait(t.thread_id, a.assistant_id, { input: { target: 1 }, config: { configurable: { j: 2 } }, metadata: { rm: 3 } });
  const all = await c.threads.getHistory(t.thread_id);
  assert.ok(all.length > 0);
  for (const filter of [{ am: 1 }, { tm: 1 }, { k: 1 }, { j: 2 }, { rm: 3 }, { graph_id: "loop" }, { assistant_id: a.assistant_id }]) {
    const hits = await c.threads.getHistory(t.thread_id, { metadata: filter });
    assert.equal(hits.length, all.length, JSON.stringify(filter));
  }
  await c.assistants.delete(a.assistant_id);
});
