// runs.stream: event names, data shapes and order for every stream mode the graphs use.
import { test } from "node:test";
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { client, collect, dataOf, settledThread, REFERENCE, SERVER_URL, UUID } from "./harness.mjs";

const c = client();

// Found before any test is declared: node:test starts running tests while the module loads.
async function hasGraph(id) {
  try {
    await c.assistants.get(id);
    return true;
  } catch {
    return false;
  }
}

const refVersion = REFERENCE ? (await (await fetch(`${SERVER_URL}/info`)).json()).version : null;
const hasNested = await hasGraph("nested");
const nestedSkip = !hasNested
  ? "the server has no `nested` graph (optional, see README)"
  : refVersion === "2.0.0"
    ? "langgraph-api 2.0.0 fails stream_subgraphs with a TypeError (reference bug; passes on 1.5.1)"
    : false;

const QUESTIONS = (topic) => ["weather", "food", "transport"].map((a) => `${a} in ${topic}`);
const NOTES = (topic) => QUESTIONS(topic).map((q) => `notes on ${q}`);
const SUMMARY = (topic) => `${topic}: ` + NOTES(topic).map((n) => n + "; ").join("");

/** The values after each superstep of hello (input, plan, research x3, write). */
const HELLO_VALUES = (topic) => [
  { topic, notes: [], steps: 0 },
  { topic, notes: [], steps: 1 },
  { topic, notes: NOTES(topic), steps: 4 },
  { topic, notes: NOTES(topic), summary: SUMMARY(topic), steps: 5 },
];

const sortJson = (xs) => xs.map((x) => JSON.stringify(x)).sort();

function checkMetadataEvent(events) {
  assert.equal(events[0].event, "metadata", "the first event is metadata");
  assert.match(events[0].data.run_id, UUID);
  assert.ok(!events.slice(1).some((e) => e.event === "metadata"), "only one metadata event");
  assert.ok(!events.some((e) => e.event === "end" || e.event === "error"), "no end or error event");
}

test("stream ids are consecutive integers from 0 on thread-scoped streams; onRunCreated sees the run", async () => {
  const t = await c.threads.create();
  let created;
  const events = await collect(
    c.runs.stream(t.thread_id, "loop", { input: { target: 2 }, streamMode: "values", onRunCreated: (m) => (created = m) }),
  );
  checkMetadataEvent(events);
  assert.deepEqual(events.map((e) => e.id), events.map((_, i) => String(i)));
  assert.deepEqual(created, { run_id: events[0].data.run_id, thread_id: t.thread_id }, "Content-Location header");
  assert.deepEqual(dataOf(events, "values"), [{ count: 0, target: 2 }, { count: 1, target: 2 }, { count: 2, target: 2 }]);
});

test("the default stream mode is values", async () => {
  const t = await c.threads.create();
  const events = await collect(c.runs.stream(t.thread_id, "hello", { input: { topic: "Lima" } }));
  checkMetadataEvent(events);
  assert.deepEqual(events.slice(1).map((e) => e.event), ["values", "values", "values", "values"]);
  assert.deepEqual(dataOf(events, "values"), HELLO_VALUES("Lima"));
});

test("hello, values: state after the input and after each superstep", async () => {
  const t = await c.threads.create();
  const events = await collect(c.runs.stream(t.thread_id, "hello", { input: { topic: "Lisbon" }, streamMode: "values" }));
  checkMetadataEvent(events);
  assert.deepEqual(dataOf(events, "values"), HELLO_VALUES("Lisbon"));
  assert.equal(events.length, 5);
});

test("hello, updates: one event per task with the node's writes", async () => {
  const t = await c.threads.create();
  const events = await collect(c.runs.stream(t.thread_id, "hello", { input: { topic: "Lisbon" }, streamMode: ["updates"] }));
  checkMetadataEvent(events);
  const updates = dataOf(events, "updates");
  assert.equal(updates.length, 5);
  assert.deepEqual(updates[0], { plan: { steps: 1 } });
  // the three research tasks run in parallel: their order is not fixed
  assert.deepEqual(
    sortJson(updates.slice(1, 4)),
    sortJson(NOTES("Lisbon").map((n) => ({ research: { notes: [n], steps: 1 } }))),
  );
  assert.deepEqual(updates[4], { write: { summary: SUMMARY("Lisbon"), steps: 1 } });
});

