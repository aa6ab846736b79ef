// getState on a past checkpoint that has pending writes: a finished node's result and the
// resumed interrupt, read after the thread moved on.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("x", tracer("x"))
  .addNode("y", () => ({ trace: ["y:" + interrupt("for y")] }))
  .addNode("z", tracer("z"))
  .addEdge(START, "x").addEdge(START, "y").addEdge(["x", "y"], "z")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
const paused = (await app.getState(THREAD)).config;
await stream(app, new Command({ resume: "Y" }), THREAD, ["updates"]);
await state(app, paused);
await history(app, THREAD);
