// The run after updateState on a thread paused by interruptBefore: updates, values and tasks
// parts (without asNode); debug parts (after an update as the paused node).
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, update, thread } from "./transcript.mjs";
const T1 = thread("t1"), T2 = thread("t2");
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "c")
  .compile({ checkpointer: new MemorySaver(), interruptBefore: ["b"] });
await stream(app, { n: 1 }, T1, ["updates"]);
await update(app, T1, { n: 5, trace: ["edit"] });
await stream(app, null, T1, ["updates", "values", "tasks"]);
await stream(app, { n: 1 }, T2, ["updates"]);
await update(app, T2, { trace: ["as b"] }, "b");
await stream(app, null, T2, ["debug"]);
