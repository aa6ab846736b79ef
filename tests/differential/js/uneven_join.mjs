// Uneven branches joined: c waits for a and b2, runs once; a second run joins again.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream, invoke } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("b2", tracer("b2")).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge(START, "b").addEdge("b", "b2").addEdge(["a", "b2"], "c").compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
await invoke(app, { n: 2 });
