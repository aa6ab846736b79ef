// A task that wrote nothing (it returned {}) beside a task that interrupts: what the checkpoints,
// debug and tasks parts, the state and the history show of it, before and after the resume that
// does not run it again.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, THREAD, thread } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("quiet", () => ({})).addNode("ask", () => ({ trace: ["ask:" + interrupt("q")] })).addNode("z", tracer("z"))
  .addEdge(START, "quiet").addEdge(START, "ask").addEdge(["quiet", "ask"], "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["checkpoints", "tasks"]);
await state(app, THREAD);
await stream(app, new Command({ resume: "r" }), THREAD, ["checkpoints", "tasks"]);
await history(app, THREAD);
await stream(app, { n: 1 }, thread("t2"), ["debug"]);
await stream(app, new Command({ resume: "r" }), thread("t2"), ["debug"]);
