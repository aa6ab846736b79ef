// Durability "sync" and "async" with interruptBefore: the same history either way, before and
// after continuing with null input.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, history, thread } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "c")
  .compile({ checkpointer: new MemorySaver(), interruptBefore: ["b"] });
for (const [id, durability] of [["t1", "sync"], ["t2", "async"]]) {
  await stream(app, { n: 1 }, { ...thread(id), durability }, ["updates"]);
  await history(app, thread(id));
  await stream(app, null, { ...thread(id), durability }, ["updates", "values"]);
  await history(app, thread(id));
}
