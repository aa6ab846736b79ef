// Graph construction errors both sides should reject: unknown nodes in edges, joins, path maps,
// ends and interrupt lists; duplicate and reserved node names; END as a source, START as a target.
import { StateGraph, START, END } from "@langchain/langgraph";
import { emit, invoke, TraceState, tracer } from "./transcript.mjs";

async function attempt(label, build, input = { n: 1 }) {
  let app;
  try {
    app = build();
  } catch (e) {
    process.stderr.write(`${label}: ${e.name}: ${e.message.split("\n")[0]}\n`);
    emit({ case: label, build: "error" });
    return;
  }
  emit({ case: label, build: "ok" });
  await invoke(app, input);
}
const base = () => new StateGraph(TraceState).addNode("a", tracer("a")).addEdge(START, "a");
const r = () => "x";

await attempt("edge_to_unknown", () => base().addEdge("a", "ghost").compile());
await attempt("edge_from_unknown", () => base().addEdge("ghost", "a").compile());
await attempt("duplicate_node", () => base().addNode("a", tracer("a2")).compile());
await attempt("node_start", () => base().addNode("__start__", tracer("s")).compile());
await attempt("node_end", () => base().addNode("__end__", tracer("e")).compile());
await attempt("node_pipe", () => base().addNode("b|c", tracer("b")).addEdge("a", "b|c").compile());
await attempt("node_colon", () => base().addNode("b:c", tracer("b")).addEdge("a", "b:c").compile());
await attempt("path_map_unknown", () => base().addConditionalEdges("a", r, { x: "ghost" }).compile());
await attempt("destinations_unknown", () => base().addConditionalEdges("a", r, ["ghost"]).compile());
await attempt("interrupt_before_unknown", () => base().compile({ interruptBefore: ["ghost"] }));
await attempt("interrupt_after_unknown", () => base().compile({ interruptAfter: ["ghost"] }));
await attempt("join_unknown_source", () => base().addNode("b", tracer("b")).addEdge(["a", "ghost"], "b").compile());
await attempt("join_into_end", () => base().addEdge(["a"], END).compile());
await attempt("edge_from_end", () => base().addEdge(END, "a").compile());
await attempt("edge_to_start", () => base().addEdge("a", START).compile());
await attempt("ends_unknown", () => new StateGraph(TraceState).addNode("a", tracer("a"), { ends: ["ghost"] }).addEdge(START, "a").compile());
await attempt("sequence_empty", () => base().addSequence([]).compile());
