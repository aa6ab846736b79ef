// A deferred node inside a subgraph, reached from branches of different lengths: it runs once
// inside the subgraph, after the longer branch; streamed with subgraphs.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("x", tracer("x")).addNode("y", tracer("y")).addNode("y2", tracer("y2"))
  .addNode("d", tracer("d"), { defer: true })
  .addEdge(START, "x").addEdge(START, "y").addEdge("y", "y2").addEdge("x", "d").addEdge("y2", "d").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub).addNode("p", tracer("p")).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge(START, "p").addEdge("sub", "z")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"], { subgraphs: true });
await state(app, THREAD);
