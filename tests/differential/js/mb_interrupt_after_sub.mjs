// interruptAfter a subgraph node (compile time): the pause comes after the subgraph finished;
// state with subgraphs; resume with null.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("s1", tracer("s1")).addNode("s2", tracer("s2"))
  .addEdge(START, "s1").addEdge("s1", "s2").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge("sub", "z")
  .compile({ checkpointer: new MemorySaver(), interruptAfter: ["sub"] });
await stream(app, { n: 1 }, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD, true);
await stream(app, null, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
