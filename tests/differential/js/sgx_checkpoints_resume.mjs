// checkpoints and debug modes across an interrupt and its resume (no subgraph): what the
// resumed run streams first.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, THREAD, thread } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("ask", () => ({ trace: ["ask:" + interrupt("q")] })).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "ask").addEdge("ask", "c").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["checkpoints"]);
await stream(app, new Command({ resume: "r" }), THREAD, ["checkpoints"]);
await stream(app, { n: 1 }, thread("t2"), ["debug"]);
await stream(app, new Command({ resume: "r" }), thread("t2"), ["debug"]);
