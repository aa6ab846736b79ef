// The default stream mode of a graph holding a subgraph that interrupts (no subgraphs flag):
// the chunks of the first run and of the resume.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("s1", tracer("s1"))
  .addNode("ask", () => ({ trace: ["ask:" + interrupt("sub q")] }))
  .addEdge(START, "s1").addEdge("s1", "ask").compile();
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, null);
await stream(app, new Command({ resume: "yes" }), THREAD, null);
