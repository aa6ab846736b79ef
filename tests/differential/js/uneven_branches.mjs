// Uneven branches a | b -> b2, both with plain edges to c: c runs twice (once per arrival).
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("b2", tracer("b2")).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge(START, "b").addEdge("b", "b2").addEdge("a", "c").addEdge("b2", "c").compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
