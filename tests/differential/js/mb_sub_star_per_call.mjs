// A per-call interruptBefore ["*"] on a parent holding a subgraph: whether the subgraph's nodes
// pause too; null resumes (with the same option) until the end.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("s1", tracer("s1")).addNode("s2", tracer("s2"))
  .addEdge(START, "s1").addEdge("s1", "s2").compile();
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
const cfg = { ...THREAD, interruptBefore: "*" };
await stream(app, { n: 1 }, cfg, ["updates"], { subgraphs: true });
for (let i = 0; i < 4; i++) {
  await state(app, THREAD);
  await stream(app, null, cfg, ["updates"], { subgraphs: true });
}
await state(app, THREAD);
