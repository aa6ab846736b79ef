// A fork: updateState as node "b" at the past checkpoint before b, continued from the fork;
// the history across the fork (parent ids) and the past checkpoint, unchanged.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, invoke, stream, history, state, update, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "c").compile({ checkpointer: new MemorySaver() });
await invoke(app, { n: 1 }, THREAD);
const findNext = async (next) => {
  for await (const s of app.getStateHistory(THREAD)) if (JSON.stringify(s.next) === JSON.stringify(next)) return s.config;
  return THREAD;
};
const beforeB = await findNext(["b"]);
const forked = await update(app, beforeB, { trace: ["fork-b"], n: 2 }, "b");
if (forked) await state(app, forked);
if (forked) await stream(app, null, forked, ["updates", "values"]);
await history(app, THREAD);
await state(app, beforeB);
