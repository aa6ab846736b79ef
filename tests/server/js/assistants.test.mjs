// Assistants: the system assistant the server makes for each graph, found by graph id or UUID.
import { test } from "node:test";
import assert from "node:assert/strict";
import { client, rejectsHttp, REFERENCE, UUID } from "./harness.mjs";

const c = client();
const GRAPHS = ["approval", "loop", "hello", "join", "sleep", "fail"];

test("assistants.search by graph_id gives the system assistant of that graph", async () => {
  for (const g of GRAPHS) {
    const found = await c.assistants.search({ graphId: g });
    assert.equal(found.length, 1, `one assistant for ${g}`);
    const a = found[0];
    assert.match(a.assistant_id, UUID);
    assert.equal(a.graph_id, g);
    assert.equal(a.name, g);
    assert.equal(a.version, 1);
    assert.deepEqual(a.metadata, { created_by: "system" });
    assert.deepEqual(a.config, {});
    assert.equal(typeof a.created_at, "string");
    assert.equal(typeof a.updated_at, "string");
  }
});

test("assistants.search with no filter lists every graph; limit and metadata filter apply", async () => {
  const all = await c.assistants.search({ limit: 100 });
  const ids = all.map((a) => a.graph_id);
  for (const g of GRAPHS) assert.ok(ids.includes(g), `${g} listed`);
  const two = await c.assistants.search({ limit: 2 });
  assert.equal(two.length, 2);
  const system = await c.assistants.search({ metadata: { created_by: "system" }, limit: 100 });
  assert.equal(system.length, all.length);
  assert.deepEqual(await c.assistants.search({ metadata: { created_by: "nobody" } }), []);
});

test("assistants.get by graph id and by UUID give the same assistant", async () => {
  const byGraph = await c.assistants.get("loop");
  assert.equal(byGraph.graph_id, "loop");
  assert.match(byGraph.assistant_id, UUID);
  const byId = await c.assistants.get(byGraph.assistant_id);
  assert.deepEqual(byId, byGraph);
  const [searched] = await c.assistants.search({ graphId: "loop" });
  assert.equal(searched.assistant_id, byGraph.assistant_id);
});

test("the system assistant id is uuid5(graph_id, 6ba7b821-9dad-11d1-80b4-00c04fd430c8)", async () => {
  // Ref and LangGraph Platform derive it this way; clients may hard-code it.
  const { v5 } = await import("./uuid5.mjs");
  for (const g of GRAPHS) {
    const a = await c.assistants.get(g);
    assert.equal(a.assistant_id, v5(g, "6ba7b821-9dad-11d1-80b4-00c04fd430c8"), g);
  }
});

test("unknown assistants are 404", async () => {
  await rejectsHttp(c.assistants.get("no-such-graph"), 404);
  await rejectsHttp(c.assistants.get(crypto.randomUUID()), 404);
  assert.deepEqual(await c.assistants.search({ graphId: "no-such-graph" }), []);
});

test("a graph id names its system assistant for update, getVersions and setLatest; name search is a case-blind substring; a new assistant without a name is Untitled", async () => {
  const system = await c.assistants.get("join");
  const updated = await c.assistants.update("join", { metadata: { touched: true } });
  assert.equal(updated.assistant_id, system.assistant_id);
  assert.equal(updated.version, system.version + 1);
  const versions = await c.assistants.getVersions("join");
  assert.equal(versions[0].version, updated.version);
  const back = await c.assistants.setLatest("join", system.version);
  assert.equal(back.assistant_id, system.assistant_id);
  assert.equal(back.version, system.version);
  const unnamed = await c.assistants.create({ graphId: "join" });
  assert.equal(unnamed.name, "Untitled");
  const named = await c.assistants.create({ graphId: "join", name: "Case Blind Finder" });
  const hits = await c.assistants.search({ name: "blind find" });
  assert.ok(hits.some((x) => x.assistant_id === named.assistant_id));
  assert.ok(!hits.some((x) => x.assistant_id === unnamed.assistant_id));
  assert.ok((await c.assistants.count({ name: "BLIND" })) >= 1);
  for (const a of [unnamed, named]) await c.assistants.delete(a.assistant_id);
});

test("assistants.create, update (a new version each time), getVersions, setLatest, runs use its config, delete", async () => {
  const a = await c.assistants.create({
    graphId: "loop", name: "looper", config: { configurable: { k: 1 } }, metadata: { team: "a" },
  });
  assert.match(a.assistant_id, UUID);
  assert.equal(a.graph_id, "loop");
  assert.equal(a.name, "looper");
  assert.equal(a.version, 1);
  assert.deepEqual(a.metadata, { team: "a" });
  await rejectsHttp(c.assistants.create({ graphId: "loop", assistantId: a.assistant_id, ifExists: "raise" }), 409);
  const same = await c.assistants.create({ graphId: "loop", assistantId: a.assistant_id, ifExists: "do_nothing" });
  assert.equal(same.version, 1);
  const b = await c.assistants.update(a.assistant_id, { name: "looper 2", metadata: { owner: "x" } });
  assert.equal(b.version, 2);
  assert.equal(b.name, "looper 2");
  assert.deepEqual(b.metadata, { team: "a", owner: "x" }); // merged
  const versions = await c.assistants.getVersions(a.assistant_id);
  assert.deepEqual(versions.map((v) => v.version), [2, 1]);
  assert.deepEqual(versions.map((v) => v.name), ["looper 2", "looper"]);
  const back = await c.assistants.setLatest(a.assistant_id, 1);
  assert.equal(back.version, 1);
  assert.equal(back.name, "looper");
  assert.equal((await c.assistants.get(a.assistant_id)).name, "looper");
  // a run on it
  const t = await c.threads.create();
  const out = await c.runs.wait(t.thread_id, a.assistant_id, { input: { target: 2 } });
  assert.equal(out.count, 2);
  const found = await c.assistants.search({ graphId: "loop", metadata: { team: "a" } });
  assert.ok(found.some((x) => x.assistant_id === a.assistant_id));
  // The deleted assistant's id comes back in a list, as the reference answers.
  assert.deepEqual(await c.assistants.delete(a.assistant_id), [a.assistant_id]);
  await rejectsHttp(c.assistants.get(a.assistant_id), 404);
  // superstep refuses an assistant of a graph it does not serve (the reference accepts it, and
  // its runs fail later)
  if (!REFERENCE) await rejectsHttp(c.assistants.create({ graphId: "no-such-graph" }), 404);
});