test("hello, custom: what the nodes wrote to the stream writer", async () => {
  const t = await c.threads.create();
  const events = await collect(c.runs.stream(t.thread_id, "hello", { input: { topic: "Lisbon" }, streamMode: "custom" }));
  checkMetadataEvent(events);
  const custom = dataOf(events, "custom");
  assert.equal(events.length, 1 + 7);
  assert.deepEqual(custom[0], { plan: "splitting 'Lisbon' into 3 questions" });
  const rest = custom.slice(1);
  const expected = QUESTIONS("Lisbon").flatMap((q) => [{ research: q, status: "started" }, { research: q, status: "done" }]);
  assert.deepEqual(sortJson(rest), sortJson(expected));
  for (const q of QUESTIONS("Lisbon")) {
    const started = rest.findIndex((e) => e.research === q && e.status === "started");
    const done = rest.findIndex((e) => e.research === q && e.status === "done");
    assert.ok(started < done, `${q}: started before done`);
  }
  // the research nodes run concurrently: every one starts before the first one is done
  const firstDone = rest.findIndex((e) => e.status === "done");
  assert.equal(rest.slice(0, firstDone).filter((e) => e.status === "started").length, 3);
});

test("several modes at once: each mode's events as when asked alone, metadata first", async () => {
  const t = await c.threads.create();
  const events = await collect(
    c.runs.stream(t.thread_id, "hello", { input: { topic: "Porto" }, streamMode: ["values", "updates", "custom"] }),
  );
  checkMetadataEvent(events);
  assert.deepEqual(new Set(events.slice(1).map((e) => e.event)), new Set(["values", "updates", "custom"]));
  assert.deepEqual(dataOf(events, "values"), HELLO_VALUES("Porto"));
  assert.equal(dataOf(events, "updates").length, 5);
  assert.equal(dataOf(events, "custom").length, 7);
  const names = events.map((e) => `${e.event}:${JSON.stringify(e.data)}`);
  const at = (prefix) => names.findIndex((n) => n.startsWith(prefix));
  // a node's custom output comes before its update; an update comes before the values of its step
  assert.ok(at('custom:{"plan"') < at('updates:{"plan"'));
  // (found by value: key order is not part of the contract; superstep sends keys sorted)
  const step1 = events.findIndex((e) => e.event === "values" && isDeepStrictEqual(e.data, HELLO_VALUES("Porto")[1]));
  assert.ok(at('updates:{"plan"') < step1);
  assert.ok(at('updates:{"write"') < names.length - 1);
  assert.equal(events.at(-1).event, "values");
  assert.deepEqual(events.at(-1).data, HELLO_VALUES("Porto")[3]);
});

test("messages-tuple on a graph without chat models gives no messages events", async () => {
  const t = await c.threads.create();
  const events = await collect(
    c.runs.stream(t.thread_id, "loop", { input: { target: 1 }, streamMode: ["values", "messages-tuple"] }),
  );
  checkMetadataEvent(events);
  assert.deepEqual(events.slice(1).map((e) => e.event), ["values", "values"]);
});

test("approval, values + updates: the interrupt ends the stream as {__interrupt__: [{id, value}]}", async () => {
  const t = await c.threads.create();
  const events = await collect(
    c.runs.stream(t.thread_id, "approval", { input: { topic: "Oslo" }, streamMode: ["values", "updates"] }),
  );
  checkMetadataEvent(events);
  const rest = events.slice(1).map((e) => [e.event, e.data]);
  const interrupt = rest.at(-1)[1].__interrupt__;
  assert.ok(Array.isArray(interrupt) && interrupt.length === 1);
  assert.equal(typeof interrupt[0].id, "string");
  assert.ok(interrupt[0].id.length > 0);
  const value = { question: "publish this draft?", draft: "Five things to do in Oslo" };
  assert.deepEqual(interrupt[0], { id: interrupt[0].id, value });
  assert.deepEqual(rest, [
    ["values", { topic: "Oslo" }],
    ["updates", { draft: { draft: "Five things to do in Oslo" } }],
    ["values", { topic: "Oslo", draft: "Five things to do in Oslo" }],
    ["updates", { __interrupt__: interrupt }],
    ["values", { __interrupt__: interrupt }],
  ]);
});

