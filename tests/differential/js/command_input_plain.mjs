// Command as the input of a graph without a checkpointer (update + goto).
import { StateGraph, START, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addEdge(START, "a").addEdge("a", "b").compile();
await stream(app, new Command({ update: { n: 3 }, goto: "b" }), {}, ["updates", "values"]);
