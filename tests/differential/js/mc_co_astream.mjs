// (C++: astream from a coroutine, ainvoke) An async node beside a subgraph whose async node
// interrupts; resumed; then invoke on a second thread, paused and resumed.
import { StateGraph, START, MemorySaver, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, invoke, emit, THREAD, thread } from "./transcript.mjs";
import { coTrace, coAsk } from "./co_helpers.mjs";
const calls = { n: 0 };
const sub = new StateGraph(TraceState)
  .addNode("s1", coTrace("s1", 10)).addNode("ask", coAsk("ask", "aq", calls))
  .addEdge(START, "s1").addEdge("s1", "ask").compile();
const app = new StateGraph(TraceState)
  .addNode("pc", coTrace("pc", 150)).addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "pc").addEdge(START, "sub").addEdge(["pc", "sub"], "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "custom", "values"], { subgraphs: true });
await stream(app, new Command({ resume: "A" }), THREAD, ["updates", "custom", "values"], { subgraphs: true });
emit({ calls: calls.n });
await state(app, THREAD);
await invoke(app, { n: 2 }, thread("t2"));
await invoke(app, new Command({ resume: "B" }), thread("t2"));
