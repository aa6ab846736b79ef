// A node returning nothing: its updates part (the values parts around it: empty_input).
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("quiet", () => {}).addNode("b", tracer("b")).addEdge(START, "quiet").addEdge("quiet", "b").compile();
await stream(app, { n: 1 }, {}, ["updates"]);
