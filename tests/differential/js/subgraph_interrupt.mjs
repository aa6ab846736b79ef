// interrupt() inside a subgraph pauses the parent; state with subgraphs; resume finishes both.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
let s1Runs = 0;
const sub = new StateGraph(TraceState)
  .addNode("s1", () => { ++s1Runs; return { trace: ["s1"] }; })
  .addNode("ask", () => ({ trace: ["sub:" + interrupt("inner question")] }))
  .addEdge(START, "s1").addEdge("s1", "ask").compile();
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"], { subgraphs: true });
await state(app, THREAD, true);
await stream(app, new Command({ resume: "fine" }), THREAD, ["updates", "values"]);
await state(app, THREAD);
console.error("s1 runs", s1Runs);
