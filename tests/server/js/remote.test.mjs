// RemoteGraph (@langchain/langgraph/remote): a served graph used as if it were local.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RemoteGraph } from "@langchain/langgraph/remote";
import { Command, isGraphInterrupt } from "@langchain/langgraph";
import { client, collect } from "./harness.mjs";

const c = client();
const remote = (graphId) => new RemoteGraph({ graphId, client: c });
const thread = () => ({ configurable: { thread_id: crypto.randomUUID() } });

test("RemoteGraph invokes loop, without and with a thread", async () => {
  const loop = remote("loop");
  assert.deepEqual(await loop.invoke({ target: 3 }), { count: 3, target: 3 });
  const config = thread();
  assert.deepEqual(await loop.invoke({ target: 2 }, config), { count: 2, target: 2 });
  assert.deepEqual(await loop.invoke({ target: 4 }, config), { count: 4, target: 4 }, "the thread keeps its state");
  const state = await loop.getState(config);
  assert.deepEqual(state.values, { count: 4, target: 4 });
  assert.deepEqual(state.next, []);
  const history = [];
  for await (const s of loop.getStateHistory(config)) history.push(s.metadata.step);
  assert.deepEqual(history.slice(0, 3), [6, 5, 4]);
});

test("RemoteGraph streams loop in one mode and in several", async () => {
  const loop = remote("loop");
  assert.deepEqual(await collect(await loop.stream({ target: 2 }, { streamMode: "updates" })), [
    { increment: { count: 1 } },
    { increment: { count: 1 } },
  ]);
  assert.deepEqual(await collect(await loop.stream({ target: 2 }, { streamMode: "values" })), [
    { count: 0, target: 2 },
    { count: 1, target: 2 },
    { count: 2, target: 2 },
  ]);
  assert.deepEqual(await collect(await loop.stream({ target: 1 }, { streamMode: ["values", "updates"] })), [
    ["values", { count: 0, target: 1 }],
    ["updates", { increment: { count: 1 } }],
    ["values", { count: 1, target: 1 }],
  ]);
});

test("RemoteGraph on approval: invoke throws GraphInterrupt; Command resume finishes it", async () => {
  const approval = remote("approval");
  const config = thread();
  await assert.rejects(approval.invoke({ topic: "Oslo" }, config), (e) => {
    assert.ok(isGraphInterrupt(e), `GraphInterrupt, got ${e}`);
    assert.deepEqual(e.interrupts.map((i) => i.value), [{ question: "publish this draft?", draft: "Five things to do in Oslo" }]);
    return true;
  });
  const state = await approval.getState(config);
  assert.deepEqual(state.next, ["approve"]);
  assert.deepEqual(state.tasks[0].interrupts.map((i) => i.value), [
    { question: "publish this draft?", draft: "Five things to do in Oslo" },
  ]);
  const done = await approval.invoke(new Command({ resume: "yes" }), config);
  assert.deepEqual(done, {
    topic: "Oslo",
    draft: "Five things to do in Oslo",
    approved: true,
    published: "PUBLISHED: Five things to do in Oslo",
  });
});

test("RemoteGraph streams approval up to the interrupt, then resumes with a stream", async () => {
  const approval = remote("approval");
  const config = thread();
  const seen = [];
  await assert.rejects(async () => {
    for await (const chunk of await approval.stream({ topic: "Rome" }, { ...config, streamMode: "updates" })) seen.push(chunk);
  }, (e) => isGraphInterrupt(e));
  assert.deepEqual(seen, [{ draft: { draft: "Five things to do in Rome" } }]);
  const rest = await collect(await approval.stream(new Command({ resume: "no" }), { ...config, streamMode: "updates" }));
  assert.deepEqual(rest, [{ approve: { approved: false } }]);
  // updateState through RemoteGraph
  await approval.updateState(config, { approved: true }, "approve");
  assert.deepEqual((await approval.getState(config)).next, ["publish"]);
  const out = await approval.invoke(null, config);
  assert.equal(out.published, "PUBLISHED: Five things to do in Rome");
});
