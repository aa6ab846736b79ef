// Background runs: create + join, joinStream (live and replayed), get/list/delete, cancel, and
// the multitask strategies on a busy thread.
import { test } from "node:test";
import assert from "node:assert/strict";
import { client, collect, rejectsHttp, runDone, runReaches, runReachesNode, settledThread, sleep, REFERENCE, UUID } from "./harness.mjs";

const c = client();

test("runs.create gives a pending run; the thread is busy; join gives the final values", async () => {
  const t = await c.threads.create();
  const loop = await c.assistants.get("loop");
  const run = await c.runs.create(t.thread_id, "loop", { input: { target: 3 }, metadata: { who: "test" } });
  assert.match(run.run_id, UUID);
  assert.equal(run.thread_id, t.thread_id);
  assert.equal(run.assistant_id, loop.assistant_id, "the graph id is resolved to the assistant's UUID");
  assert.equal(run.status, "pending", "answered as created, as the reference and API.md");
  assert.equal(run.multitask_strategy, "reject");
  assert.equal(run.metadata.who, "test");
  assert.equal(typeof run.created_at, "string");
  assert.equal(typeof run.updated_at, "string");
  assert.deepEqual(await c.runs.join(t.thread_id, run.run_id), { count: 3, target: 3 });
  const got = await c.runs.get(t.thread_id, run.run_id);
  assert.equal(got.status, "success");
  assert.equal(got.run_id, run.run_id);
  assert.equal(got.assistant_id, loop.assistant_id);
  assert.equal((await settledThread(c, t.thread_id)).status, "idle");
  // join of a finished run gives the same again
  assert.deepEqual(await c.runs.join(t.thread_id, run.run_id), { count: 3, target: 3 });
});

test("the thread is busy while a run is pending or running", async () => {
  const t = await c.threads.create();
  const run = await c.runs.create(t.thread_id, "sleep", { input: { seconds: 0.5 } });
  assert.equal((await c.threads.get(t.thread_id)).status, "busy");
  await runReaches(c, t.thread_id, run.run_id, "running");
  assert.equal((await c.threads.get(t.thread_id)).status, "busy");
  assert.deepEqual((await c.threads.search({ status: "busy", limit: 1000 })).filter((x) => x.thread_id === t.thread_id).length, 1);
  assert.deepEqual(await c.runs.join(t.thread_id, run.run_id), { seconds: 0.5, done: true });
  assert.equal((await settledThread(c, t.thread_id)).status, "idle");
});

test("runs.list: every run of the thread; limit, offset and status filter; runs.get 404s", async () => {
  const t = await c.threads.create();
  const ids = [];
  for (const target of [1, 2, 3]) {
    const r = await c.runs.create(t.thread_id, "loop", { input: { target }, multitaskStrategy: "enqueue" });
    ids.push(r.run_id);
  }
  await c.runs.join(t.thread_id, ids[2]);
  await runDone(c, t.thread_id, ids[2]);
  const all = await c.runs.list(t.thread_id);
  // Ref lists oldest first; LangGraph Platform (Python) newest first: the order is not pinned
  assert.deepEqual(all.map((r) => r.run_id).sort(), [...ids].sort());
  assert.ok(all.every((r) => r.status === "success" && r.thread_id === t.thread_id));
  const page1 = await c.runs.list(t.thread_id, { limit: 2 });
  assert.equal(page1.length, 2);
  assert.deepEqual(page1.map((r) => r.run_id), all.slice(0, 2).map((r) => r.run_id));
  // Ref slices runs[offset:limit] instead of runs[offset:offset+limit]
  if (!REFERENCE) {
    const page2 = await c.runs.list(t.thread_id, { limit: 2, offset: 2 });
    assert.equal(page2.length, 1);
    assert.deepEqual([...page1, ...page2].map((r) => r.run_id), all.map((r) => r.run_id));
  }
  assert.deepEqual((await c.runs.list(t.thread_id, { limit: 5, offset: 1 })).map((r) => r.run_id), all.slice(1).map((r) => r.run_id));
  assert.equal((await c.runs.list(t.thread_id, { status: "success" })).length, 3);
  assert.deepEqual(await c.runs.list(t.thread_id, { status: "error" }), []);
  await rejectsHttp(c.runs.get(t.thread_id, crypto.randomUUID()), 404);
  const other = await c.threads.create();
  await rejectsHttp(c.runs.get(other.thread_id, ids[0]), 404); // a run is found only on its own thread
});

