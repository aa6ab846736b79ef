// A subgraph compiled with interruptBefore (then interruptAfter) of its own nodes, plain nodes,
// streamed with subgraphs in updates+values; resumed with null.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, thread } from "./transcript.mjs";
for (const before of [true, false]) {
  const sub = new StateGraph(TraceState)
    .addNode("s1", tracer("s1")).addNode("s2", tracer("s2"))
    .addEdge(START, "s1").addEdge("s1", "s2")
    .compile(before ? { interruptBefore: ["s2"] } : { interruptAfter: ["s1"] });
  const app = new StateGraph(TraceState)
    .addNode("sub", sub).addNode("z", tracer("z"))
    .addEdge(START, "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
  const tid = before ? "t1" : "t2";
  await stream(app, { n: 1 }, thread(tid), ["updates", "values"], { subgraphs: true });
  await stream(app, null, thread(tid), ["updates", "values"], { subgraphs: true });
}
