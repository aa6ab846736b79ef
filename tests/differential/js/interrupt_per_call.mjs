// interruptBefore given per call (not at compile time).
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b"))
  .addEdge(START, "a").addEdge("a", "b").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, { ...THREAD, interruptBefore: ["b"] }, ["updates"]);
await state(app, THREAD);
await stream(app, null, THREAD, ["updates", "values"]);
