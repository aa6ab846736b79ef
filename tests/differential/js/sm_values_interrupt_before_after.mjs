// values parts around interruptBefore and interruptAfter of the same node (compile time): the
// first and last value of each run and of each null-input continuation; then interruptAfter
// per call with updates.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, thread } from "./transcript.mjs";
const T1 = thread("t1"), T2 = thread("t2");
const g = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("b", (s) => ({ trace: ["b"], n: s.n + 1 }))
  .addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "c");
const app = g.compile({ checkpointer: new MemorySaver(), interruptBefore: ["b"], interruptAfter: ["b"] });
await stream(app, { n: 1 }, T1, ["values"]);
await stream(app, null, T1, ["values"]);
await stream(app, null, T1, ["values"]);
await stream(app, null, T1, ["values"]);
const plain = g.compile({ checkpointer: new MemorySaver() });
await stream(plain, { n: 1 }, { ...T2, interruptAfter: ["a"] }, ["values", "updates"]);
await stream(plain, null, T2, ["values", "updates"]);
