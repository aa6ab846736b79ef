// A Command input carrying both resume and update: the update is applied before the paused
// node runs again, which sees it.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("ask", (s) => { const v = interrupt("q"); return { trace: ["ask:" + v + ":n=" + s.n] }; })
  .addNode("c", (s) => ({ trace: ["c:n=" + s.n] }))
  .addEdge(START, "a").addEdge("a", "ask").addEdge("ask", "c")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"]);
await stream(app, new Command({ resume: "yes", update: { n: 5, trace: ["upd"] } }), THREAD, ["updates", "values"]);
await state(app, THREAD);
