// runs.wait on each graph; stateless runs; if_not_exists; errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { client, collect, rejectsHttp, settledThread, REFERENCE, UUID } from "./harness.mjs";

const c = client();

const helloFinal = (topic) => {
  const notes = ["weather", "food", "transport"].map((a) => `notes on ${a} in ${topic}`);
  return { topic, notes, summary: `${topic}: ` + notes.map((n) => n + "; ").join(""), steps: 5 };
};

test("runs.wait on loop gives the final values; the thread is idle with those values", async () => {
  const t = await c.threads.create();
  const out = await c.runs.wait(t.thread_id, "loop", { input: { target: 3 } });
  assert.deepEqual(out, { count: 3, target: 3 });
  const thread = await settledThread(c, t.thread_id);
  assert.equal(thread.status, "idle");
  assert.deepEqual(thread.values, { count: 3, target: 3 });
  assert.deepEqual(thread.interrupts ?? {}, {});
  assert.equal(thread.metadata.graph_id, "loop", "the first run stamps graph_id on the thread");
  assert.match(thread.metadata.assistant_id, UUID);
  const s = await c.threads.getState(t.thread_id);
  assert.deepEqual(s.values, { count: 3, target: 3 });
  assert.deepEqual(s.next, []);
  assert.equal(s.metadata.step, 3);
  assert.equal(s.metadata.source, "loop");
});

test("a second run on the same thread continues from its state (reducers keep adding)", async () => {
  const t = await c.threads.create();
  assert.deepEqual(await c.runs.wait(t.thread_id, "loop", { input: { target: 2 } }), { count: 2, target: 2 });
  // count is 2 and target becomes 5: increment runs until count >= 5
  assert.deepEqual(await c.runs.wait(t.thread_id, "loop", { input: { target: 5 } }), { count: 5, target: 5 });
  // count 5 >= target 1 after one increment: count 6
  assert.deepEqual(await c.runs.wait(t.thread_id, "loop", { input: { target: 1 } }), { count: 6, target: 1 });
});

test("runs.wait on hello: Send fan-out, appended notes in Send order, summary", async () => {
  const t = await c.threads.create();
  assert.deepEqual(await c.runs.wait(t.thread_id, "hello", { input: { topic: "Lisbon" } }), helloFinal("Lisbon"));
});

test("runs.wait on join: merge waits for both branches", async () => {
  const t = await c.threads.create();
  const out = await c.runs.wait(t.thread_id, "join", { input: {} });
  // step 1: fetch_a, fetch_b (task order = node order); step 2: clean_b; step 3: merge
  assert.deepEqual(out, { trace: ["fetch_a", "fetch_b", "clean_b", "merge"] });
  const hist = await c.threads.getHistory(t.thread_id);
  assert.deepEqual(
    hist.map((s) => [s.metadata.step, s.next]),
    [[3, []], [2, ["merge"]], [1, ["clean_b"]], [0, ["fetch_a", "fetch_b"]], [-1, ["__start__"]]],
  );
});

test("runs.wait with assistant UUID instead of graph id", async () => {
  const a = await c.assistants.get("loop");
  const t = await c.threads.create();
  assert.deepEqual(await c.runs.wait(t.thread_id, a.assistant_id, { input: { target: 2 } }), { count: 2, target: 2 });
});

test("stateless runs.wait and runs.stream (thread_id null)", async () => {
  assert.deepEqual(await c.runs.wait(null, "loop", { input: { target: 4 } }), { count: 4, target: 4 });
  const events = await collect(c.runs.stream(null, "loop", { input: { target: 2 }, streamMode: "updates" }));
  assert.equal(events[0].event, "metadata");
  assert.match(events[0].data.run_id, UUID);
  assert.deepEqual(events.slice(1).map((e) => [e.event, e.data]), [
    ["updates", { increment: { count: 1 } }],
    ["updates", { increment: { count: 1 } }],
  ]);
  const values = await collect(c.runs.stream(null, "hello", { input: { topic: "Oslo" } }));
  assert.deepEqual(values.at(-1), { ...values.at(-1), event: "values", data: helloFinal("Oslo") });
});

test("if_not_exists create makes the thread; the default rejects an unknown thread", async () => {
  const id = crypto.randomUUID();
  assert.deepEqual(await c.runs.wait(id, "loop", { input: { target: 2 }, ifNotExists: "create" }), { count: 2, target: 2 });
  const thread = await settledThread(c, id);
  assert.equal(thread.thread_id, id);
  assert.equal(thread.status, "idle");
  assert.deepEqual(thread.values, { count: 2, target: 2 });
  // Without if_not_exists the thread must exist. Ref answers 422 ("Thread is already running a
  // task") for an unknown thread: a quirk; superstep answers 404.
  await rejectsHttp(c.runs.wait(crypto.randomUUID(), "loop", { input: { target: 1 } }), REFERENCE ? [404, 422] : 404);
  await rejectsHttp(c.runs.create(crypto.randomUUID(), "loop", { input: { target: 1 } }), REFERENCE ? [404, 422] : 404);
});

