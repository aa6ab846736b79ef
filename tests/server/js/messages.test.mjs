// The messages stream modes with a real chat model graph: `agent`, the ReAct agent (state
// `messages`, nodes `agent` and `tools`, no tools) that `superstep serve` registers when
// OPENAI_BASE_URL and SUPERSTEP_MODEL are set.
//
// With SUPERSTEP_BIN the harness starts superstep-openai-test-server (SUPERSTEP_OPENAI_TEST_SERVER,
// set by `run`) and a second `superstep serve` pointed at it. Without a script the test server
// answers "echo: <last message>", streamed in 4-character pieces, so each test knows its reply
// whatever order the tests run in. With SUPERSTEP_URL the server's own `agent` is used, if it has
// one, and only reply-independent assertions are made. Skipped under REFERENCE=1 (ref-server has no
// chat model graph; /work/scratch/ref-agent has one, see README) and when there is no test server
// or no `agent`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { API_KEY, OPENAI_TEST_SERVER, REFERENCE, SERVER_URL, collect, dataOf, openaiTestServer, sdk, startWithEnv, UUID } from "./harness.mjs";

// Found before any test is declared: node:test starts running tests while the module loads.
const setup = await (async () => {
  if (REFERENCE) return { skip: "REFERENCE=1: ref-server has no chat model graph (check a reference with an `agent` via SUPERSTEP_URL, see README)" };
  let url = SERVER_URL;
  let echo = false;
  if (process.env.SUPERSTEP_BIN) {
    if (!OPENAI_TEST_SERVER) return { skip: "no superstep-openai-test-server (set SUPERSTEP_OPENAI_TEST_SERVER; `run` finds it next to SUPERSTEP_BIN)" };
    url = await startWithEnv(await openaiTestServer());
    echo = true;
  }
  const c = new sdk.Client({ apiUrl: url, apiKey: API_KEY });
  try {
    await c.assistants.get("agent");
  } catch {
    return { skip: `the server at ${url} has no \`agent\` graph (it needs OPENAI_BASE_URL and SUPERSTEP_MODEL)` };
  }
  return { c, echo, skip: false };
})();
const { c, skip } = setup;
/** The reply the model gives to `text`, when the test server is ours (else null: unknown). */
const replyTo = (text) => (setup.echo ? `echo: ${text}` : null);

const userTurn = (content) => ({ messages: [{ role: "user", content }] });
const AI_CHUNK_TYPES = ["AIMessageChunk", "ai"]; // Python's chunk type, and JS's (its chunks say "ai")

/** Checks a streamed message chunk dict and its metadata from a `messages` (messages-tuple) event. */
function checkTuple(data) {
  assert.ok(Array.isArray(data) && data.length === 2, `[chunk, metadata], got ${JSON.stringify(data)}`);
  const [chunk, meta] = data;
  assert.ok(AI_CHUNK_TYPES.includes(chunk.type), `chunk type ${chunk.type}`);
  assert.equal(typeof chunk.content, "string");
  assert.equal(typeof chunk.id, "string");
  assert.ok(chunk.id.length > 0);
  assert.equal(meta.langgraph_node, "agent");
  assert.equal(typeof meta.langgraph_step, "number");
  assert.ok(Array.isArray(meta.langgraph_triggers) && meta.langgraph_triggers.length > 0, "langgraph_triggers");
  assert.deepEqual(meta.langgraph_path, ["__pregel_pull", "agent"]);
  assert.match(meta.langgraph_checkpoint_ns, /^agent:./, "the agent task's namespace, agent:<task id>");
  return [chunk, meta];
}

/** Checks a message dict in state values (LangChain dict form). */
function checkMessage(m, type, content) {
  assert.equal(m.type, type, JSON.stringify(m));
  if (content !== null) assert.equal(m.content, content);
  else assert.equal(typeof m.content, "string");
  assert.equal(typeof m.id, "string");
  assert.ok(m.id.length > 0, "a message id");
}

