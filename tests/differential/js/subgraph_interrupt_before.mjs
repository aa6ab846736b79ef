// A subgraph compiled with its own interruptBefore pauses the parent; null continues it.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("s1", tracer("s1")).addNode("s2", tracer("s2")).addEdge(START, "s1").addEdge("s1", "s2")
  .compile({ interruptBefore: ["s2"] });
const app = new StateGraph(TraceState)
  .addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"]);
await state(app, THREAD);
await stream(app, null, THREAD, ["updates", "values"]);
