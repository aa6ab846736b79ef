// debug mode with a checkpointer: checkpoint, task and task_result events.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addEdge(START, "a").addEdge("a", "b")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["debug"]);
