// Two Send tasks with a retry policy: w1 fails on its first attempt then interrupts; w2 runs
// once. Resume by value: w1 runs again and finishes; then reduce.
import { StateGraph, START, MemorySaver, Send, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, quickRetry, stream, state, emit, THREAD } from "./transcript.mjs";
const calls = {};
const app = new StateGraph(TraceState)
  .addNode("w", (s) => {
    const k = (calls["w" + s.n] = (calls["w" + s.n] ?? 0) + 1);
    if (s.n === 1 && k === 1) throw new Error("w1 first attempt");
    if (s.n === 1) return { trace: ["w1:" + interrupt("w1?") + ":" + k] };
    return { trace: ["w" + s.n] };
  }, { retryPolicy: quickRetry(3) })
  .addNode("reduce", tracer("reduce"))
  .addConditionalEdges(START, () => [1, 2].map((n) => new Send("w", { n })))
  .addEdge("w", "reduce")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 0 }, THREAD, ["updates"]);
emit({ calls });
await state(app, THREAD);
await stream(app, new Command({ resume: "ok" }), THREAD, ["updates", "values"]);
emit({ calls });
