// Three levels (app > mid > inner), interrupt() in the innermost: streamed with subgraphs,
// state with subgraphs while paused, resumed by value (streamed with subgraphs), history.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, emit, THREAD } from "./transcript.mjs";
const runs = { i1: 0, m1: 0, a: 0 };
const inner = new StateGraph(TraceState)
  .addNode("i1", () => { ++runs.i1; return { trace: ["i1"] }; })
  .addNode("ask", () => ({ trace: ["inner:" + interrupt("deep question")] }))
  .addEdge(START, "i1").addEdge("i1", "ask").compile();
const mid = new StateGraph(TraceState)
  .addNode("m1", () => { ++runs.m1; return { trace: ["m1"] }; }).addNode("inner", inner).addNode("m2", tracer("m2"))
  .addEdge(START, "m1").addEdge("m1", "inner").addEdge("inner", "m2").compile();
const app = new StateGraph(TraceState)
  .addNode("a", () => { ++runs.a; return { trace: ["a"] }; }).addNode("mid", mid).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "mid").addEdge("mid", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD, true);
await state(app, THREAD);
await stream(app, new Command({ resume: "deep" }), THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
await history(app, THREAD);
emit({ runs });
