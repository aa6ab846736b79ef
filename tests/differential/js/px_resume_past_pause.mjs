// A resume at a past paused checkpoint after the thread was resumed once: a fork answered anew.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("ask", (s) => ({ trace: ["ask:" + interrupt("q") + ":n=" + s.n] }))
  .addNode("c", (s) => ({ trace: ["c:n=" + s.n] }))
  .addEdge(START, "a").addEdge("a", "ask").addEdge("ask", "c")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
const paused = (await app.getState(THREAD)).config;
await stream(app, new Command({ resume: "first" }), THREAD, ["updates"]);
await stream(app, new Command({ resume: "second" }), paused, ["updates", "values"]);
await state(app, THREAD);
await history(app, THREAD);
