// Durability "exit": a run stores its checkpoint only when it ends; the history of two such runs.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, history, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "c").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, { ...THREAD, durability: "exit" }, ["updates", "values"]);
await history(app, THREAD);
await stream(app, { n: 2 }, { ...THREAD, durability: "exit" }, ["updates"]);
await history(app, THREAD);
await state(app, THREAD);
