// A router without a path map returning node names: one, a list (same step, name order), END.
import { StateGraph, START, END } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("r", tracer("r")).addNode("x", tracer("x")).addNode("y", tracer("y")).addNode("z", tracer("z"))
  .addEdge(START, "r")
  .addConditionalEdges("r", (s) => (s.n === 0 ? END : s.n === 1 ? ["z", "x"] : "y"))
  .compile();
for (const n of [0, 1, 2]) await stream(app, { n }, {}, ["updates", "values"]);
