// A Command input (update + goto) on a checkpointed thread that finished.
import { StateGraph, START, MemorySaver, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, invoke, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b"))
  .addEdge(START, "a").addEdge("a", "b").compile({ checkpointer: new MemorySaver() });
await invoke(app, { n: 1 }, THREAD);
await stream(app, new Command({ update: { n: 5 }, goto: "b" }), THREAD, ["updates", "values"]);
await state(app, THREAD);
