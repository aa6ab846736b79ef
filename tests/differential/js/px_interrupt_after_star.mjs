// interruptAfter "*" per call on a fan-out and join, stepped with null input; the last call
// without it runs to the end.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c")).addNode("d", tracer("d"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("a", "c").addEdge(["b", "c"], "d")
  .compile({ checkpointer: new MemorySaver() });
const cfg = { ...THREAD, interruptAfter: "*" };
await stream(app, { n: 1 }, cfg, ["updates"]);
await state(app, THREAD);
await stream(app, null, cfg, ["updates", "values"]);
await state(app, THREAD);
await stream(app, null, THREAD, ["updates", "values"]);
await state(app, THREAD);