test("messages-tuple + values: AI chunks with node metadata, then the human and AI messages in values", { skip }, async () => {
  const t = await c.threads.create();
  const text = "hi, tell me about Lisbon";
  const events = await collect(c.runs.stream(t.thread_id, "agent", { input: userTurn(text), streamMode: ["messages-tuple", "values"] }));
  assert.equal(events[0].event, "metadata");
  assert.match(events[0].data.run_id, UUID);
  assert.deepEqual([...new Set(events.slice(1).map((e) => e.event))].sort(), ["messages", "values"], "only messages and values events");

  const tuples = dataOf(events, "messages").map(checkTuple);
  assert.ok(tuples.length >= 1, "at least one messages event");
  const ids = new Set(tuples.map(([chunk]) => chunk.id));
  assert.equal(ids.size, 1, "every chunk of the one AI message has its id");
  const [id] = ids;
  const streamed = tuples.map(([chunk]) => chunk.content).join("");
  const reply = replyTo(text);
  if (reply !== null) {
    assert.equal(streamed, reply, "the chunks' contents concatenate to the model's reply");
    assert.ok(tuples.length > 1, "the reply arrived in several pieces");
  }
  assert.ok(new Set(tuples.map(([, meta]) => meta.langgraph_step)).size === 1, "one step");
  assert.equal(new Set(tuples.map(([, meta]) => meta.langgraph_checkpoint_ns)).size, 1, "one task");

  // values: the input, then the state after the agent; the chunks come in between
  const kinds = events.slice(1).map((e) => e.event);
  assert.equal(kinds[0], "values", "the input values come first");
  assert.equal(kinds.at(-1), "values", "the final values come last");
  assert.ok(kinds.indexOf("messages") > 0 && kinds.lastIndexOf("messages") < kinds.length - 1);
  const values = dataOf(events, "values");
  assert.equal(values.length, 2);
  assert.equal(values[0].messages.length, 1);
  checkMessage(values[0].messages[0], "human", text);
  const final = values.at(-1).messages;
  assert.equal(final.length, 2);
  checkMessage(final[0], "human", text);
  assert.equal(final[0].id, values[0].messages[0].id, "the human message keeps its id");
  checkMessage(final[1], "ai", streamed);
  assert.equal(final[1].id, id, "the stored AI message has the streamed chunks' id (useStream merges them by id)");
  assert.deepEqual((await c.threads.get(t.thread_id)).values, values.at(-1));
});

test("messages-tuple on a second turn: only the new AI message streams; the thread keeps all four messages", { skip }, async () => {
  const t = await c.threads.create();
  const first = await c.runs.wait(t.thread_id, "agent", { input: userTurn("first question") });
  assert.equal(first.messages.length, 2);
  const events = await collect(c.runs.stream(t.thread_id, "agent", { input: userTurn("second question"), streamMode: ["messages-tuple", "values"] }));
  const tuples = dataOf(events, "messages").map(checkTuple);
  assert.ok(tuples.length >= 1);
  const ids = new Set(tuples.map(([chunk]) => chunk.id));
  assert.equal(ids.size, 1);
  assert.ok(!ids.has(first.messages[1].id), "a new AI message id");
  const final = dataOf(events, "values").at(-1).messages;
  assert.deepEqual(final.map((m) => m.type), ["human", "ai", "human", "ai"]);
  assert.deepEqual(final.slice(0, 2), first.messages, "the first turn is kept as it was");
  checkMessage(final[2], "human", "second question");
  checkMessage(final[3], "ai", replyTo("second question"));
  assert.equal(final[3].content, tuples.map(([chunk]) => chunk.content).join(""));
  assert.equal(final[3].id, [...ids][0]);
  assert.ok(tuples[0][1].langgraph_step > 1, `a later step than the first turn's (got ${tuples[0][1].langgraph_step})`);
});

// API.md: the metadata also carries tags, thread_id, run_id, ... (LangGraph puts the run's
// configurable values into the metadata, and its StreamMessagesHandler adds tags and name).
test(
  "messages-tuple metadata carries the run's thread_id and run_id, and tags",
  { skip },
  async () => {
    const t = await c.threads.create();
    const events = await collect(c.runs.stream(t.thread_id, "agent", { input: userTurn("metadata please"), streamMode: ["messages-tuple"] }));
    const runId = events[0].data.run_id;
    const tuples = dataOf(events, "messages").map(checkTuple);
    assert.ok(tuples.length >= 1);
    for (const [, meta] of tuples) {
      assert.equal(meta.thread_id, t.thread_id, `metadata ${JSON.stringify(meta)}`);
      assert.equal(meta.run_id, runId);
      assert.ok(Array.isArray(meta.tags), "tags");
    }
  },
);

