// Every mode but messages at once, with a checkpointer, over a fan-out and a custom chunk.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", (s, config) => { config.writer({ from: "a" }); return { trace: ["a"] }; })
  .addNode("b", tracer("b")).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("a", "c").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["values", "updates", "tasks", "custom", "checkpoints", "debug"]);
