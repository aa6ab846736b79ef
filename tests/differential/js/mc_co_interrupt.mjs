// An async node interrupts after a sleep; resumed; it runs again from the top.
import { StateGraph, START, MemorySaver, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, emit, THREAD } from "./transcript.mjs";
import { coTrace, coAsk } from "./co_helpers.mjs";
const calls = { n: 0 };
const app = new StateGraph(TraceState)
  .addNode("a", coTrace("a", 5)).addNode("ask", coAsk("ask", "q", calls)).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "ask").addEdge("ask", "c").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values", "custom"]);
emit({ calls: calls.n });
await state(app, THREAD);
await stream(app, new Command({ resume: "yes" }), THREAD, ["updates", "values"]);
emit({ calls: calls.n });
await state(app, THREAD);
await history(app, THREAD);
