// stream with a per-call interruptBefore ["*"] on a graph with a Send fan-out, then null
// resumes (without interruptBefore) until it ends: values and updates each time.
import { StateGraph, START, MemorySaver, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("w", (s) => ({ trace: ["w" + s.n] }))
  .addNode("z", tracer("z"))
  .addEdge(START, "a")
  .addConditionalEdges("a", () => [1, 2].map((n) => new Send("w", { n })))
  .addEdge("w", "z")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 0 }, { ...THREAD, interruptBefore: "*" }, ["values", "updates"]);
await state(app, THREAD);
await stream(app, null, { ...THREAD, interruptBefore: "*" }, ["values", "updates"]);
await state(app, THREAD);
await stream(app, null, { ...THREAD, interruptBefore: "*" }, ["values", "updates"]);
await state(app, THREAD);
await stream(app, null, THREAD, ["values", "updates"]);
await state(app, THREAD);
