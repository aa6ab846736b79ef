// Interrupts and state: thread status and interrupts, getState, getHistory, resume (value and
// interrupt-id map), updateState, forks from past checkpoints, interrupt_before/after.
import { test } from "node:test";
import assert from "node:assert/strict";
import { client, collect, rejectsHttp, runReaches, settledThread, REFERENCE } from "./harness.mjs";

const c = client();
const QUESTION = (topic) => ({ question: "publish this draft?", draft: `Five things to do in ${topic}` });

/** Starts approval on a new thread and waits for its interrupt. */
async function interrupted(topic = "Oslo") {
  const t = await c.threads.create();
  const out = await c.runs.wait(t.thread_id, "approval", { input: { topic } });
  return { threadId: t.thread_id, out };
}

const row = (s) => ({ step: s.metadata.step, source: s.metadata.source, next: s.next, tasks: s.tasks.map((t) => t.name) });

test("an interrupt: wait gives {__interrupt__} alone; thread interrupted with values and interrupts; run success", async () => {
  const { threadId, out } = await interrupted("Oslo");
  assert.deepEqual(Object.keys(out), ["__interrupt__"]);
  assert.equal(out.__interrupt__.length, 1);
  const [intr] = out.__interrupt__;
  assert.equal(typeof intr.id, "string");
  assert.deepEqual(intr, { id: intr.id, value: QUESTION("Oslo") });

  const thread = await settledThread(c, threadId);
  assert.equal(thread.status, "interrupted");
  assert.deepEqual(thread.values, { topic: "Oslo", draft: "Five things to do in Oslo" });
  const state = await c.threads.getState(threadId);
  assert.deepEqual(thread.interrupts, { [state.tasks[0].id]: [intr] }, "interrupts keyed by task id");

  assert.deepEqual(state.values, thread.values);
  assert.deepEqual(state.next, ["approve"]);
  assert.equal(state.tasks.length, 1);
  const task = state.tasks[0];
  assert.equal(task.name, "approve");
  assert.deepEqual(task.path, ["__pregel_pull", "approve"]);
  assert.deepEqual(task.interrupts, [intr]);
  assert.equal(task.error ?? null, null);
  assert.equal(task.result ?? null, null);
  assert.equal(task.checkpoint ?? null, null);
  assert.equal(state.metadata.step, 1);
  assert.equal(state.metadata.source, "loop");
  assert.equal(state.checkpoint.thread_id, threadId);
  assert.equal(state.checkpoint.checkpoint_ns, "");

  const runs = await c.runs.list(threadId);
  assert.deepEqual(runs.map((r) => r.status), ["success"], "a run that pauses on interrupt() ends success");
});

