// interruptBefore "*" at compile time on a fan-out and join: each null input runs one step
// (LangGraph.js spells "every node" as the string "*", superstep as the list {"*"}).
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c")).addNode("d", tracer("d"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("a", "c").addEdge(["b", "c"], "d")
  .compile({ checkpointer: new MemorySaver(), interruptBefore: "*" });
await stream(app, { n: 1 }, THREAD, ["updates"]);
await state(app, THREAD);
for (let i = 0; i < 3; ++i) {
  await stream(app, null, THREAD, ["updates", "values"]);
  await state(app, THREAD);
}
await history(app, THREAD);
