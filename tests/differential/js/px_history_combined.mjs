// getStateHistory with filter + limit, filter on step, on source and step, filter + before,
// filter + before + limit, before + limit, and a filter nothing matches.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, invoke, history, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b"))
  .addEdge(START, "a").addEdge("a", "b").compile({ checkpointer: new MemorySaver() });
await invoke(app, { n: 1 }, THREAD);
await invoke(app, { n: 2 }, THREAD);
await history(app, THREAD, { filter: { source: "loop" }, limit: 2 });
await history(app, THREAD, { filter: { step: 1 } });
await history(app, THREAD, { filter: { source: "loop", step: 2 } });
const all = [];
for await (const s of app.getStateHistory(THREAD)) all.push(s);
await history(app, THREAD, { filter: { source: "loop" }, before: all[2].config });
await history(app, THREAD, { filter: { source: "input" }, before: all[1].config, limit: 1 });
await history(app, THREAD, { before: all[6].config, limit: 5 });
await history(app, THREAD, { filter: { source: "update" } });
