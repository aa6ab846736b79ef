// A deferred node reached from branches of different lengths runs once, after the longer one;
// and a deferred join.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("a2", tracer("a2")).addNode("b", tracer("b"))
  .addNode("d", tracer("d"), { defer: true })
  .addEdge(START, "a").addEdge(START, "b").addEdge("a", "a2").addEdge("a2", "d").addEdge("b", "d").compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
const joined = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("b2", tracer("b2")).addNode("b3", tracer("b3"))
  .addNode("d", tracer("d"), { defer: true })
  .addEdge(START, "a").addEdge(START, "b").addEdge("b", "b2").addEdge("b2", "b3").addEdge(["a", "b"], "d").compile();
await stream(joined, { n: 1 }, {}, ["updates", "values"]);
