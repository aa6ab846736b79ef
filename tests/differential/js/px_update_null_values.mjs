// updateState with null values: on a paused thread (no asNode), then resumed; and as node "a"
// on a finished thread, then null input.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, invoke, state, update, thread } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("ask", (s) => ({ trace: ["ask:" + interrupt("q") + ":n=" + s.n] }))
  .addNode("c", (s) => ({ trace: ["c:n=" + s.n] }))
  .addEdge(START, "a").addEdge("a", "ask").addEdge("ask", "c")
  .compile({ checkpointer: new MemorySaver() });
const T1 = thread("t1"), T2 = thread("t2");
await stream(app, { n: 1 }, T1, ["updates"]);
await update(app, T1, null);
await state(app, T1);
await stream(app, new Command({ resume: "yes" }), T1, ["updates", "values"]);
await invoke(app, { n: 1 }, T2);
await invoke(app, new Command({ resume: "done" }), T2);
await update(app, T2, null, "a");
await state(app, T2);
await stream(app, null, T2, ["updates"]);
await state(app, T2);