test("a run on an unknown assistant is 404 and leaves the thread idle", async () => {
  const t = await c.threads.create();
  await rejectsHttp(c.runs.wait(t.thread_id, "no-such-graph", { input: {} }), 404);
  await rejectsHttp(c.runs.create(t.thread_id, crypto.randomUUID(), { input: {} }), 404);
  await assert.rejects(collect(c.runs.stream(t.thread_id, "no-such-graph", { input: {} })), /^Error: HTTP 404/);
  await rejectsHttp(c.runs.wait(null, "no-such-graph", { input: {} }), 404);
  assert.equal((await c.threads.get(t.thread_id)).status, "idle");
  assert.deepEqual(await c.runs.list(t.thread_id), []);
});

test("a graph that throws: wait gives __error__ (SDK throws unless raiseError false), thread and run error", async () => {
  const t = await c.threads.create();
  await assert.rejects(c.runs.wait(t.thread_id, "fail", { input: { x: 1 } }), (e) => {
    // SDK: Error(`${error}: ${message}`)
    assert.match(e.message, /^Error: .*boom failed/);
    return true;
  });
  const t2 = await c.threads.create();
  const out = await c.runs.wait(t2.thread_id, "fail", { input: { x: 1 }, raiseError: false });
  assert.deepEqual(Object.keys(out), ["__error__"]);
  assert.equal(out.__error__.error, "Error");
  // Ref double-encodes: message is '{"error":"Error","message":"boom failed"}'; superstep should
  // give "boom failed". Both contain it.
  assert.match(out.__error__.message, /boom failed/);
  const thread = await settledThread(c, t2.thread_id);
  assert.equal(thread.status, "error");
  assert.deepEqual(thread.values, { x: 1 }, "the input step was checkpointed before boom ran");
  const runs = await c.runs.list(t2.thread_id);
  assert.deepEqual(runs.map((r) => r.status), ["error"]);
  // the thread is usable again
  const s = await c.threads.getState(t2.thread_id);
  assert.deepEqual(s.next, ["boom"], "the failed task is still pending");
});

test("a graph that throws while streaming: an error event, then the stream ends", async () => {
  const t = await c.threads.create();
  const events = await collect(c.runs.stream(t.thread_id, "fail", { input: { x: 1 } }));
  assert.deepEqual(events.map((e) => e.event), ["metadata", "values", "error"]);
  assert.deepEqual(events[1].data, { x: 1 });
  assert.deepEqual(events[2].data, { error: "Error", message: "boom failed" });
});

test("bad input is refused: either the request (4xx) or the run (error) fails", async () => {
  for (const input of ["a string", [1, 2], 42]) {
    const t = await c.threads.create();
    await assert.rejects(c.runs.wait(t.thread_id, "loop", { input }), (e) => {
      assert.match(e.message, /^(HTTP 4\d\d|\w*Error: )/, String(e.message));
      return true;
    });
  }
  // a malformed body field is a 4xx
  const t = await c.threads.create();
  await rejectsHttp(c.runs.wait(t.thread_id, "loop", { input: { target: 1 }, multitaskStrategy: "sometimes" }), [400, 422]);
  await rejectsHttp(c.runs.create(t.thread_id, "loop", { input: { target: 1 }, streamMode: ["values", "no-such-mode"] }), [400, 422]);
});

test("unknown body fields are ignored", async () => {
  const t = await c.threads.create();
  const out = await c.runs.wait(t.thread_id, "loop", {
    input: { target: 1 },
    durability: "async",
    checkpointDuring: true,
    config: { tags: ["x"], recursion_limit: 50 },
    metadata: { source_of_run: "test" },
  });
  assert.deepEqual(out, { count: 1, target: 1 });
});

test("recursion_limit is honoured: a loop past the limit fails the run with GraphRecursionError", async () => {
  const t = await c.threads.create();
  const out = await c.runs.wait(t.thread_id, "loop", {
    input: { target: 100 },
    config: { recursion_limit: 5 },
    raiseError: false,
  });
  // Ref's wait body always says error "Error" and puts the JSON of the real error in message.
  assert.match(`${out.__error__.error}: ${out.__error__.message}`, /GraphRecursionError/);
  assert.equal((await settledThread(c, t.thread_id)).status, "error");
  const t2 = await c.threads.create();
  const events = await collect(
    c.runs.stream(t2.thread_id, "loop", { input: { target: 100 }, config: { recursion_limit: 5 }, streamMode: "updates" }),
  );
  assert.deepEqual(events.map((e) => e.event), ["metadata", ...Array(5).fill("updates"), "error"]);
  assert.equal(events.at(-1).data.error, "GraphRecursionError");
  assert.match(events.at(-1).data.message, /Recursion limit of 5 reached/);
});
