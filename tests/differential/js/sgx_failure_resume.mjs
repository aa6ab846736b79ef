// A node inside a subgraph fails on its first run (plain exception); resumed with null input.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, emit, THREAD } from "./transcript.mjs";
const runs = { s1: 0, flaky: 0, a: 0 };
const sub = new StateGraph(TraceState)
  .addNode("s1", () => { ++runs.s1; return { trace: ["s1"] }; })
  .addNode("flaky", () => { if (++runs.flaky === 1) throw new Error("first time fails"); return { trace: ["flaky"] }; })
  .addNode("s3", tracer("s3"))
  .addEdge(START, "s1").addEdge("s1", "flaky").addEdge("flaky", "s3").compile();
const app = new StateGraph(TraceState)
  .addNode("a", () => { ++runs.a; return { trace: ["a"] }; }).addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD, true);
await stream(app, null, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
emit({ runs });