test("history of an interrupted then resumed run: order, sources, next, tasks, results, parent links", async () => {
  const { threadId, out } = await interrupted("Oslo");
  const intr = out.__interrupt__[0];
  let hist = await c.threads.getHistory(threadId);
  assert.deepEqual(hist.map(row), [
    { step: 1, source: "loop", next: ["approve"], tasks: ["approve"] },
    { step: 0, source: "loop", next: ["draft"], tasks: ["draft"] },
    { step: -1, source: "input", next: ["__start__"], tasks: ["__start__"] },
  ]);
  assert.deepEqual(hist[0].tasks[0].interrupts, [intr]);

  const done = await c.runs.wait(threadId, "approval", { command: { resume: "yes" } });
  const draft = "Five things to do in Oslo";
  assert.deepEqual(done, { topic: "Oslo", draft, approved: true, published: "PUBLISHED: " + draft });
  const thread = await settledThread(c, threadId);
  assert.equal(thread.status, "idle");
  assert.deepEqual(thread.values, done);
  assert.deepEqual(thread.interrupts ?? {}, {});

  hist = await c.threads.getHistory(threadId);
  assert.deepEqual(hist.map(row), [
    { step: 3, source: "loop", next: [], tasks: [] },
    { step: 2, source: "loop", next: ["publish"], tasks: ["publish"] },
    { step: 1, source: "loop", next: ["approve"], tasks: ["approve"] },
    { step: 0, source: "loop", next: ["draft"], tasks: ["draft"] },
    { step: -1, source: "input", next: ["__start__"], tasks: ["__start__"] },
  ]);
  assert.deepEqual(hist.map((s) => s.values), [
    done,
    { topic: "Oslo", draft, approved: true },
    { topic: "Oslo", draft },
    { topic: "Oslo" },
    {},
  ]);
  assert.deepEqual(hist.map((s) => s.tasks.map((t) => t.result)), [
    [],
    [{ published: "PUBLISHED: " + draft }],
    [{ approved: true }],
    [{ draft }],
    [{ topic: "Oslo" }],
  ]);
  assert.deepEqual(hist[2].tasks[0].interrupts, [intr], "the paused checkpoint keeps its interrupt after resume");
  for (let i = 0; i < hist.length; i++) {
    assert.equal(hist[i].checkpoint.thread_id, threadId);
    assert.equal(hist[i].checkpoint.checkpoint_ns, "");
    if (i + 1 < hist.length) {
      assert.deepEqual(hist[i].parent_checkpoint?.checkpoint_id, hist[i + 1].checkpoint.checkpoint_id, `parent of ${i}`);
      assert.ok(hist[i].checkpoint.checkpoint_id > hist[i + 1].checkpoint.checkpoint_id, "ids sort by creation");
    }
  }
  assert.equal(hist.at(-1).parent_checkpoint ?? null, null);
  const first = hist.at(-1).metadata.run_id;
  const second = (await c.runs.list(threadId)).map((r) => r.run_id).find((id) => id !== first);
  assert.deepEqual(hist.map((s) => s.metadata.run_id), [second, second, first, first, first],
    "checkpoints carry the run_id of the run that wrote them");

  // limit and before
  const two = await c.threads.getHistory(threadId, { limit: 2 });
  assert.deepEqual(two.map((s) => s.metadata.step), [3, 2]);
  const before = await c.threads.getHistory(threadId, { limit: 10, before: hist[2].checkpoint.checkpoint_id });
  assert.deepEqual(before.map((s) => s.metadata.step), [0, -1]);
  // metadata filter
  const inputs = await c.threads.getHistory(threadId, { metadata: { source: "input" } });
  assert.deepEqual(inputs.map((s) => s.metadata.step), [-1]);
});

test("getState at a past checkpoint (by id and by checkpoint object)", async () => {
  const { threadId } = await interrupted("Rome");
  await c.runs.wait(threadId, "approval", { command: { resume: "no" } });
  const hist = await c.threads.getHistory(threadId);
  const paused = hist.find((s) => s.metadata.step === 1);
  const byId = await c.threads.getState(threadId, paused.checkpoint.checkpoint_id);
  assert.deepEqual(byId.values, { topic: "Rome", draft: "Five things to do in Rome" });
  assert.deepEqual(byId.next, ["approve"]);
  assert.deepEqual(byId.checkpoint.checkpoint_id, paused.checkpoint.checkpoint_id);
  assert.deepEqual(byId.tasks[0].result, { approved: false });
  const byObj = await c.threads.getState(threadId, { checkpoint_id: paused.checkpoint.checkpoint_id, checkpoint_ns: "" });
  assert.deepEqual(byObj.values, byId.values);
  assert.deepEqual(byObj.checkpoint.checkpoint_id, paused.checkpoint.checkpoint_id);
});

test("resume with 'no': approve routes to END", async () => {
  const { threadId } = await interrupted("Rome");
  const out = await c.runs.wait(threadId, "approval", { command: { resume: "no" } });
  assert.deepEqual(out, { topic: "Rome", draft: "Five things to do in Rome", approved: false });
  assert.equal((await settledThread(c, threadId)).status, "idle");
});

test("resume by interrupt id map {<interrupt id>: value}", async () => {
  const { threadId, out } = await interrupted("Kyoto");
  const id = out.__interrupt__[0].id;
  const done = await c.runs.wait(threadId, "approval", { command: { resume: { [id]: "yes" } } });
  assert.equal(done.published, "PUBLISHED: Five things to do in Kyoto");
  assert.equal(done.approved, true);
});

test("resume through runs.create + join, and through a stream", async () => {
  const { threadId } = await interrupted("Nice");
  const run = await c.runs.create(threadId, "approval", { command: { resume: "yes" } });
  const done = await c.runs.join(threadId, run.run_id);
  assert.equal(done.published, "PUBLISHED: Five things to do in Nice");
});

