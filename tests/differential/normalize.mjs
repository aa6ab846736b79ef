// Normalises a transcript (one JSON value per line, from js/<scenario>.mjs or from
// superstep-differential) so that LangGraph.js and superstep can be diffed:
//  1. snapshots (state, history, `checkpoints` parts, `debug` checkpoint payloads) are reduced to
//     what both sides have: values, next, tasks {id, name, path, interrupts, error presence,
//     result, state}, metadata {source, step}, the checkpoint id, namespace and parent id; task
//     events (`tasks`, `debug`) lose LangGraph.js' metadata and timestamps; an error becomes
//     `true` (messages differ); `messages` parts keep their metadata's langgraph_* keys and
//     checkpoint_ns; messages keep type, content, id, name, tool_calls, tool_call_id and, when
//     not empty, tool_call_chunks and invalid_tool_calls;
//  2. object keys are sorted recursively (superstep's JSON objects are ordered by key:
//     docs/semantics.md#differences-from-langgraph);
//  3. runs of consecutive `updates` parts are sorted (completion order is no contract; below;
//     a paused task's interrupt `updates` part and the `values` part after it move together);
//  4. agent scenarios' chat completions requests (`requests` lines): a missing `stream` is false;
//     the model server's loopback port becomes <port>;
//  5. random ids (UUIDs of checkpoints, tasks, runs and messages; 32-hex interrupt ids) become
//     <id1>, <id2>, ... in order of appearance in the transcript.
// Usage: node normalize.mjs < transcript > normalised
import { readFileSync, writeFileSync } from "node:fs";

// AIMessageChunk: superstep's type of a `messages` part's chunk (docs/agents.md, differences;
// LangChain.js says "ai"), reduced like any message but keeping its type.
const MESSAGE_TYPES = new Set(["human", "ai", "system", "tool", "remove", "AIMessageChunk"]);

function isMessage(v) {
  return v && typeof v === "object" && !Array.isArray(v) && MESSAGE_TYPES.has(v.type) && ("content" in v || v.type === "remove");
}

function message(m) {
  // A remove message's content means nothing (LangChain.js gives it [], superstep none).
  if (m.type === "remove") return { type: "remove", id: m.id ?? null };
  const out = { type: m.type, content: m.content, id: m.id ?? null };
  if (m.name) out.name = m.name;
  if (m.tool_calls?.length) out.tool_calls = m.tool_calls.map((c) => ({ id: c.id, name: c.name, args: c.args }));
  if (m.tool_call_id) out.tool_call_id = m.tool_call_id;
  // A model's reply: its streamed tool-call pieces and the calls whose arguments are not JSON.
  if (m.tool_call_chunks?.length) out.tool_call_chunks = m.tool_call_chunks;
  if (m.invalid_tool_calls?.length) out.invalid_tool_calls = m.invalid_tool_calls;
  return out;
}

function messages(v) {
  if (Array.isArray(v)) return v.map(messages);
  if (isMessage(v)) return message(v);
  if (v && typeof v === "object") {
    const out = {};
    for (const [k, x] of Object.entries(v)) out[k] = messages(x);
    return out;
  }
  return v;
}

const configurable = (c) => (c && c.configurable) || {};

function checkpointRef(config) {
  const c = configurable(config);
  const out = { checkpoint_id: c.checkpoint_id ?? null };
  if (c.checkpoint_ns) out.checkpoint_ns = c.checkpoint_ns;
  return out;
}

function snapshotTask(t) {
  const out = { id: t.id, name: t.name, path: t.path, interrupts: t.interrupts ?? [] };
  if (t.error !== undefined && t.error !== null) out.error = true;
  if (t.result !== undefined && t.result !== null) out.result = t.result;
  if (t.state) out.state = t.state.values !== undefined ? snapshot(t.state) : checkpointRef(t.state);
  return out;
}

function snapshot(s) {
  if (!s || typeof s !== "object") return s;
  const parent = s.parentConfig ?? s.parent_config;
  const md = s.metadata ?? {};
  const out = {
    values: s.values,
    next: s.next,
    tasks: (s.tasks ?? []).map(snapshotTask),
    metadata: md.source === undefined ? {} : { source: md.source, step: md.step },
    ...checkpointRef(s.config),
    parent_checkpoint_id: parent ? configurable(parent).checkpoint_id ?? null : null,
  };
  return out;
}

function taskEvent(t) {
  const out = { ...t };
  delete out.metadata;
  if (out.error === null || out.error === undefined) delete out.error;
  else out.error = true;
  return out;
}

