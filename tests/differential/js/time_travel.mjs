// Replay from a past checkpoint (a fork is stored, later steps run again), and a fork made by
// updateState at a past checkpoint, then continued.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, history, state, update, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "c").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
const past = [];
for await (const s of app.getStateHistory(THREAD)) past.push(s);
const beforeB = past.find((s) => s.next[0] === "b").config;
await stream(app, null, beforeB, ["updates", "values"]);
await history(app, THREAD);
const forked = await update(app, beforeB, { n: 99 });
await stream(app, null, forked, ["updates", "values"]);
await state(app, THREAD);
