// getStateHistory with a metadata filter, a limit and before.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, invoke, history, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b"))
  .addEdge(START, "a").addEdge("a", "b").compile({ checkpointer: new MemorySaver() });
await invoke(app, { n: 1 }, THREAD);
await invoke(app, { n: 2 }, THREAD);
await history(app, THREAD, { filter: { source: "input" } });
await history(app, THREAD, { limit: 2 });
const all = [];
for await (const s of app.getStateHistory(THREAD)) all.push(s);
await history(app, THREAD, { before: all[3].config, limit: 3 });