test("runs.delete removes a finished run", async () => {
  const t = await c.threads.create();
  const run = await c.runs.create(t.thread_id, "loop", { input: { target: 1 } });
  await c.runs.join(t.thread_id, run.run_id);
  await runDone(c, t.thread_id, run.run_id);
  assert.equal(await c.runs.delete(t.thread_id, run.run_id), undefined);
  await rejectsHttp(c.runs.get(t.thread_id, run.run_id), 404);
  assert.deepEqual(await c.runs.list(t.thread_id), []);
  await rejectsHttp(c.runs.delete(t.thread_id, run.run_id), 404);
  // the run's checkpoints go with it (as with rollback)
  assert.deepEqual((await c.threads.getState(t.thread_id)).values, {});
  assert.deepEqual(await c.threads.getHistory(t.thread_id), []);
});

test("joinStream with lastEventId -1 replays a resumable run's events exactly; N replays those after N", async () => {
  const t = await c.threads.create();
  const live = await collect(
    c.runs.stream(t.thread_id, "hello", { input: { topic: "Kyoto" }, streamMode: ["values", "custom"], streamResumable: true }),
  );
  const runId = live[0].data.run_id;
  await runDone(c, t.thread_id, runId);
  assert.equal(live.length, 1 + 4 + 7);
  const replay = await collect(c.runs.joinStream(t.thread_id, runId, { lastEventId: "-1" }));
  assert.deepEqual(replay, live);
  assert.deepEqual(await collect(c.runs.joinStream(t.thread_id, runId, { lastEventId: "-1" })), live, "replays again");
  const tail = await collect(c.runs.joinStream(t.thread_id, runId, { lastEventId: "5" }));
  assert.deepEqual(tail, live.slice(6));
});

test("joinStream -1 on a resumable background run that is still going gives all its events", async () => {
  const t = await c.threads.create();
  const run = await c.runs.create(t.thread_id, "hello", {
    input: { topic: "Nara" },
    streamMode: ["values", "updates"],
    streamResumable: true,
  });
  const events = await collect(c.runs.joinStream(t.thread_id, run.run_id, { lastEventId: "-1" }));
  assert.deepEqual(events[0], { id: "0", event: "metadata", data: { run_id: run.run_id, attempt: 1 } });
  assert.deepEqual(events.map((e) => e.id), events.map((_, i) => String(i)));
  assert.equal(events.filter((e) => e.event === "values").length, 4);
  assert.equal(events.filter((e) => e.event === "updates").length, 5);
  assert.equal(events.at(-1).event, "values");
  assert.equal(events.at(-1).data.steps, 5);
});

test("joinStream on a live run (not resumable) follows it to the end", async () => {
  const t = await c.threads.create();
  const run = await c.runs.create(t.thread_id, "sleep", { input: { seconds: 0.6 }, streamMode: ["values", "updates"] });
  await runReaches(c, t.thread_id, run.run_id, "running");
  const events = await collect(c.runs.joinStream(t.thread_id, run.run_id));
  // what came before the join may be missing (Ref hands each event to one consumer only)
  assert.deepEqual(events.at(-1).event, "values");
  assert.deepEqual(events.at(-1).data, { seconds: 0.6, done: true });
  assert.deepEqual(
    events.filter((e) => e.event === "updates").map((e) => e.data),
    [{ sleep: { done: true } }],
  );
});

