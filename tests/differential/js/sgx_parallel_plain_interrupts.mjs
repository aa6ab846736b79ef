// A subgraph node and a plain node in the same step; the plain node interrupts, the subgraph
// finishes; resume (the subgraph does not run again).
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, emit, THREAD } from "./transcript.mjs";
const runs = { s1: 0, s2: 0 };
const sub = new StateGraph(TraceState)
  .addNode("s1", () => { ++runs.s1; return { trace: ["s1"] }; })
  .addNode("s2", () => { ++runs.s2; return { trace: ["s2"] }; })
  .addEdge(START, "s1").addEdge("s1", "s2").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub).addNode("user", () => ({ trace: ["user:" + interrupt("plain q")] })).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge(START, "user").addEdge("sub", "z").addEdge("user", "z")
  .compile({ checkpointer: new MemorySaver() });
// (The two tasks run in parallel: the first run streams only the parent's parts.)
await stream(app, { n: 1 }, THREAD, ["updates", "values"]);
await state(app, THREAD, true);
await stream(app, new Command({ resume: "ok" }), THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
await history(app, THREAD);
emit({ runs });
