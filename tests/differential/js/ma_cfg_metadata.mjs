// A run's metadata and custom configurable keys in checkpoint metadata, seen through history
// filters (how many snapshots match, at which steps).
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { emit, thread, TraceState, tracer } from "./transcript.mjs";
const app = new StateGraph(TraceState).addNode("a", tracer("a")).addNode("b", tracer("b"))
  .addEdge(START, "a").addEdge("a", "b").compile({ checkpointer: new MemorySaver() });
await app.invoke({ n: 1 }, { configurable: { thread_id: "t1", tenant: "acme" }, metadata: { user: "u1" } });
await app.invoke({ n: 2 }, { configurable: { thread_id: "t1" }, metadata: { user: "u2" } });
for (const filter of [{ user: "u1" }, { user: "u2" }, { tenant: "acme" }, { source: "input" }]) {
  const steps = [];
  for await (const s of app.getStateHistory(thread("t1"), { filter })) steps.push(s.metadata.step);
  emit({ filter, steps });
}
