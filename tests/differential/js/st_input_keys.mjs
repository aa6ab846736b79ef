// Per-node input keys (superstep's input_keys, LangGraph's per-node input schema): a node sees
// only those keys (a key without a value is absent), still writes keys outside them.
import { StateGraph, START, Annotation } from "@langchain/langgraph";
import { append, stream } from "./transcript.mjs";
const State = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  n: Annotation(),
  doc: Annotation(),
  total: Annotation({ reducer: (a, b) => a + b, default: () => 0 }),
});
const keys = (s) => Object.keys(s).sort().join(",");
const app = new StateGraph(State)
  .addNode("a", (s) => ({ trace: ["a:" + keys(s)], doc: "d", total: 1 }),
    { input: Annotation.Root({ doc: Annotation(), n: Annotation() }) })
  .addNode("b", (s) => ({ trace: ["b:" + keys(s) + ":total=" + s.total], total: 2 }),
    { input: Annotation.Root({ total: Annotation() }) })
  .addNode("c", (s) => ({ trace: ["c:" + keys(s)] }))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "c")
  .compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
