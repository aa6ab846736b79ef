// update_state as a node that routes only with Command (ends, no edges out), on a finished
// thread and while paused before another node: next, then a null run.
import { StateGraph, START, MemorySaver, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, update, invoke, thread } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("r", (s) => new Command({ update: { trace: ["r"] }, goto: s.n > 1 ? "b" : "c" }), { ends: ["b", "c"] })
  .addNode("b", tracer("b")).addNode("c", tracer("c"))
  .addEdge(START, "r")
  .compile({ checkpointer: new MemorySaver(), interruptBefore: ["c"] });
await invoke(app, { n: 2 }, thread("t1"));
await update(app, thread("t1"), { n: 5 }, "r");
await state(app, thread("t1"));
await stream(app, null, thread("t1"), ["updates"]);
await invoke(app, { n: 1 }, thread("t2"));
await state(app, thread("t2"));
await update(app, thread("t2"), { n: 7 }, "r");
await state(app, thread("t2"));
await stream(app, null, thread("t2"), ["updates"]);
await state(app, thread("t2"));
