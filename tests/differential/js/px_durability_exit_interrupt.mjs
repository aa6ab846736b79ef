// Durability "exit" around an interrupt: what the paused thread's state and history hold, and
// the history after the resume (also with "exit").
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("ask", (s) => ({ trace: ["ask:" + interrupt("q") + ":n=" + s.n] }))
  .addNode("c", (s) => ({ trace: ["c:n=" + s.n] }))
  .addEdge(START, "a").addEdge("a", "ask").addEdge("ask", "c")
  .compile({ checkpointer: new MemorySaver() });
const cfg = { ...THREAD, durability: "exit" };
await stream(app, { n: 1 }, cfg, ["updates"]);
await state(app, THREAD);
await history(app, THREAD);
await stream(app, new Command({ resume: "yes" }), cfg, ["updates", "values"]);
await history(app, THREAD);
