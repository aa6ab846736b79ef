// updates (alone) when a node interrupts beside a sibling that writes, one that returns {} and
// ends (it writes nothing at all) and one that returns {} with an edge on; the invoke result of
// the same; resumed with updates. The finished siblings are not run again on resume (LangGraph
// saves a "no writes" marker for a task that wrote nothing). Nodes are added in name order:
// LangGraph.js lists a snapshot's tasks in that order, superstep by name.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, invoke, state, thread, emit } from "./transcript.mjs";
const calls = { e: 0, e2: 0 };
const app = new StateGraph(TraceState)
  .addNode("ask", () => ({ trace: ["ask:" + interrupt({ q: "ok?" })] }))
  .addNode("e", () => { ++calls.e; return {}; })
  .addNode("e2", () => { ++calls.e2; return {}; })
  .addNode("f", tracer("f"))
  .addNode("w", tracer("w"))
  .addEdge(START, "ask").addEdge(START, "e").addEdge(START, "e2").addEdge(START, "w").addEdge("e2", "f")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, thread("t1"), ["updates"]);
emit(calls);
await state(app, thread("t1"));
await stream(app, new Command({ resume: "fine" }), thread("t1"), ["updates"]);
emit(calls);
await invoke(app, { n: 1 }, thread("t2"));
await invoke(app, new Command({ resume: "fine" }), thread("t2"));
emit(calls);
