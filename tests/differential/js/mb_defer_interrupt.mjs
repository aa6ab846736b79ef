// A deferred node that interrupts: it pauses after the longer branch; resume by value.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("x", tracer("x")).addNode("y", tracer("y")).addNode("y2", tracer("y2"))
  .addNode("d", () => ({ trace: ["d:" + interrupt("ok?")] }), { defer: true })
  .addEdge(START, "x").addEdge(START, "y").addEdge("y", "y2").addEdge("x", "d").addEdge("y2", "d")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"]);
await state(app, THREAD);
await stream(app, new Command({ resume: "go" }), THREAD, ["updates", "values"]);
await state(app, THREAD);
