// checkpoints and tasks stream modes with subgraphs, with an interrupt inside the subgraph.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("s1", tracer("s1"))
  .addNode("ask", () => ({ trace: ["sub:" + interrupt("q")] }))
  .addEdge(START, "s1").addEdge("s1", "ask").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["checkpoints", "tasks"], { subgraphs: true });
await stream(app, new Command({ resume: "r" }), THREAD, ["checkpoints", "tasks"], { subgraphs: true });
