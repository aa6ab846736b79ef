// Resuming (null, and a Command resume) on a thread whose run finished.
import { StateGraph, START, MemorySaver, Command } from "@langchain/langgraph";
import { TraceState, tracer, invoke, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addEdge(START, "a").compile({ checkpointer: new MemorySaver() });
await invoke(app, { n: 1 }, THREAD);
await invoke(app, null, THREAD);
await invoke(app, new Command({ resume: "late" }), THREAD);
