// Streaming (values, updates) a resume right after updateState on the paused thread: as node
// "a" (ask is planned again, n changed) and without asNode.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, update, history, thread } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("ask", (s) => ({ trace: ["ask:" + interrupt("q") + ":n=" + s.n] }))
  .addNode("c", (s) => ({ trace: ["c:n=" + s.n] }))
  .addEdge(START, "a").addEdge("a", "ask").addEdge("ask", "c")
  .compile({ checkpointer: new MemorySaver() });
const T1 = thread("t1"), T2 = thread("t2");
await stream(app, { n: 1 }, T1, ["updates"]);
await update(app, T1, { n: 5, trace: ["edit"] }, "a");
await state(app, T1);
await stream(app, new Command({ resume: "yes" }), T1, ["values", "updates"]);
await history(app, T1);
await stream(app, { n: 1 }, T2, ["updates"]);
await update(app, T2, { n: 6 });
await stream(app, new Command({ resume: "ok" }), T2, ["values", "updates"]);
