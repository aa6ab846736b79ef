// stream() without a mode: each chunk as it comes (LangGraph.js' default mode is updates).
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addEdge(START, "a").addEdge("a", "b").compile();
await stream(app, { n: 1 }, {}, null);
