// Crons (client.crons): create for a thread and stateless, search, count, update, delete, and
// the 4xx of bad crons. When they fire is tested in C++ (tests/server/cron_test.cpp) with a
// clock the test steps; here the SDK's every cron call meets the server. The reference JS
// server does not serve crons (500 "Not implemented", see README.md): skipped under REFERENCE.
import { test } from "node:test";
import assert from "node:assert/strict";
import { client, raw, rejectsHttp, sleep, REFERENCE, UUID } from "./harness.mjs";

const c = client();
const skip = REFERENCE && "the reference server does not implement crons";

/** The next instant after now on `schedule` "0 9 * * *" in UTC. */
function nextNineUtc() {
  const d = new Date();
  const next = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 9, 0, 0));
  if (next <= d) next.setUTCDate(next.getUTCDate() + 1);
  return next;
}

test("crons.createForThread: the cron, its payload and its next run date", { skip }, async () => {
  const t = await c.threads.create();
  const loop = await c.assistants.get("loop");
  const cron = await c.crons.createForThread(t.thread_id, "loop", {
    schedule: "0 9 * * *", input: { target: 2 }, metadata: { team: "ops" }, config: { tags: ["nightly"] },
  });
  assert.match(cron.cron_id, UUID);
  assert.equal(cron.thread_id, t.thread_id);
  assert.equal(cron.assistant_id, loop.assistant_id);
  assert.equal(cron.schedule, "0 9 * * *");
  assert.deepEqual(cron.payload.input, { target: 2 });
  assert.deepEqual(cron.payload.config, { tags: ["nightly"] });
  assert.deepEqual(cron.metadata, { team: "ops" });
  assert.equal(cron.enabled, true);
  assert.equal(cron.end_time, null);
  assert.equal(Date.parse(cron.next_run_date), nextNineUtc().getTime());
  assert.ok(!Number.isNaN(Date.parse(cron.created_at)) && !Number.isNaN(Date.parse(cron.updated_at)));
});

test("crons.create (stateless) keeps its on_run_completed; a time zone moves its next run", { skip }, async () => {
  const cron = await c.crons.create("hello", { schedule: "30 8 * * *", input: { topic: "x" }, onRunCompleted: "keep" });
  assert.equal(cron.thread_id, null);
  assert.equal(cron.on_run_completed, "keep");
  const dropped = await c.crons.create("hello", { schedule: "@hourly", input: { topic: "x" } });
  assert.equal(dropped.on_run_completed, "delete");
  assert.equal(new Date(dropped.next_run_date).getUTCMinutes(), 0);
  // `timezone` (LangGraph Platform's field, an IANA name; SDK 2.0's create does not send it):
  // 09:00 in Kolkata is 03:30 UTC.
  const res = await raw("POST", "/runs/crons", { assistant_id: "hello", schedule: "0 9 * * *", timezone: "Asia/Kolkata" });
  assert.equal(res.status, 200);
  const kolkata = await res.json();
  assert.equal(kolkata.timezone, "Asia/Kolkata");
  const next = new Date(kolkata.next_run_date);
  assert.deepEqual([next.getUTCHours(), next.getUTCMinutes()], [3, 30]);
  const bad = await raw("POST", "/runs/crons", { assistant_id: "hello", schedule: "@daily", timezone: "Mars/Olympus_Mons" });
  assert.equal(bad.status, 422);
  assert.match((await bad.json()).detail, /time zone 'Mars\/Olympus_Mons'/);
});

test("crons.search and crons.count filter by assistant and thread; select and paging", { skip }, async () => {
  const t = await c.threads.create();
  const a = await c.crons.createForThread(t.thread_id, "loop", { schedule: "0 1 * * *", input: { target: 1 } });
  await sleep(5); // created_at counts milliseconds: two crons made within one would sort either way
  const b = await c.crons.createForThread(t.thread_id, "join", { schedule: "0 2 * * *", input: {} });
  assert.equal(await c.crons.count({ threadId: t.thread_id }), 2);
  assert.equal(await c.crons.count({ threadId: t.thread_id, assistantId: "loop" }), 1);
  const found = await c.crons.search({ threadId: t.thread_id, sortBy: "created_at", sortOrder: "asc" });
  assert.deepEqual(found.map((x) => x.cron_id), [a.cron_id, b.cron_id]);
  const byAssistant = await c.crons.search({ assistantId: "join", threadId: t.thread_id });
  assert.deepEqual(byAssistant.map((x) => x.cron_id), [b.cron_id]);
  const picked = await c.crons.search({ threadId: t.thread_id, select: ["cron_id", "schedule"], limit: 1, offset: 1,
                                        sortBy: "created_at", sortOrder: "asc" });
  assert.deepEqual(picked, [{ cron_id: b.cron_id, schedule: "0 2 * * *" }]);
});

test("crons.update changes the schedule, payload and enabled; crons.delete; deleting the thread deletes its crons", { skip }, async () => {
  const t = await c.threads.create();
  const cron = await c.crons.createForThread(t.thread_id, "loop", { schedule: "0 9 * * *", input: { target: 1 } });
  const off = await c.crons.update(cron.cron_id, { enabled: false });
  assert.equal(off.enabled, false);
  assert.equal(off.next_run_date, null);
  const on = await c.crons.update(cron.cron_id, { enabled: true, schedule: "15 * * * *", input: { target: 5 }, metadata: { v: 2 } });
  assert.equal(on.schedule, "15 * * * *");
  assert.equal(new Date(on.next_run_date).getUTCMinutes(), 15);
  assert.deepEqual(on.payload.input, { target: 5 });
  assert.equal(on.metadata.v, 2);
  const ended = await c.crons.update(cron.cron_id, { endTime: "2000-01-01T00:00:00Z" });
  assert.equal(ended.next_run_date, null, "past its end time: it never fires again");
  await c.crons.delete(cron.cron_id);
  await rejectsHttp(c.crons.delete(cron.cron_id), 404);
  await rejectsHttp(c.crons.update(cron.cron_id, { enabled: true }), 404);

  const other = await c.crons.createForThread(t.thread_id, "loop", { schedule: "@daily", input: { target: 1 } });
  await c.threads.delete(t.thread_id);
  await rejectsHttp(c.crons.delete(other.cron_id), 404);
});

test("bad crons get a 4xx naming the problem", { skip }, async () => {
  const t = await c.threads.create();
  await rejectsHttp(c.crons.createForThread(t.thread_id, "loop", { schedule: "61 * * * *" }), 422);
  await assert.rejects(c.crons.createForThread(t.thread_id, "loop", { schedule: "* * *" }), /needs 5/);
  await rejectsHttp(c.crons.createForThread(t.thread_id, "loop", {}), 422);
  await rejectsHttp(c.crons.createForThread(t.thread_id, "no-such-graph", { schedule: "@daily" }), 404);
  await rejectsHttp(c.crons.createForThread(crypto.randomUUID(), "loop", { schedule: "@daily" }), 404);
  await rejectsHttp(c.crons.create("loop", { schedule: "@daily", onRunCompleted: "archive" }), 422);
});
