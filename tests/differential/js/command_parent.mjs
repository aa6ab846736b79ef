// A subgraph node returning Command to the parent: the update and goto apply to the parent.
import { StateGraph, START, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("s1", tracer("s1"))
  .addNode("jump", () => new Command({ update: { trace: ["jump"] }, goto: "target", graph: Command.PARENT }))
  .addNode("s3", tracer("s3"))
  .addEdge(START, "s1").addEdge("s1", "jump").addEdge("jump", "s3").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub, { ends: ["target"] }).addNode("target", tracer("target"))
  .addEdge(START, "sub").compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
