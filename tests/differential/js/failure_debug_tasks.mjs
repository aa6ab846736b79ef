// Stream modes debug and tasks when a node fails, with a checkpointer and (tasks) without one.
// The failing node is alone in its step: with tasks/debug LangGraph.js aborts a
// sibling still running (its abort signal, docs/persistence.md), which depends on timing.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, thread } from "./transcript.mjs";
const g = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("boom", () => { throw new Error("boom"); })
  .addEdge(START, "a").addEdge("a", "boom");
await stream(g.compile({ checkpointer: new MemorySaver() }), { n: 1 }, thread("t1"), ["debug"]);
await stream(g.compile({ checkpointer: new MemorySaver() }), { n: 1 }, thread("t2"), ["tasks"]);
await stream(g.compile(), { n: 1 }, {}, ["tasks"]);
