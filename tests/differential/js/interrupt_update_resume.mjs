// A paused node; update_state without as_node, then resume (the node sees the update). On a
// second thread update_state as the paused node (it counts as done), then continue.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, update, invoke, thread } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("ask", (s) => ({ trace: ["ask:" + interrupt("q") + ":n=" + s.n] }))
  .addNode("c", (s) => ({ trace: ["c:n=" + s.n] }))
  .addEdge(START, "a").addEdge("a", "ask").addEdge("ask", "c")
  .compile({ checkpointer: new MemorySaver() });
const T1 = thread("t1"), T2 = thread("t2");
await stream(app, { n: 1 }, T1, ["updates"]);
await update(app, T1, { n: 5 });
await state(app, T1);
await stream(app, new Command({ resume: "yes" }), T1, ["updates", "values"]);
await stream(app, { n: 1 }, T2, ["updates"]);
await update(app, T2, { trace: ["manual"], n: 9 }, "ask");
await state(app, T2);
await stream(app, null, T2, ["updates", "values"]);
await state(app, T2);
