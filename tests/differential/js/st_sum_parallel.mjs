// A sum reducer (default 0) written by three parallel nodes in one step, the input folded into
// the default, and a join reading the total.
import { StateGraph, START, Annotation } from "@langchain/langgraph";
import { append, stream, invoke } from "./transcript.mjs";
const State = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  n: Annotation(),
  total: Annotation({ reducer: (a, b) => a + b, default: () => 0 }),
});
const g = new StateGraph(State);
let i = 1;
for (const n of ["a", "b", "c"]) {
  const v = i++;
  g.addNode(n, () => ({ total: v, trace: [n] })).addEdge(START, n);
}
g.addNode("j", (s) => ({ trace: ["j:total=" + s.total] })).addEdge(["a", "b", "c"], "j");
const app = g.compile();
await stream(app, { total: 10 }, {}, ["updates", "values"]);
await invoke(app, { n: 1 });