test("runs.cancel (interrupt, wait): the run ends interrupted and the thread is no longer busy", async () => {
  const t = await c.threads.create();
  const run = await c.runs.create(t.thread_id, "sleep", { input: { seconds: 5 } });
  await runReachesNode(c, t.thread_id, run.run_id, "sleep");
  const started = Date.now();
  assert.equal(await c.runs.cancel(t.thread_id, run.run_id, true), undefined);
  assert.ok(Date.now() - started < 4000, "cancel stops the sleeping node");
  const got = await c.runs.get(t.thread_id, run.run_id);
  // Ref reports "error" for a run cancelled while it executes (API.md §2.4)
  if (!REFERENCE) assert.equal(got.status, "interrupted");
  else assert.ok(["interrupted", "error"].includes(got.status), got.status);
  const thread = await settledThread(c, t.thread_id);
  assert.notEqual(thread.status, "busy");
  // the node never finished: its write is not in the state
  const s = await c.threads.getState(t.thread_id);
  assert.deepEqual(s.values, { seconds: 5 });
  assert.deepEqual(s.next, ["sleep"]);
  // the thread takes new runs
  assert.deepEqual(await c.runs.wait(t.thread_id, "sleep", { input: { seconds: 0 } }), { seconds: 0, done: true });
});

test("runs.cancel without wait answers at once; the run ends soon after", async () => {
  const t = await c.threads.create();
  const run = await c.runs.create(t.thread_id, "sleep", { input: { seconds: 5 } });
  await runReaches(c, t.thread_id, run.run_id, "running");
  assert.equal(await c.runs.cancel(t.thread_id, run.run_id), undefined);
  const done = await runDone(c, t.thread_id, run.run_id, 4000);
  if (!REFERENCE) assert.equal(done.status, "interrupted");
  await rejectsHttp(c.runs.cancel(t.thread_id, crypto.randomUUID()), 404);
});

test("cancelling a pending (enqueued) run: it ends interrupted and never runs", async () => {
  const t = await c.threads.create();
  const first = await c.runs.create(t.thread_id, "sleep", { input: { seconds: 0.6 } });
  const second = await c.runs.create(t.thread_id, "sleep", { input: { seconds: 0.1 }, multitaskStrategy: "enqueue" });
  assert.equal((await c.runs.get(t.thread_id, second.run_id)).status, "pending");
  await c.runs.cancel(t.thread_id, second.run_id);
  assert.equal((await runDone(c, t.thread_id, second.run_id)).status, "interrupted");
  assert.deepEqual(await c.runs.join(t.thread_id, first.run_id), { seconds: 0.6, done: true });
  await runDone(c, t.thread_id, first.run_id);
  const hist = await c.threads.getHistory(t.thread_id);
  assert.ok(hist.every((s) => s.metadata.run_id === first.run_id), "no checkpoint of the cancelled run");
});

test("multitask reject: a second run on a busy thread is refused (422 or 409)", async () => {
  const t = await c.threads.create();
  const run = await c.runs.create(t.thread_id, "sleep", { input: { seconds: 2 } }); // busy through the four refusals
  await rejectsHttp(c.runs.create(t.thread_id, "sleep", { input: { seconds: 0 }, multitaskStrategy: "reject" }), [409, 422]);
  await rejectsHttp(c.runs.create(t.thread_id, "sleep", { input: { seconds: 0 } }), [409, 422]); // the default
  await rejectsHttp(c.runs.wait(t.thread_id, "sleep", { input: { seconds: 0 } }), [409, 422]);
  await assert.rejects(collect(c.runs.stream(t.thread_id, "sleep", { input: { seconds: 0 } })), /^Error: HTTP (409|422)/);
  assert.deepEqual(await c.runs.join(t.thread_id, run.run_id), { seconds: 2, done: true });
  assert.equal((await c.runs.list(t.thread_id)).length, 1);
});

test("multitask enqueue: the second run starts after the first, from its final state", async () => {
  const t = await c.threads.create();
  const first = await c.runs.create(t.thread_id, "sleep", { input: { seconds: 0.4 } });
  const second = await c.runs.create(t.thread_id, "sleep", { input: { seconds: 0.1 }, multitaskStrategy: "enqueue" });
  assert.equal(second.multitask_strategy, "enqueue");
  assert.equal((await c.runs.get(t.thread_id, second.run_id)).status, "pending");
  assert.deepEqual(await c.runs.join(t.thread_id, second.run_id), { seconds: 0.1, done: true });
  const [a, b] = [await c.runs.get(t.thread_id, first.run_id), await c.runs.get(t.thread_id, second.run_id)];
  assert.equal(a.status, "success");
  assert.equal(b.status, "success");
  const hist = await c.threads.getHistory(t.thread_id);
  assert.deepEqual(hist.map((s) => [s.metadata.step, s.metadata.source, s.metadata.run_id]), [
    [4, "loop", second.run_id],
    [3, "loop", second.run_id],
    [2, "input", second.run_id],
    [1, "loop", first.run_id],
    [0, "loop", first.run_id],
    [-1, "input", first.run_id],
  ]);
  assert.deepEqual(hist[2].values, { seconds: 0.4, done: true }, "the second run's input checkpoint holds the first's result");
  assert.equal((await settledThread(c, t.thread_id)).status, "idle");
});