test("approval resumed with command resume: first the paused state, then the rest", async () => {
  const t = await c.threads.create();
  await collect(c.runs.stream(t.thread_id, "approval", { input: { topic: "Oslo" } }));
  await settledThread(c, t.thread_id);
  const events = await collect(
    c.runs.stream(t.thread_id, "approval", { command: { resume: "yes" }, streamMode: ["values", "updates"] }),
  );
  checkMetadataEvent(events);
  const draft = "Five things to do in Oslo";
  assert.deepEqual(events.slice(1).map((e) => [e.event, e.data]), [
    ["values", { topic: "Oslo", draft }],
    ["updates", { approve: { approved: true } }],
    ["values", { topic: "Oslo", draft, approved: true }],
    ["updates", { publish: { published: "PUBLISHED: " + draft } }],
    ["values", { topic: "Oslo", draft, approved: true, published: "PUBLISHED: " + draft }],
  ]);
});

// ---- debug, tasks, checkpoints ----

/**
 * Checks a list of checkpoint payloads (debug type "checkpoint" or the checkpoints mode):
 * `expected` is [{step, source, values, next}] in order. Returns the payloads.
 */
function checkCheckpointPayloads(payloads, threadId, expected) {
  assert.deepEqual(
    payloads.map((p) => ({ step: p.metadata.step, source: p.metadata.source, values: p.values, next: p.next })),
    expected,
  );
  payloads.forEach((p, i) => {
    assert.equal(p.checkpoint.thread_id, threadId);
    assert.equal(p.checkpoint.checkpoint_ns, "");
    assert.equal(typeof p.checkpoint.checkpoint_id, "string");
    if (i > 0) {
      assert.equal(p.parent_checkpoint.checkpoint_id, payloads[i - 1].checkpoint.checkpoint_id, "parent link");
      assert.ok(p.checkpoint.checkpoint_id > payloads[i - 1].checkpoint.checkpoint_id, "checkpoint ids sort in creation order");
    }
    assert.deepEqual(p.tasks.map((t) => t.name), p.next, "one task per next entry");
    for (const task of p.tasks) {
      assert.equal(typeof task.id, "string");
      assert.deepEqual(task.interrupts, []);
      assert.equal(task.path[0], task.name === "research" ? "__pregel_push" : "__pregel_pull");
      if (task.path[0] === "__pregel_pull") assert.deepEqual(task.path, ["__pregel_pull", task.name]);
    }
  });
  return payloads;
}

