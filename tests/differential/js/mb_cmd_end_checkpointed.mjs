// A node returning Command(update, goto END) beside a static edge, checkpointed: values,
// updates and checkpoints parts, then the state and history.
import { StateGraph, START, END, MemorySaver, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", () => new Command({ update: { trace: ["a"], n: 2 }, goto: END }))
  .addNode("b", tracer("b"))
  .addNode("c", (s) => new Command({ update: { trace: ["c" + s.n] }, goto: END }))
  .addEdge(START, "a").addEdge(START, "c").addEdge("a", "b")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["values", "updates", "checkpoints"]);
await state(app, THREAD);
await history(app, THREAD);
