// A shallow dict-merge reducer with a default: parallel writers with overlapping keys (the
// later in path order wins), a null value, nested objects replaced rather than merged.
import { StateGraph, START, Annotation } from "@langchain/langgraph";
import { append, stream } from "./transcript.mjs";
const State = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  n: Annotation(),
  doc: Annotation({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({ base: 0 }) }),
});
const app = new StateGraph(State)
  .addNode("b", () => ({ doc: { x: 1, shared: "b", nested: { p: 1 } } }))
  .addNode("a", () => ({ doc: { y: 2, shared: "a", nested: { q: 2 } } }))
  .addNode("c", () => ({ doc: { base: null, list: [1, 2] } }))
  .addNode("d", () => ({ doc: { list: [3], nested: {} } }))
  .addEdge(START, "b").addEdge(START, "a").addEdge(START, "c")
  .addEdge(["a", "b", "c"], "d")
  .compile();
await stream(app, { doc: { in: true } }, {}, ["updates", "values"]);
