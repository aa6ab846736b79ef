// A router with a path map: its results are keys of the map.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("start", tracer("start")).addNode("yes", tracer("yes")).addNode("no", tracer("no"))
  .addEdge(START, "start")
  .addConditionalEdges("start", (s) => (s.n > 0 ? "positive" : "other"), { positive: "yes", other: "no" })
  .compile();
await stream(app, { n: 1 }, {}, ["updates"]);
await stream(app, { n: -1 }, {}, ["updates"]);
