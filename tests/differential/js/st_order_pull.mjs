// A non-commutative reducer ("a|b") written by three parallel nodes added out of name order:
// the value shows the order the step's writes are applied in (task path order).
import { StateGraph, START, Annotation } from "@langchain/langgraph";
import { append, stream } from "./transcript.mjs";
const State = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  n: Annotation(),
  log: Annotation({ reducer: (a, b) => a + "|" + b, default: () => "" }),
});
const g = new StateGraph(State);
for (const n of ["zeta", "alpha", "mid"]) g.addNode(n, () => ({ log: n })).addEdge(START, n);
g.addNode("end", (s) => ({ log: "end", trace: ["end:" + s.log] })).addEdge(["zeta", "alpha", "mid"], "end");
await stream(g.compile(), { log: "in" }, {}, ["updates", "values"]);
