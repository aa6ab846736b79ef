// values parts when a node interrupts beside a parallel sibling, and on the resume (by value,
// then with an update); then a new input on the finished thread.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, thread } from "./transcript.mjs";
const T1 = thread("t1"), T2 = thread("t2");
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("ask", (s) => ({ trace: ["ask:" + interrupt("q") + ":n=" + s.n] }))
  .addNode("w", tracer("w")).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "ask").addEdge("a", "w").addEdge(["ask", "w"], "z")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, T1, ["values"]);
await stream(app, new Command({ resume: "yes" }), T1, ["values"]);
await stream(app, { n: 1 }, T2, ["values"]);
await stream(app, new Command({ update: { n: 7 }, resume: "up" }), T2, ["values"]);
await stream(app, { n: 2 }, T2, ["values"]);
