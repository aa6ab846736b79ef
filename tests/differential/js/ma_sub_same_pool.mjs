// A subgraph of two parallel nodes (superstep: compiled on the same one-worker executor as its
// parent).
import { StateGraph, START } from "@langchain/langgraph";
import { invoke, TraceState, tracer } from "./transcript.mjs";
const sub = new StateGraph(TraceState).addNode("x", tracer("x")).addNode("y", tracer("y"))
  .addEdge(START, "x").addEdge(START, "y").compile();
const app = new StateGraph(TraceState).addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge("sub", "z").compile();
await invoke(app, { n: 1 });
import { stream } from "./transcript.mjs";
await stream(app, { n: 2 }, {}, ["updates"]);
await stream(app, { n: 3 }, {}, ["updates"], { subgraphs: true });
