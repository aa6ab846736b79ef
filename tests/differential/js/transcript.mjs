// Shared helpers of the LangGraph.js side of the differential suite: each prints one transcript
// line (one JSON value) per stream part, result, error, snapshot, history or update_state
// config. The same lines come from the C++ side (../transcript.hpp); ../normalize.mjs then
// reduces snapshots to what both sides have, sorts keys and replaces random ids.
import { isBaseMessage } from "@langchain/core/messages";

export const THREAD = { configurable: { thread_id: "t1" } };
export const thread = (id, extra = {}) => ({ configurable: { thread_id: id, ...extra } });

// LangGraph's own error classes are printed by name; anything else was thrown by a node (JS
// rethrows the node's own error) and is printed by its message, as the C++ side prints a
// NodeError's cause.
const LANGGRAPH_ERRORS = new Set([
  "GraphRecursionError", "GraphValueError", "InvalidUpdateError", "EmptyInputError", "EmptyChannelError",
  "GraphInterrupt", "NodeInterrupt", "ParentCommand", "MultipleSubgraphsError", "UnreachableNodeError",
  "RemoteException", "GraphBubbleUp", "BaseLangGraphError",
]);

// Messages (class instances) become LangChain's dict form, the form superstep stores.
function plain(value) {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== "object") return value;
  if (isBaseMessage(value)) {
    const m = { type: value._getType(), content: value.content, id: value.id ?? null };
    if (value.name) m.name = value.name;
    if (value.tool_calls?.length) m.tool_calls = value.tool_calls.map((c) => ({ id: c.id, name: c.name, args: c.args }));
    if (value.tool_call_id) m.tool_call_id = value.tool_call_id;
    // A model's reply (agent scenarios): streamed tool-call pieces, calls that are not JSON.
    if (value.tool_call_chunks?.length) m.tool_call_chunks = value.tool_call_chunks;
    if (value.invalid_tool_calls?.length) m.invalid_tool_calls = value.invalid_tool_calls;
    return m;
  }
  if (Array.isArray(value)) return value.map((v) => { const p = plain(v); return p === undefined ? null : p; });
  if (value instanceof Error) return { error: value.name };
  if (typeof value.toJSON === "function" && value.lg_name === undefined) return plain(value.toJSON());
  const out = {};
  for (const [k, v] of Object.entries(value)) {
    const p = plain(v);
    if (p !== undefined) out[k] = p;
  }
  return out;
}

// LangGraph.js logs retries with console.log: keep stdout for the transcript.
console.log = (...args) => console.error(...args);

export function emit(line) {
  process.stdout.write(JSON.stringify(plain(line)) + "\n");
}

export function errorLine(e) {
  if (LANGGRAPH_ERRORS.has(e?.name) || LANGGRAPH_ERRORS.has(e?.constructor?.name))
    return { error: { name: LANGGRAPH_ERRORS.has(e.name) ? e.name : e.constructor.name } };
  return { error: { node_error: String(e?.message ?? e) } };
}

// stream(): modes is a list (parts arrive as [mode, data], or [ns, mode, data] with subgraphs);
// modes null streams with the default mode and prints each chunk as {raw}.
export async function stream(graph, input, config = {}, modes = ["updates"], opts = {}) {
  try {
    const cfg = { ...config };
    if (modes) cfg.streamMode = modes;
    if (opts.subgraphs) cfg.subgraphs = true;
    for await (const chunk of await graph.stream(input, cfg)) {
      if (!modes) emit({ raw: chunk });
      else if (opts.subgraphs) emit({ part: { mode: chunk[1], ns: chunk[0], data: chunk[2] } });
      else emit({ part: { mode: chunk[0], ns: [], data: chunk[1] } });
    }
  } catch (e) {
    emit(errorLine(e));
  }
}

export async function invoke(graph, input, config = {}) {
  try {
    emit({ result: await graph.invoke(input, config) });
  } catch (e) {
    emit(errorLine(e));
  }
}

export async function state(graph, config, subgraphs = false) {
  try {
    emit({ state: await graph.getState(config, { subgraphs }) });
  } catch (e) {
    emit(errorLine(e));
  }
}

export async function history(graph, config, options = {}) {
  try {
    const all = [];
    for await (const s of graph.getStateHistory(config, options)) all.push(s);
    emit({ history: all });
  } catch (e) {
    emit(errorLine(e));
  }
}

// Returns the new config (for later calls) and prints it.
export async function update(graph, config, values, asNode) {
  try {
    const c = await graph.updateState(config, values, asNode);
    emit({ config: c });
    return c;
  } catch (e) {
    emit(errorLine(e));
    return null;
  }
}

export function note(text) {
  emit({ note: text });
}

// The `trace` state most scenarios use (diff::trace_schema): trace appends (default []), n is
// a plain value.
import { Annotation } from "@langchain/langgraph";
export const append = (a, b) => a.concat(Array.isArray(b) ? b : [b]);
export const TraceState = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  n: Annotation(),
});
export const tracer = (name) => () => ({ trace: [name] });
// A retry policy without waiting (milliseconds in LangGraph.js).
export const quickRetry = (maxAttempts) => ({ maxAttempts, initialInterval: 1, backoffFactor: 1, jitter: false });
