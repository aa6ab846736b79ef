// Five modes at once (custom, tasks, updates, values, checkpoints, requested in two orders):
// the order of parts within a step of two parallel nodes (the first writing a custom chunk) and
// of the step after them (a node writing one).
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, thread } from "./transcript.mjs";
const writer = (name, chunk) => (s, config) => { config.writer(chunk); return { trace: [name] }; };
const app = new StateGraph(TraceState)
  .addNode("a", writer("a", "a-chunk")).addNode("b", tracer("b")).addNode("j", writer("j", "j-chunk"))
  .addEdge(START, "a").addEdge(START, "b").addEdge("a", "j").addEdge("b", "j")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, thread("t1"), ["custom", "tasks", "updates", "values", "checkpoints"]);
await stream(app, { n: 1 }, thread("t2"), ["checkpoints", "values", "updates", "tasks", "custom"]);