test("multitask interrupt: the running run is cancelled, the new one runs on its checkpoints", async () => {
  const t = await c.threads.create();
  const first = await c.runs.create(t.thread_id, "sleep", { input: { seconds: 5 } });
  await runReachesNode(c, t.thread_id, first.run_id, "sleep");
  const second = await c.runs.create(t.thread_id, "sleep", { input: { seconds: 0.1 }, multitaskStrategy: "interrupt" });
  assert.deepEqual(await c.runs.join(t.thread_id, second.run_id), { seconds: 0.1, done: true });
  const a = await runDone(c, t.thread_id, first.run_id);
  if (!REFERENCE) assert.equal(a.status, "interrupted");
  assert.equal((await c.runs.get(t.thread_id, second.run_id)).status, "success");
  const hist = await c.threads.getHistory(t.thread_id);
  assert.deepEqual(hist.map((s) => [s.metadata.step, s.metadata.source, s.metadata.run_id]), [
    [3, "loop", second.run_id],
    [2, "loop", second.run_id],
    [1, "input", second.run_id],
    [0, "loop", first.run_id],
    [-1, "input", first.run_id],
  ]);
});

test("multitask rollback: the running run is cancelled and deleted with its checkpoints", async () => {
  const t = await c.threads.create();
  const first = await c.runs.create(t.thread_id, "sleep", { input: { seconds: 5 } });
  await runReachesNode(c, t.thread_id, first.run_id, "sleep");
  const second = await c.runs.create(t.thread_id, "sleep", { input: { seconds: 0.1 }, multitaskStrategy: "rollback" });
  assert.deepEqual(await c.runs.join(t.thread_id, second.run_id), { seconds: 0.1, done: true });
  assert.equal((await c.runs.get(t.thread_id, second.run_id)).status, "success");
  const hist = await c.threads.getHistory(t.thread_id);
  if (REFERENCE) return; // Ref treats rollback like interrupt: the first run stays (status error) with its checkpoints
  await rejectsHttp(c.runs.get(t.thread_id, first.run_id), 404);
  assert.deepEqual((await c.runs.list(t.thread_id)).map((r) => r.run_id), [second.run_id]);
  assert.deepEqual(hist.map((s) => [s.metadata.step, s.metadata.source, s.metadata.run_id]), [
    [1, "loop", second.run_id],
    [0, "loop", second.run_id],
    [-1, "input", second.run_id],
  ]);
});

test("on_disconnect: cancel stops the run when the client goes away; the default lets it finish", async () => {
  for (const onDisconnect of ["cancel", undefined]) {
    const t = await c.threads.create();
    const abort = new AbortController();
    let runId;
    try {
      for await (const e of c.runs.stream(t.thread_id, "sleep", { input: { seconds: 1 }, onDisconnect, signal: abort.signal })) {
        if (e.event === "metadata") {
          runId = e.data.run_id;
          await runReachesNode(c, t.thread_id, runId, "sleep");
          abort.abort(); // the SDK closes the connection (it may end the iteration or throw)
        }
      }
    } catch {}
    assert.ok(runId, "got the metadata event");
    const run = await runDone(c, t.thread_id, runId);
    const values = (await c.threads.getState(t.thread_id)).values;
    if (onDisconnect === "cancel") {
      assert.notEqual(run.status, "success");
      if (!REFERENCE) assert.equal(run.status, "interrupted");
      assert.deepEqual(values, { seconds: 1 });
    } else {
      assert.equal(run.status, "success");
      assert.deepEqual(values, { seconds: 1, done: true });
    }
  }
});
