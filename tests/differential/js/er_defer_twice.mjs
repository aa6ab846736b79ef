// A deferred node reached twice: d waits for the longer branch b -> b2 -> b3, then routes back
// to a and b, and runs again after them.
import { StateGraph, START, END } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", (s) => ({ n: s.n + 1, trace: ["a" + s.n] }))
  .addNode("b", tracer("b")).addNode("b2", tracer("b2")).addNode("b3", tracer("b3"))
  .addNode("d", (s) => ({ trace: ["d" + s.n] }), { defer: true })
  .addEdge(START, "a").addEdge(START, "b").addEdge("b", "b2").addEdge("b2", "b3").addEdge("a", "d")
  .addConditionalEdges("d", (s) => (s.n < 3 ? ["a", "b"] : END))
  .compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