test("new input on an interrupted thread starts over from the input; the old interrupt is dropped", async () => {
  const { threadId, out } = await interrupted("Oslo");
  const again = await c.runs.wait(threadId, "approval", { input: { topic: "Bergen" } });
  assert.deepEqual(again.__interrupt__.map((i) => i.value), [QUESTION("Bergen")]);
  assert.notEqual(again.__interrupt__[0].id, undefined);
  const thread = await settledThread(c, threadId);
  assert.equal(thread.status, "interrupted");
  assert.deepEqual(Object.values(thread.interrupts).flat().map((i) => i.value), [QUESTION("Bergen")]);
  assert.notDeepEqual(Object.values(thread.interrupts).flat(), out.__interrupt__);
});

test("updateState as_node approve skips the interrupt; next is publish; input null continues", async () => {
  const { threadId } = await interrupted("Rome");
  const before = await c.threads.getState(threadId);
  const res = await c.threads.updateState(threadId, { values: { approved: true }, asNode: "approve" });
  assert.deepEqual(Object.keys(res), ["checkpoint"]);
  assert.equal(res.checkpoint.thread_id, threadId);
  assert.equal(res.checkpoint.checkpoint_ns, "");
  assert.equal(typeof res.checkpoint.checkpoint_id, "string");
  const s = await c.threads.getState(threadId);
  assert.equal(s.checkpoint.checkpoint_id, res.checkpoint.checkpoint_id);
  assert.equal(s.parent_checkpoint.checkpoint_id, before.checkpoint.checkpoint_id);
  assert.deepEqual(s.values, { topic: "Rome", draft: "Five things to do in Rome", approved: true });
  assert.deepEqual(s.next, ["publish"]);
  assert.deepEqual(s.tasks.map((t) => [t.name, t.interrupts]), [["publish", []]]);
  assert.equal(s.metadata.source, "update");
  assert.equal(s.metadata.step, 2);
  assert.equal(s.metadata.graph_id, "approval"); // as the reference: history filters by graph find updates
  assert.deepEqual((await c.threads.get(threadId)).values, s.values, "thread.values follows the update");

  const done = await c.runs.wait(threadId, "approval", { input: null });
  assert.deepEqual(done, {
    topic: "Rome", draft: "Five things to do in Rome", approved: true, published: "PUBLISHED: Five things to do in Rome",
  });
  const hist = await c.threads.getHistory(threadId);
  assert.deepEqual(hist.map(row).slice(0, 2), [
    { step: 3, source: "loop", next: [], tasks: [] },
    { step: 2, source: "update", next: ["publish"], tasks: ["publish"] },
  ]);
  assert.equal((await settledThread(c, threadId)).status, "idle");
});

test("updateState goes through the reducers; as_node decides next from that node's edges", async () => {
  const t = await c.threads.create();
  await c.runs.wait(t.thread_id, "loop", { input: { target: 2 } });
  await c.threads.updateState(t.thread_id, { values: { count: 5 } });
  let s = await c.threads.getState(t.thread_id);
  assert.deepEqual(s.values, { count: 7, target: 2 }, "add reducer: 2 + 5");
  assert.deepEqual(s.next, []);
  assert.equal(s.metadata.source, "update");
  assert.equal(s.metadata.step, 3);
  await c.threads.updateState(t.thread_id, { values: { target: 10 }, asNode: "increment" });
  s = await c.threads.getState(t.thread_id);
  assert.deepEqual(s.values, { count: 7, target: 10 });
  assert.deepEqual(s.next, ["increment"], "increment's conditional edge: 7 < 10");
  assert.equal(s.metadata.step, 4);
  assert.deepEqual(await c.runs.wait(t.thread_id, "loop", { input: null }), { count: 10, target: 10 });
});

test("updateState while a run is in flight is 409", async () => {
  const t = await c.threads.create();
  const run = await c.runs.create(t.thread_id, "sleep", { input: { seconds: 1 } });
  await runReaches(c, t.thread_id, run.run_id, "running");
  await rejectsHttp(c.threads.updateState(t.thread_id, { values: { done: false } }), 409);
  await c.runs.join(t.thread_id, run.run_id);
});