const LEGACY_EVENTS = ["messages/metadata", "messages/partial", "messages/complete"];

/** The data of a messages/partial or messages/complete event: a list of message dicts. */
function checkMessageList(data) {
  assert.ok(Array.isArray(data) && data.length >= 1, `a list of messages, got ${JSON.stringify(data)}`);
  for (const m of data) {
    assert.equal(typeof m, "object");
    assert.equal(typeof m.type, "string");
    assert.equal(typeof m.content, "string");
    assert.equal(typeof m.id, "string");
  }
}

test("legacy messages mode: only messages/* events, with lists of message dicts", { skip }, async () => {
  const t = await c.threads.create();
  const events = await collect(c.runs.stream(t.thread_id, "agent", { input: userTurn("legacy mode"), streamMode: "messages" }));
  assert.equal(events[0].event, "metadata");
  const rest = events.slice(1);
  for (const e of rest) assert.ok(LEGACY_EVENTS.includes(e.event), `unexpected event ${e.event}`);
  assert.ok(rest.some((e) => e.event === "messages/partial"), "the streamed reply gives messages/partial events");
  for (const e of rest) {
    if (e.event === "messages/metadata") assert.equal(typeof e.data, "object");
    else checkMessageList(e.data);
  }
  // the run itself is unaffected by the mode
  const state = await c.threads.getState(t.thread_id);
  assert.deepEqual(state.values.messages.map((m) => m.type), ["human", "ai"]);
});

// What @langchain/langgraph-api (stream.mts, streamState) sends for stream_mode "messages": it
// streams with the library's `values` mode underneath and
//  - on every values chunk, sends `messages/complete` [the messages whose ids it has not completed
//    yet]: the human input from the first values event, the AI message from the agent's values;
//  - on a chat model's first chunk of a message id, `messages/metadata` {<id>: {metadata}};
//  - on every chunk, `messages/partial` [the message accumulated so far] (chunk.concat(next)),
//    so the contents grow and the last partial holds the whole reply.
test(
  "legacy messages mode as LangGraph sends it: metadata first, accumulated partials, complete messages",
  { skip },
  async () => {
    const t = await c.threads.create();
    const text = "legacy mode, in full";
    const events = await collect(c.runs.stream(t.thread_id, "agent", { input: userTurn(text), streamMode: "messages" }));
    const rest = events.slice(1);
    const state = await c.threads.getState(t.thread_id);
    const [human, ai] = state.values.messages;

    const partials = dataOf(rest, "messages/partial");
    assert.ok(partials.length >= 2, "several partials");
    for (const p of partials) {
      checkMessageList(p);
      assert.equal(p.length, 1);
      assert.equal(p[0].id, ai.id);
    }
    const contents = partials.map((p) => p[0].content);
    contents.forEach((s, i) => i > 0 && assert.ok(s.startsWith(contents[i - 1]) && s.length > contents[i - 1].length, `partial ${i} accumulates: ${JSON.stringify(contents)}`));
    assert.equal(contents.at(-1), ai.content, "the last partial holds the whole reply");
    if (replyTo(text) !== null) assert.equal(ai.content, replyTo(text));

    const firstPartial = rest.findIndex((e) => e.event === "messages/partial");
    const metaIdx = rest.findIndex((e) => e.event === "messages/metadata");
    assert.ok(metaIdx >= 0 && metaIdx < firstPartial, "messages/metadata comes before the first partial");
    const meta = rest[metaIdx].data;
    assert.deepEqual(Object.keys(meta), [ai.id]);
    assert.equal(meta[ai.id].metadata.langgraph_node, "agent");
    assert.equal(dataOf(rest, "messages/metadata").length, 1, "one metadata event per message id");

    const completed = dataOf(rest, "messages/complete");
    completed.forEach(checkMessageList);
    const completedIds = completed.flat().map((m) => m.id);
    assert.deepEqual(completedIds.sort(), [human.id, ai.id].sort(), "each message of the state completed once");
    const completeAi = completed.flat().find((m) => m.id === ai.id);
    assert.equal(completeAi.content, ai.content);
    const humanIdx = rest.findIndex((e) => e.event === "messages/complete" && e.data.some((m) => m.id === human.id));
    assert.ok(humanIdx < firstPartial, "the input message completes before the model streams");
  },
);