function part(p) {
  const out = { ...p };
  if (p.mode === "checkpoints") out.data = snapshot(p.data);
  else if (p.mode === "tasks") out.data = taskEvent(p.data);
  else if (p.mode === "messages" && Array.isArray(p.data) && p.data[1] && typeof p.data[1] === "object") {
    // [message, metadata]: the metadata's langgraph_* keys and checkpoint_ns (LangChain.js adds
    // tags, name and ls_integration).
    const md = {};
    for (const [k, v] of Object.entries(p.data[1])) if (k.startsWith("langgraph_") || k === "checkpoint_ns") md[k] = v;
    out.data = [p.data[0], md];
  }
  else if (p.mode === "debug") {
    const d = { type: p.data.type, step: p.data.step };
    d.payload = p.data.type === "checkpoint" ? snapshot(p.data.payload) : taskEvent(p.data.payload);
    out.data = d;
  }
  return out;
}

// A chat completions request body (the agent scenarios' `requests` line): what the model is
// asked, as sent. `stream` absent is `false` (the API's default; ChatOpenAI sends it, superstep
// only when streaming); the rest is kept as it is.
function request(r) {
  const out = { ...r };
  if (out.stream === undefined) out.stream = false;
  return out;
}

function line(v) {
  if (v.requests !== undefined) return { requests: v.requests.map(request) };
  if (v.state !== undefined) return { state: snapshot(v.state) };
  if (v.history !== undefined) return { history: v.history.map(snapshot) };
  if (v.config !== undefined) return { config: v.config === null ? null : checkpointRef(v.config) };
  if (v.part !== undefined) return { part: part(v.part) };
  return v;
}

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    const out = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys(v[k]);
    return out;
  }
  return v;
}

// The agent scenarios' model server listens on a free loopback port (errors may name its URL).
const LOCAL_PORT = /127\.0\.0\.1:[0-9]+/g;

const ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])/g;

// `updates` parts come in completion order (docs/semantics.md#the-loop, step 4; LangGraph.js
// too), which is no contract: a run of consecutive `updates` parts of one namespace is sorted
// (ids masked). Scenarios with parallel tasks also stream `values`, whose parts separate steps.
// A task that paused streams `updates` {"__interrupt__": ...} and right after it (a contract:
// no sibling's part in between) `values` with the same data: the two move as one.
function sortUpdateRuns(lines) {
  const key = (s) => s.replace(ID, "<id>");
  const partOf = (s) => {
    const m = /^\{"part":\{"data":(.*),"mode":"(updates|values)","ns":(\[.*\])\}\}$/.exec(s);
    return m ? { data: m[1], mode: m[2], ns: m[3] } : null;
  };
  // Units: an `updates` part, with the `values` part that repeats its interrupts; other lines alone.
  const units = [];
  for (let i = 0; i < lines.length; i++) {
    const p = partOf(lines[i]);
    if (p && p.mode === "updates") {
      const next = i + 1 < lines.length ? partOf(lines[i + 1]) : null;
      if (p.data.startsWith('{"__interrupt__"') && next && next.mode === "values" && next.ns === p.ns && next.data === p.data) {
        units.push({ ns: p.ns, lines: [lines[i], lines[i + 1]] });
        i++;
      } else {
        units.push({ ns: p.ns, lines: [lines[i]] });
      }
    } else {
      units.push({ ns: null, lines: [lines[i]] });
    }
  }
  const out = [];
  for (let i = 0; i < units.length; ) {
    const ns = units[i].ns;
    let j = i + 1;
    if (ns !== null) while (j < units.length && units[j].ns === ns) j++;
    const run = units.slice(i, j);
    const k = (u) => key(u.lines.join("\n"));
    if (run.length > 1) run.sort((a, b) => (k(a) < k(b) ? -1 : k(a) > k(b) ? 1 : 0));
    for (const u of run) out.push(...u.lines);
    i = j;
  }
  return out;
}

export function normalize(text) {
  const ids = new Map();
  const lines = [];
  for (const raw of text.split("\n")) {
    if (!raw.trim()) continue;
    let v;
    try {
      v = JSON.parse(raw);
    } catch {
      lines.push(`<not JSON> ${raw}`);
      continue;
    }
    lines.push(JSON.stringify(sortKeys(messages(line(v)))));
  }
  const out = sortUpdateRuns(lines).map((s) => s.replace(ID, (id) => {
    if (!ids.has(id)) ids.set(id, `<id${ids.size + 1}>`);
    return ids.get(id);
  }).replace(LOCAL_PORT, "127.0.0.1:<port>"));
  return out.join("\n") + "\n";
}

// node normalize.mjs < transcript: the normalised transcript on stdout. node normalize.mjs --batch
// < list: for each line X.out of the list, writes X.norm (../run: one process for every
// transcript of a suite run).
if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv[2] === "--batch") {
    for (const path of readFileSync(0, "utf8").split("\n").filter(Boolean))
      writeFileSync(path.replace(/\.out$/, ".norm"), normalize(readFileSync(path, "utf8")));
  } else {
    process.stdout.write(normalize(readFileSync(0, "utf8")));
  }
}
