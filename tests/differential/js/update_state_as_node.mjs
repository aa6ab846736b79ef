// Paused before b: updateState as a (its edges run), then continue.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, update, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "c")
  .compile({ checkpointer: new MemorySaver(), interruptBefore: ["b"] });
await stream(app, { n: 1 }, THREAD, ["updates"]);
await update(app, THREAD, { n: 42, trace: ["edited"] }, "a");
await state(app, THREAD);
await update(app, THREAD, { n: 43 });
await state(app, THREAD);
await stream(app, null, THREAD, ["updates", "values"]);