test("hello, debug: checkpoint, task and task_result events with their payloads", async () => {
  const t = await c.threads.create();
  const events = await collect(c.runs.stream(t.thread_id, "hello", { input: { topic: "Oslo" }, streamMode: "debug" }));
  checkMetadataEvent(events);
  const debug = dataOf(events, "debug");
  assert.equal(debug.length, events.length - 1);
  for (const d of debug) {
    assert.ok(["checkpoint", "task", "task_result"].includes(d.type), d.type);
    assert.equal(typeof d.step, "number");
    assert.ok(!Number.isNaN(Date.parse(d.timestamp)), "timestamp is an ISO time");
  }
  // the order of groups: checkpoint of step s-1, then the tasks of step s, then their results
  const groups = debug.map((d) => `${d.type}@${d.step}`);
  const collapsed = groups.filter((g, i) => g !== groups[i - 1]);
  assert.deepEqual(collapsed, [
    "checkpoint@-1", "checkpoint@0",
    "task@1", "task_result@1", "checkpoint@1",
    "task@2", "task_result@2", "checkpoint@2",
    "task@3", "task_result@3", "checkpoint@3",
  ]);
  const v = HELLO_VALUES("Oslo");
  const cps = checkCheckpointPayloads(debug.filter((d) => d.type === "checkpoint").map((d) => d.payload), t.thread_id, [
    { step: -1, source: "input", values: { notes: [], steps: 0 }, next: ["__start__"] },
    { step: 0, source: "loop", values: v[0], next: ["plan"] },
    { step: 1, source: "loop", values: v[1], next: ["research", "research", "research"] },
    { step: 2, source: "loop", values: v[2], next: ["write"] },
    { step: 3, source: "loop", values: v[3], next: [] },
  ]);
  assert.equal(cps[0].parent_checkpoint, null);
  // task events: the tasks of the checkpoint before, with their input and triggers
  const tasks = debug.filter((d) => d.type === "task");
  const results = debug.filter((d) => d.type === "task_result");
  const pick = (p) => ({ id: p.id, name: p.name, input: p.input, triggers: p.triggers, interrupts: p.interrupts });
  assert.deepEqual(tasks.map((d) => pick(d.payload)), [
    { id: cps[1].tasks[0].id, name: "plan", input: v[0], triggers: ["branch:to:plan"], interrupts: [] },
    ...QUESTIONS("Oslo").map((q, i) => ({
      id: cps[2].tasks[i].id, name: "research", input: { question: q }, triggers: ["__pregel_push"], interrupts: [],
    })),
    { id: cps[3].tasks[0].id, name: "write", input: v[2], triggers: ["branch:to:write"], interrupts: [] },
  ]);
  const pickResult = (p) => ({ id: p.id, name: p.name, result: p.result, interrupts: p.interrupts, error: p.error ?? null });
  const researchResults = results.filter((d) => d.payload.name === "research").map((d) => pickResult(d.payload));
  assert.deepEqual(
    sortJson(researchResults),
    sortJson(QUESTIONS("Oslo").map((q, i) => ({
      id: cps[2].tasks[i].id, name: "research", result: { notes: [`notes on ${q}`], steps: 1 }, interrupts: [], error: null,
    }))),
  );
  assert.deepEqual(pickResult(results[0].payload), { id: cps[1].tasks[0].id, name: "plan", result: { steps: 1 }, interrupts: [], error: null });
  assert.deepEqual(pickResult(results.at(-1).payload), {
    id: cps[3].tasks[0].id, name: "write", result: { summary: SUMMARY("Oslo"), steps: 1 }, interrupts: [], error: null,
  });
});

test("hello, tasks and checkpoints modes carry the debug payloads", async () => {
  const t = await c.threads.create();
  const events = await collect(
    c.runs.stream(t.thread_id, "hello", { input: { topic: "Oslo" }, streamMode: ["debug", "tasks", "checkpoints"] }),
  );
  checkMetadataEvent(events);
  const debug = dataOf(events, "debug");
  const strip = (x) => JSON.parse(JSON.stringify(x, (k, val) => (k === "config" || k === "parent_config" ? undefined : val)));
  const fromDebug = strip(debug.filter((d) => d.type === "checkpoint").map((d) => d.payload));
  const checkpoints = strip(dataOf(events, "checkpoints"));
  // values, metadata and next always; langgraph-api 1.5.1 sends only those three, 2.0.0 (and
  // superstep) the whole payload: checkpoint, parent_checkpoint, tasks too.
  const core = ({ values, metadata, next }) => ({ values, metadata, next });
  assert.deepEqual(checkpoints.map(core), fromDebug.map(core));
  if (!REFERENCE) assert.deepEqual(checkpoints, fromDebug);
  assert.deepEqual(dataOf(events, "tasks"), debug.filter((d) => d.type !== "checkpoint").map((d) => d.payload));
  const tasks = dataOf(events, "tasks");
  assert.equal(tasks.filter((x) => "input" in x).length, 5, "5 task starts");
  assert.equal(tasks.filter((x) => "result" in x).length, 5, "5 task results");
  for (const x of tasks.filter((y) => "result" in y)) assert.ok(!("input" in x));
});

