// A subgraph node run twice in one thread (the parent loops back to it once): it interrupts
// each time; each run is resumed; namespaces in stream parts, state and history.
import { StateGraph, START, END, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("s1", tracer("s1"))
  .addNode("ask", () => ({ trace: ["ask:" + interrupt("q")] }))
  .addEdge(START, "s1").addEdge("s1", "ask").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub)
  .addNode("count", (s) => ({ n: s.n + 1, trace: ["count"] }))
  .addEdge(START, "sub").addEdge("sub", "count")
  .addConditionalEdges("count", (s) => (s.n < 3 ? "sub" : END))
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"], { subgraphs: true });
await state(app, THREAD, true);
await stream(app, new Command({ resume: "one" }), THREAD, ["updates"], { subgraphs: true });
await state(app, THREAD, true);
await stream(app, new Command({ resume: "two" }), THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
await history(app, THREAD);