test("fork: a run from a past checkpoint (checkpoint_id) branches off it; the old branch stays in history", async () => {
  const t = await c.threads.create();
  await c.runs.wait(t.thread_id, "loop", { input: { target: 3 } });
  const old = await c.threads.getHistory(t.thread_id);
  assert.deepEqual(old.map((s) => [s.metadata.step, s.values.count]), [[3, 3], [2, 2], [1, 1], [0, 0], [-1, 0]]);
  const at1 = old.find((s) => s.metadata.step === 1);

  // replay from step 1 with no input: the rest of the loop runs again on a new branch
  assert.deepEqual(await c.runs.wait(t.thread_id, "loop", { input: null, checkpointId: at1.checkpoint.checkpoint_id }), {
    count: 3, target: 3,
  });
  const hist = await c.threads.getHistory(t.thread_id, { limit: 100 });
  const oldIds = new Set(old.map((s) => s.checkpoint.checkpoint_id));
  const fresh = hist.filter((s) => !oldIds.has(s.checkpoint.checkpoint_id));
  assert.ok(fresh.length >= 2, "the fork wrote new checkpoints");
  assert.deepEqual(hist.slice(0, fresh.length), fresh, "newest first: the new branch comes first");
  assert.deepEqual(hist.slice(fresh.length).map((s) => s.checkpoint.checkpoint_id), old.map((s) => s.checkpoint.checkpoint_id));
  // the new branch hangs off the chosen checkpoint
  assert.equal(fresh.at(-1).parent_checkpoint.checkpoint_id, at1.checkpoint.checkpoint_id);
  for (let i = 0; i + 1 < fresh.length; i++)
    assert.equal(fresh[i].parent_checkpoint.checkpoint_id, fresh[i + 1].checkpoint.checkpoint_id);
  assert.deepEqual(fresh[0].values, { count: 3, target: 3 });
  assert.deepEqual(fresh[0].next, []);
  const state = await c.threads.getState(t.thread_id);
  assert.equal(state.checkpoint.checkpoint_id, fresh[0].checkpoint.checkpoint_id, "the thread follows the fork");

  // a fork with new input from step 0: the input is applied to that checkpoint's state
  const at0 = old.find((s) => s.metadata.step === 0);
  assert.deepEqual(await c.runs.wait(t.thread_id, "loop", { input: { target: 5 }, checkpointId: at0.checkpoint.checkpoint_id }), {
    count: 5, target: 5,
  });
  const hist2 = await c.threads.getHistory(t.thread_id, { limit: 100 });
  const known = new Set(hist.map((s) => s.checkpoint.checkpoint_id));
  const fresh2 = hist2.filter((s) => !known.has(s.checkpoint.checkpoint_id));
  assert.equal(fresh2.at(-1).parent_checkpoint.checkpoint_id, at0.checkpoint.checkpoint_id);
  assert.equal(fresh2.at(-1).metadata.source, "input");
  assert.equal(fresh2.at(-1).metadata.step, 1, "the input checkpoint is one step after the forked one");
  assert.deepEqual(fresh2.at(-1).values, { count: 0, target: 3 }, "an input checkpoint holds the state before the input");
});

test("after a fork, a run without checkpoint_id continues from the newest checkpoint", { skip: REFERENCE && "Ref keeps the fork's checkpoint_id in thread.config and starts every later run from it" }, async () => {
  const t = await c.threads.create();
  await c.runs.wait(t.thread_id, "loop", { input: { target: 2 } });
  const at1 = (await c.threads.getHistory(t.thread_id)).find((s) => s.metadata.step === 1);
  await c.runs.wait(t.thread_id, "loop", { input: null, checkpointId: at1.checkpoint.checkpoint_id });
  const head = await c.threads.getState(t.thread_id);
  assert.deepEqual(await c.runs.wait(t.thread_id, "loop", { input: { target: 4 } }), { count: 4, target: 4 });
  const hist = await c.threads.getHistory(t.thread_id, { limit: 100 });
  const input = hist.find((s) => s.metadata.source === "input" && s.metadata.step > 0);
  assert.equal(input.parent_checkpoint.checkpoint_id, head.checkpoint.checkpoint_id);
  assert.equal(input.metadata.step, head.metadata.step + 1);
});