// A streamed tool call in the legacy mode, as the reference server sends it: it concatenates
// the chunks with LangChain's AIMessageChunk.concat, so the pieces of one call merge into one
// tool-call chunk (their argument texts joined) and `tool_calls` is read from them as partial
// JSON at every step (`{"q": "wea` reads {q: "wea"}), ending with the whole arguments.
// (The served agent has no tools: the call is answered `Tool "lookup" not found.`, then the
// model's echo ends the run.)
const toolSetup = await (async () => {
  if (skip || !setup.echo) return { skip: skip || "needs the test server (SUPERSTEP_BIN)" };
  const dir = mkdtempSync(join(tmpdir(), "superstep-msgs-"));
  const script = join(dir, "replies.json");
  writeFileSync(script, JSON.stringify([{ tool_calls: [{ id: "call_lookup_1", name: "lookup", args: { q: "weather in Paris", days: 3 } }] }]));
  const url = await startWithEnv(await openaiTestServer(["--script", script]));
  return { skip: false, c2: new sdk.Client({ apiUrl: url, apiKey: API_KEY }) };
})();

test("legacy messages mode merges a streamed tool call's pieces as LangChain's concat does", { skip: toolSetup.skip }, async () => {
  const { c2 } = toolSetup;
  const t = await c2.threads.create();
  const events = await collect(c2.runs.stream(t.thread_id, "agent", { input: userTurn("call a tool"), streamMode: "messages" }));
  const state = await c2.threads.getState(t.thread_id);
  const caller = state.values.messages[1];
  assert.equal(caller.type, "ai");
  assert.deepEqual(caller.tool_calls.map((tc) => [tc.name, tc.args]), [["lookup", { q: "weather in Paris", days: 3 }]]);
  const partials = dataOf(events, "messages/partial").map((p) => p[0]).filter((m) => m.id === caller.id);
  assert.ok(partials.length >= 3, `the call's arguments came in pieces: ${partials.length} partials`);
  for (const m of partials) {
    assert.equal(m.tool_call_chunks.length, 1, `one merged piece per call: ${JSON.stringify(m.tool_call_chunks)}`);
    assert.equal(m.tool_call_chunks[0].id, "call_lookup_1");
    assert.equal(m.tool_call_chunks[0].name, "lookup");
    assert.equal(m.tool_calls.length + m.invalid_tool_calls.length, 1);
  }
  const args = partials.map((m) => m.tool_call_chunks[0].args);
  args.forEach((a, i) => i > 0 && assert.ok(a.startsWith(args[i - 1]), `the argument text grows: ${JSON.stringify(args)}`));
  const last = partials.at(-1);
  assert.deepEqual(JSON.parse(last.tool_call_chunks[0].args), { q: "weather in Paris", days: 3 });
  assert.deepEqual(last.tool_calls, [{ name: "lookup", args: { q: "weather in Paris", days: 3 }, id: "call_lookup_1", type: "tool_call" }]);
  // Cut-off arguments read as partial JSON: a partial whose text ends inside the query string
  // has the query so far.
  assert.ok(partials.some((m) => /"q": ?"[^"]+$/.test(m.tool_call_chunks[0].args)), `a partial ends inside the query: ${JSON.stringify(args)}`);
  const cut = partials.find((m) => /"q": ?"[^"]+$/.test(m.tool_call_chunks[0].args));
  if (cut) {
    const soFar = cut.tool_call_chunks[0].args.match(/"q": ?"([^"]+)$/)[1];
    assert.equal(cut.tool_calls[0].args.q, soFar);
  }
});
