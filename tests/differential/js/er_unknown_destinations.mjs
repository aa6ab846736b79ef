// Unknown destinations: a router returning a node that does not exist, a router result missing
// from its path map, a Command goto naming a node that does not exist (beside a static edge).
import { StateGraph, START, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("x", tracer("x"))
  .addEdge(START, "a")
  .addConditionalEdges("a", (s) => (s.n === 1 ? "nope" : "x"))
  .compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
const m = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("x", tracer("x"))
  .addEdge(START, "a")
  .addConditionalEdges("a", (s) => (s.n === 1 ? "missing" : "go"), { go: "x" })
  .compile();
await stream(m, { n: 1 }, {}, ["updates", "values"]);
const k = new StateGraph(TraceState)
  .addNode("a", () => new Command({ update: { trace: ["a"] }, goto: "nope" }))
  .addNode("x", tracer("x"))
  .addEdge(START, "a").addEdge("a", "x")
  .compile();
await stream(k, { n: 1 }, {}, ["updates", "values"]);