test("approval, debug and tasks: the interrupted task's result carries the interrupt; no checkpoint after it", async () => {
  const t = await c.threads.create();
  const events = await collect(
    c.runs.stream(t.thread_id, "approval", { input: { topic: "Oslo" }, streamMode: ["debug", "tasks", "checkpoints"] }),
  );
  checkMetadataEvent(events);
  const debug = dataOf(events, "debug");
  assert.deepEqual(debug.map((d) => `${d.type}@${d.step}`), [
    "checkpoint@-1", "checkpoint@0", "task@1", "task_result@1", "checkpoint@1", "task@2", "task_result@2",
  ]);
  const draft = "Five things to do in Oslo";
  checkCheckpointPayloads(debug.filter((d) => d.type === "checkpoint").map((d) => d.payload), t.thread_id, [
    { step: -1, source: "input", values: {}, next: ["__start__"] },
    { step: 0, source: "loop", values: { topic: "Oslo" }, next: ["draft"] },
    { step: 1, source: "loop", values: { topic: "Oslo", draft }, next: ["approve"] },
  ]);
  const last = debug.at(-1).payload;
  assert.equal(last.name, "approve");
  assert.equal(last.interrupts.length, 1);
  assert.deepEqual(last.interrupts[0].value, { question: "publish this draft?", draft });
  const tasks = dataOf(events, "tasks");
  assert.deepEqual(tasks.at(-1).interrupts, last.interrupts);
  assert.deepEqual(tasks.map((x) => [x.name, "result" in x]), [
    ["draft", false], ["draft", true], ["approve", false], ["approve", true],
  ]);
  assert.deepEqual(tasks[1].result, { draft });
  // the task ids are the ones getState shows
  const state = await c.threads.getState(t.thread_id);
  assert.equal(state.tasks[0].id, last.id);
  assert.deepEqual(state.tasks[0].interrupts, last.interrupts);
});

// ---- subgraphs ----

test("nested, stream_subgraphs: subgraph events are named <mode>|child:<task id>", { skip: nestedSkip }, async () => {
  const t = await c.threads.create();
  let events = await collect(
    c.runs.stream(t.thread_id, "nested", { input: { topic: "x" }, streamMode: ["values", "updates"], streamSubgraphs: true }),
  );
  checkMetadataEvent(events);
  // langgraph-api 1.5.1 adds "checkpoints" events nobody asked for with subgraphs on
  if (REFERENCE) events = events.filter((e) => !e.event.startsWith("checkpoints"));
  const ns = events.find((e) => e.event.includes("|"))?.event.split("|")[1];
  assert.match(ns ?? "", /^child:[0-9a-f-]{36}$/);
  assert.deepEqual(events.slice(1).map((e) => [e.event, e.data]), [
    ["values", { topic: "x", log: [] }],
    ["updates", { prepare: { log: ["prepare"] } }],
    ["values", { topic: "x", log: ["prepare"] }],
    [`values|${ns}`, { topic: "x", inner: [] }],
    [`updates|${ns}`, { one: { inner: ["one"] } }],
    [`values|${ns}`, { topic: "x", inner: ["one"] }],
    [`updates|${ns}`, { two: { inner: ["two"], topic: "x!" } }],
    [`values|${ns}`, { topic: "x!", inner: ["one", "two"] }],
    ["updates", { child: { topic: "x!" } }],
    ["values", { topic: "x!", log: ["prepare"] }],
    ["updates", { finish: { log: ["finish"] } }],
    ["values", { topic: "x!", log: ["prepare", "finish"] }],
  ]);
  // the namespace names the parent's task: history shows it as the task's checkpoint_ns
  const hist = await c.threads.getHistory(t.thread_id);
  const atChild = hist.find((s) => s.next[0] === "child");
  assert.equal(`child:${atChild.tasks[0].id}`, ns);
  assert.deepEqual(atChild.tasks[0].checkpoint, { thread_id: t.thread_id, checkpoint_ns: ns });
  assert.deepEqual(atChild.tasks[0].result, { topic: "x!" });
});

test("nested without stream_subgraphs: only the parent's events", { skip: !hasNested && "the server has no `nested` graph (optional, see README)" }, async () => {
  const t = await c.threads.create();
  const events = await collect(c.runs.stream(t.thread_id, "nested", { input: { topic: "x" }, streamMode: ["values", "updates"] }));
  checkMetadataEvent(events);
  assert.deepEqual(events.slice(1).map((e) => [e.event, e.data]), [
    ["values", { topic: "x", log: [] }],
    ["updates", { prepare: { log: ["prepare"] } }],
    ["values", { topic: "x", log: ["prepare"] }],
    ["updates", { child: { topic: "x!" } }],
    ["values", { topic: "x!", log: ["prepare"] }],
    ["updates", { finish: { log: ["finish"] } }],
    ["values", { topic: "x!", log: ["prepare", "finish"] }],
  ]);
});
