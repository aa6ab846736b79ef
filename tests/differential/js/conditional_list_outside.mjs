// A router with a declared destination list (no map) returning a node outside it
// (y is reachable through x, so that compile accepts the graph).
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("r", tracer("r")).addNode("x", tracer("x")).addNode("y", tracer("y"))
  .addEdge(START, "r").addEdge("x", "y")
  .addConditionalEdges("r", (s) => (s.n === 1 ? "x" : "y"), ["x"])
  .compile();
await stream(app, { n: 1 }, {}, ["updates"]);
await stream(app, { n: 2 }, {}, ["updates"]);
