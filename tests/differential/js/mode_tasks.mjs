// tasks mode: a task's start (input, triggers) and its result, for a chain and a parallel pair.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", (s) => ({ n: 5 }))
  .addEdge(START, "a").addEdge("a", "b").addEdge("a", "c").compile();
await stream(app, { n: 1 }, {}, ["tasks"]);
