// History of a parent after its subgraph ran (limit, before, filter), replay from the
// checkpoint before the subgraph, and a fork by update_state there, continued.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, history, state, update, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("s1", tracer("s1")).addNode("s2", tracer("s2")).addEdge(START, "s1").addEdge("s1", "s2").compile();
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"], { subgraphs: true });
await history(app, THREAD);
await history(app, THREAD, { limit: 2 });
const all = [];
for await (const s of app.getStateHistory(THREAD)) all.push(s);
await history(app, THREAD, { before: all[1].config, limit: 2 });
await history(app, THREAD, { filter: { step: 2 } });
const beforeSub = all.find((s) => s.next[0] === "sub").config;
await state(app, beforeSub, true);
await stream(app, null, beforeSub, ["updates", "values"], { subgraphs: true });
const forked = await update(app, beforeSub, { n: 99 });
await stream(app, null, forked, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
await history(app, THREAD, { limit: 3 });
