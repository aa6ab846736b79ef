// A conditional entry point (a router on START).
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("x", tracer("x")).addNode("y", tracer("y"))
  .addConditionalEdges(START, (s) => (s.n ? "x" : "y"))
  .compile();
await stream(app, { n: 1 }, {}, ["updates"]);
await stream(app, { n: 0 }, {}, ["updates"]);
