// Three levels of async nodes, the innermost interrupting; resumed.
import { StateGraph, START, MemorySaver, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, emit, THREAD } from "./transcript.mjs";
import { coTrace, coQuiet, coAsk } from "./co_helpers.mjs";
const calls = { n: 0 };
const inner = new StateGraph(TraceState)
  .addNode("i1", coTrace("i1", 10)).addNode("iask", coAsk("iask", "deep", calls))
  .addEdge(START, "i1").addEdge("i1", "iask").compile();
const mid = new StateGraph(TraceState)
  .addNode("m1", coQuiet("m1", 5)).addNode("inner", inner).addNode("m2", coQuiet("m2", 5))
  .addEdge(START, "m1").addEdge("m1", "inner").addEdge("inner", "m2").compile();
const app = new StateGraph(TraceState)
  .addNode("p1", coQuiet("p1", 5)).addNode("mid", mid).addNode("p2", tracer("p2"))
  .addEdge(START, "p1").addEdge("p1", "mid").addEdge("mid", "p2").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "custom"], { subgraphs: true });
await state(app, THREAD, true);
await stream(app, new Command({ resume: "bottom" }), THREAD, ["updates", "values"], { subgraphs: true });
emit({ calls: calls.n });
await state(app, THREAD);
