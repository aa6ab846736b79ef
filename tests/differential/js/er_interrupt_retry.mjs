// interrupt() in a node with a retry policy: the pause is not retried; after the resume the
// node fails once and its retry gets the same answer. Without a checkpointer, interrupt()'s
// error is not retried either.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, quickRetry, stream, state, emit, THREAD } from "./transcript.mjs";
const calls = {};
const bump = (k) => (calls[k] = (calls[k] ?? 0) + 1);
const app = new StateGraph(TraceState)
  .addNode("ask", () => {
    bump("ask");
    const v = interrupt("q");
    const k = bump("answered");
    if (k === 1) throw new Error("flaky after " + v);
    return { trace: ["ask:" + v + ":" + k] };
  }, { retryPolicy: quickRetry(3) })
  .addNode("c", tracer("c"))
  .addEdge(START, "ask").addEdge("ask", "c")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
emit({ calls });
await stream(app, new Command({ resume: "yes" }), THREAD, ["updates", "values"]);
emit({ calls });
await state(app, THREAD);
const plainCalls = {};
const p = new StateGraph(TraceState)
  .addNode("ask", () => { plainCalls.ask = (plainCalls.ask ?? 0) + 1; return { trace: ["ask:" + interrupt("q")] }; },
    { retryPolicy: quickRetry(3) })
  .addEdge(START, "ask").compile();
await stream(p, { n: 1 }, {}, ["updates"]);
emit({ calls: plainCalls });
