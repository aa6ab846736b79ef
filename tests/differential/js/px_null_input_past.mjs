// Null input at past checkpoints of a finished thread: the input checkpoint (next __start__) and
// the one before c; each replays from there.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, invoke, stream, history, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "c").compile({ checkpointer: new MemorySaver() });
await invoke(app, { n: 1 }, THREAD);
const findNext = async (next) => {
  for await (const s of app.getStateHistory(THREAD)) if (JSON.stringify(s.next) === JSON.stringify(next)) return s.config;
  return THREAD;
};
const input = await findNext(["__start__"]);
const beforeC = await findNext(["c"]);
await stream(app, null, input, ["updates", "values"]);
await stream(app, null, beforeC, ["updates", "values"]);
await history(app, THREAD);
