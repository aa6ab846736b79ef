// The parent's interruptBefore and interruptAfter name the subgraph node; continue with null.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("s1", tracer("s1")).addNode("s2", tracer("s2")).addEdge(START, "s1").addEdge("s1", "s2").compile();
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "sub").addEdge("sub", "z")
  .compile({ checkpointer: new MemorySaver(), interruptBefore: ["sub"], interruptAfter: ["sub"] });
await stream(app, { n: 1 }, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD, true);
await stream(app, null, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD, true);
await stream(app, null, THREAD, ["updates", "values"], { subgraphs: true });
