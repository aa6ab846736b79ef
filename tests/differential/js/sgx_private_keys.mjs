// A subgraph whose schema has a private key (absent from the parent), a shared key with a
// different reducer (parent LastValue, child sum), and a shared append key: what the parent
// receives and what get_state shows.
import { StateGraph, START, MemorySaver, Annotation } from "@langchain/langgraph";
import { append, stream, state, THREAD } from "./transcript.mjs";
const Parent = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  total: Annotation(),
  pub: Annotation(),
});
const Child = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  total: Annotation({ reducer: (a, b) => a + b, default: () => 0 }),
  secret: Annotation(),
  scratch: Annotation({ reducer: append, default: () => [] }),
});
const sub = new StateGraph(Child)
  .addNode("c1", (s) => ({ trace: ["c1"], total: 10, secret: "s:" + s.total, scratch: ["x"] }))
  .addNode("c2", (s) => ({ trace: ["c2:" + s.secret], total: 5, scratch: ["y"] }))
  .addEdge(START, "c1").addEdge("c1", "c2").compile();
const app = new StateGraph(Parent)
  .addNode("p", () => ({ trace: ["p"], total: 1, pub: "P" })).addNode("sub", sub).addNode("q", (s) => ({ trace: ["q:" + s.total] }))
  .addEdge(START, "p").addEdge("p", "sub").addEdge("sub", "q").compile({ checkpointer: new MemorySaver() });
await stream(app, { trace: ["in"] }, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
await stream(app, { total: 100 }, THREAD, ["updates"], { subgraphs: true });
await state(app, THREAD);
