// An async node inside a subgraph interrupts while a parent async node runs beside the
// subgraph; resumed with subgraphs streamed.
import { StateGraph, START, MemorySaver, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, emit, THREAD } from "./transcript.mjs";
import { coTrace, coQuiet, coAsk } from "./co_helpers.mjs";
const calls = { n: 0 };
const sub = new StateGraph(TraceState)
  .addNode("s1", coQuiet("s1", 10)).addNode("ask", coAsk("ask", "sq", calls)).addNode("s3", tracer("s3"))
  .addEdge(START, "s1").addEdge("s1", "ask").addEdge("ask", "s3").compile();
const app = new StateGraph(TraceState)
  .addNode("pc", coTrace("pc", 150)).addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "pc").addEdge(START, "sub").addEdge(["pc", "sub"], "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values", "custom"], { subgraphs: true });
emit({ calls: calls.n });
await state(app, THREAD, true);
await stream(app, new Command({ resume: "ok" }), THREAD, ["updates", "values", "custom"], { subgraphs: true });
emit({ calls: calls.n });
await state(app, THREAD, true);
await history(app, THREAD);
