// tasks, updates and values parts when interruptBefore names the target of two Sends: the
// pause, and the null-input continuation running the Send tasks.
import { StateGraph, START, MemorySaver, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream, thread } from "./transcript.mjs";
const T1 = thread("t1");
const app = new StateGraph(TraceState)
  .addNode("w", (s) => ({ trace: ["w" + s.n] }))
  .addNode("z", tracer("z"))
  .addConditionalEdges(START, () => [1, 2].map((n) => new Send("w", { n })))
  .addEdge("w", "z").compile({ checkpointer: new MemorySaver(), interruptBefore: ["w"] });
await stream(app, { n: 0 }, T1, ["tasks", "updates", "values"]);
await stream(app, null, T1, ["tasks", "updates", "values"]);
