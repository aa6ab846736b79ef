// Durability "exit" on a -> ask -> c (no subgraph): the checkpoints parts of a run that pauses
// and of its resume, and the history after each.
import { StateGraph, START, MemorySaver, Command, interrupt } from "@langchain/langgraph";
import { TraceState, tracer, stream, history, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("ask", (s) => ({ trace: ["ask:" + interrupt("q") + ":n=" + s.n] }))
  .addNode("c", (s) => ({ trace: ["c:n=" + s.n] }))
  .addEdge(START, "a").addEdge("a", "ask").addEdge("ask", "c")
  .compile({ checkpointer: new MemorySaver() });
const cfg = { ...THREAD, durability: "exit" };
await stream(app, { n: 1 }, cfg, ["checkpoints"]);
await history(app, THREAD);
await stream(app, new Command({ resume: "r" }), cfg, ["checkpoints"]);
await history(app, THREAD);
