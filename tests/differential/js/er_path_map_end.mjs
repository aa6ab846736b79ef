// A path map with END: a router returning the key for END alone, with a node, and a list with
// a duplicate key.
import { StateGraph, START, END } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("r", tracer("r")).addNode("x", tracer("x")).addNode("y", tracer("y"))
  .addEdge(START, "r")
  .addConditionalEdges("r", (s) => (s.n === 1 ? "stop" : s.n === 2 ? ["go", "stop"] : ["go", "both", "go"]),
    { go: "x", stop: END, both: "y" })
  .compile();
for (const n of [1, 2, 3]) await stream(app, { n }, {}, ["updates", "values"]);
