// Graph construction cases where the two might disagree on whether it is an error: no edge
// from START, an empty graph, START -> END, a node named as a state key, two conditional edges
// from one node, an unreachable node, a node named __interrupt__, an empty node name, the same
// edge added twice.
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
const g = () => new StateGraph(TraceState);

await attempt("no_start_edge", () => g().addNode("a", tracer("a")).addNode("b", tracer("b"))
  .addConditionalEdges("a", () => "b").addConditionalEdges("b", () => END).compile());
await attempt("empty_graph", () => g().compile());
await attempt("start_to_end_only", () => g().addEdge(START, END).compile());
await attempt("start_to_end_beside_node", () => g().addNode("a", tracer("a")).addEdge(START, "a").addEdge(START, END).compile());
await attempt("node_named_as_key", () => g().addNode("n", tracer("n")).addEdge(START, "n").compile());
await attempt("two_conditional_edges", () => g().addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c"))
  .addEdge(START, "a").addConditionalEdges("a", () => "b", ["b"]).addConditionalEdges("a", () => "c", ["c"]).compile());
await attempt("unreachable_node", () => g().addNode("a", tracer("a")).addNode("b", tracer("b")).addEdge(START, "a").compile());
await attempt("node_interrupt_name", () => g().addNode("__interrupt__", tracer("i")).addEdge(START, "__interrupt__").compile());
await attempt("node_empty_name", () => g().addNode("", tracer("empty")).addEdge(START, "").compile());
await attempt("edge_twice", () => g().addNode("a", tracer("a")).addNode("b", tracer("b"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("a", "b").compile());
await attempt("join_and_edge_same_target", () => g().addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge(START, "b").addEdge(["a", "b"], "c").addEdge("a", "c").compile());
await attempt("node_input_name", () => g().addNode("__input__", tracer("in")).addEdge(START, "__input__").compile());
await attempt("node_copy_name", () => g().addNode("__copy__", tracer("cp")).addEdge(START, "__copy__").compile());
await attempt("join_two_into_end", () => g().addNode("a", tracer("a")).addNode("b", tracer("b"))
  .addEdge(START, "a").addEdge(START, "b").addEdge(["a", "b"], END).compile());
