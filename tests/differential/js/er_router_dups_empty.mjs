// A router (no path map) returning duplicates, an empty list, END between duplicates, and two
// identical Sends beside a node.
import { StateGraph, START, END, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("r", tracer("r")).addNode("w", (s) => ({ trace: ["w" + s.n] }))
  .addNode("x", tracer("x")).addNode("y", tracer("y"))
  .addEdge(START, "r")
  .addConditionalEdges("r", (s) => {
    if (s.n === 1) return ["x", "x", "y"];
    if (s.n === 2) return [];
    if (s.n === 3) return ["x", END, "x"];
    return [new Send("w", { n: 5 }), new Send("w", { n: 5 }), "x"];
  })
  .compile();
for (const n of [1, 2, 3, 4]) await stream(app, { n }, {}, ["updates", "values"]);
