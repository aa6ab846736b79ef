// LastValue keys holding null, nested objects and arrays: a node writing null over a value, a
// node writing keys it does not read, a null input.
import { StateGraph, START, Annotation } from "@langchain/langgraph";
import { append, stream, invoke } from "./transcript.mjs";
const State = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  n: Annotation(),
  doc: Annotation(),
  extra: Annotation(),
});
const app = new StateGraph(State)
  .addNode("a", () => ({ n: null, extra: [[1, 2], {}, null] }))
  .addNode("b", (s) => ({ trace: ["b:n=" + ("n" in s ? (s.n === null ? "null" : "value") : "absent")], doc: { a: null } }))
  .addNode("c", (s) => ({ trace: ["c:" + JSON.stringify(s.doc) + ":" + s.extra.length] }))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "c")
  .compile();
await stream(app, { n: 1, doc: { a: { b: [1, { c: null }] }, list: [] } }, {}, ["updates", "values"]);
await invoke(app, { n: null, doc: null });