test("fork an interrupted approval: a replay reuses the saved writes; a fork from before re-asks", async () => {
  const { threadId } = await interrupted("Oslo");
  const paused = await c.threads.getState(threadId);
  const draft = "Five things to do in Oslo";
  const yes = await c.runs.wait(threadId, "approval", { command: { resume: "yes" } });
  assert.equal(yes.approved, true);
  // approve already ran from the paused checkpoint: its writes are saved there and replayed,
  // so a different resume value does not change the outcome
  const again = await c.runs.wait(threadId, "approval", {
    command: { resume: "no" },
    checkpointId: paused.checkpoint.checkpoint_id,
  });
  assert.deepEqual(again, { topic: "Oslo", draft, approved: true, published: "PUBLISHED: " + draft });
  // from the checkpoint before draft, approve runs anew and asks again
  const hist = await c.threads.getHistory(threadId, { limit: 100 });
  const atDraft = hist.find((s) => s.metadata.step === 0 && s.metadata.source === "loop");
  const asked = await c.runs.wait(threadId, "approval", { input: null, checkpointId: atDraft.checkpoint.checkpoint_id });
  assert.deepEqual(asked.__interrupt__.map((i) => i.value), [QUESTION("Oslo")]);
  // (checkpoint_id given: Ref would otherwise start from the forked checkpoint again, see below)
  const head = await c.threads.getState(threadId);
  const no = await c.runs.wait(threadId, "approval", {
    command: { resume: "no" },
    checkpointId: head.checkpoint.checkpoint_id,
  });
  assert.deepEqual(no, { topic: "Oslo", draft, approved: false });
  assert.deepEqual((await c.threads.getState(threadId)).values, no);
});

test("interrupt_before: the run stops before the node with {__interrupt__: []}; input null continues", async () => {
  const t = await c.threads.create();
  const out = await c.runs.wait(t.thread_id, "loop", { input: { target: 2 }, interruptBefore: ["increment"] });
  assert.deepEqual(out, { __interrupt__: [] });
  const thread = await settledThread(c, t.thread_id);
  assert.equal(thread.status, "interrupted");
  assert.deepEqual(thread.values, { count: 0, target: 2 });
  const s = await c.threads.getState(t.thread_id);
  assert.deepEqual(s.next, ["increment"]);
  assert.deepEqual(s.tasks.map((x) => [x.name, x.interrupts]), [["increment", []]]);
  assert.equal(s.metadata.step, 0);
  assert.deepEqual(await c.runs.wait(t.thread_id, "loop", { input: null }), { count: 2, target: 2 });
  assert.equal((await settledThread(c, t.thread_id)).status, "idle");
});

test("interrupt_after: the run stops after the node; stream shows updates and values {__interrupt__: []}", async () => {
  const t = await c.threads.create();
  const events = await collect(
    c.runs.stream(t.thread_id, "loop", { input: { target: 3 }, interruptAfter: ["increment"], streamMode: ["values", "updates"] }),
  );
  assert.deepEqual(events.slice(1).map((e) => [e.event, e.data]), [
    ["values", { count: 0, target: 3 }],
    ["updates", { increment: { count: 1 } }],
    ["values", { count: 1, target: 3 }],
    ["updates", { __interrupt__: [] }],
    ["values", { __interrupt__: [] }],
  ]);
  const thread = await settledThread(c, t.thread_id);
  assert.equal(thread.status, "interrupted");
  // Ref leaves thread.values at the state before the node (count 0) after interrupt_after
  if (!REFERENCE) assert.deepEqual(thread.values, { count: 1, target: 3 });
  assert.deepEqual((await c.threads.getState(t.thread_id)).next, ["increment"]);
  // "*" interrupts after every node
  const next = await c.runs.wait(t.thread_id, "loop", { input: null, interruptAfter: "*" });
  assert.deepEqual(next, { __interrupt__: [] });
  assert.deepEqual((await c.threads.getState(t.thread_id)).values, { count: 2, target: 3 });
  assert.deepEqual(await c.runs.wait(t.thread_id, "loop", { input: null }), { count: 3, target: 3 });
});

test("interrupt_before on approval's publish after a yes", async () => {
  const { threadId } = await interrupted("Oslo");
  const out = await c.runs.wait(threadId, "approval", { command: { resume: "yes" }, interruptBefore: ["publish"] });
  assert.deepEqual(out, { __interrupt__: [] });
  const s = await c.threads.getState(threadId);
  assert.deepEqual(s.next, ["publish"]);
  assert.equal(s.values.approved, true);
  const done = await c.runs.wait(threadId, "approval", { input: null });
  assert.equal(done.published, "PUBLISHED: Five things to do in Oslo");
});
