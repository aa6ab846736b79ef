// A deferred node d reached through a router: alone (n=1), beside a branch that also leads to
// d (n=2), not at all (n=3); a longer branch b -> b2 runs beside it.
import { StateGraph, START, END } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("b2", tracer("b2"))
  .addNode("d", tracer("d"), { defer: true })
  .addNode("x", tracer("x")).addNode("x2", tracer("x2"))
  .addEdge(START, "a").addEdge(START, "b").addEdge("b", "b2").addEdge("x", "x2").addEdge("x2", "d")
  .addConditionalEdges("a", (s) => (s.n === 1 ? "d" : s.n === 2 ? ["d", "x"] : END))
  .compile();
for (const n of [1, 2, 3]) await stream(app, { n }, {}, ["updates", "values"]);
