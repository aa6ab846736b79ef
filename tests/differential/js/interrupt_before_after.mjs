// interruptAfter a and interruptBefore c at compile time; each pause continued with null.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "c")
  .compile({ checkpointer: new MemorySaver(), interruptAfter: ["a"], interruptBefore: ["c"] });
await stream(app, { n: 1 }, THREAD, ["updates", "values"]);
await state(app, THREAD);
await stream(app, null, THREAD, ["updates", "values"]);
await state(app, THREAD);
await stream(app, null, THREAD, ["updates", "values"]);
await state(app, THREAD);
