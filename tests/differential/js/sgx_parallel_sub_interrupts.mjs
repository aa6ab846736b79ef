// A subgraph node and a plain node in the same step; the subgraph interrupts, the plain node
// finishes (its writes are kept); resume.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, emit, THREAD } from "./transcript.mjs";
const runs = { plain: 0, s1: 0 };
const sub = new StateGraph(TraceState)
  .addNode("s1", () => { ++runs.s1; return { trace: ["s1"] }; })
  .addNode("ask", () => ({ trace: ["sub:" + interrupt("in sub")] }))
  .addEdge(START, "s1").addEdge("s1", "ask").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub).addNode("worker", () => { ++runs.plain; return { trace: ["worker"] }; }).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge(START, "worker").addEdge(["sub", "worker"], "z")
  .compile({ checkpointer: new MemorySaver() });
// (The two tasks run in parallel: the first run streams only the parent's parts.)
await stream(app, { n: 1 }, THREAD, ["updates", "values"]);
await state(app, THREAD, true);
await stream(app, new Command({ resume: "ok" }), THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
emit({ runs });
