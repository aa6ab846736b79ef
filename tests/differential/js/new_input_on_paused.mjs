// A new input on a paused thread discards the pending interrupt and starts again.
import { StateGraph, START, MemorySaver, interrupt } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("ask", () => ({ trace: [interrupt("q")] }))
  .addEdge(START, "a").addEdge("a", "ask").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
await stream(app, { n: 2 }, THREAD, ["updates", "values"]);
await state(app, THREAD);
