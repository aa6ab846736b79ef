// A custom max reducer (default 0): parallel writers in one step, a later smaller write that
// does not lower it, and an input above every write.
import { StateGraph, START, Annotation } from "@langchain/langgraph";
import { append, stream } from "./transcript.mjs";
const State = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  n: Annotation(),
  best: Annotation({ reducer: (a, b) => (b > a ? b : a), default: () => 0 }),
});
const g = new StateGraph(State);
for (const [n, v] of [["p1", 5], ["p2", 9], ["p3", 3]]) g.addNode(n, () => ({ best: v })).addEdge(START, n);
g.addNode("low", (s) => ({ best: 2, trace: ["low:best=" + s.best] }))
  .addNode("last", (s) => ({ trace: ["last:best=" + s.best] }))
  .addEdge(["p1", "p2", "p3"], "low").addEdge("low", "last");
const app = g.compile();
await stream(app, { best: 4 }, {}, ["updates", "values"]);
await stream(app, { best: 20 }, {}, ["values"]);
