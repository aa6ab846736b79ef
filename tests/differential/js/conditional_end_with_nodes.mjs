// A router returning END together with nodes: the nodes run, END adds nothing; and a router
// returning only [END].
import { StateGraph, START, END } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("r", tracer("r")).addNode("x", tracer("x")).addNode("y", tracer("y"))
  .addEdge(START, "r")
  .addConditionalEdges("r", (s) => (s.n === 1 ? [END, "x", "y"] : s.n === 2 ? ["x", END] : [END]))
  .compile();
for (const n of [1, 2, 3]) await stream(app, { n }, {}, ["updates", "values"]);
