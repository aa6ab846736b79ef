// The recursion limit at its boundary in nested subgraphs: each graph counts its own steps.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream, invoke, note } from "./transcript.mjs";
const inner = new StateGraph(TraceState)
  .addNode("i1", tracer("i1")).addNode("i2", tracer("i2")).addNode("i3", tracer("i3")).addNode("i4", tracer("i4"))
  .addEdge(START, "i1").addEdge("i1", "i2").addEdge("i2", "i3").addEdge("i3", "i4").compile();
const mid = new StateGraph(TraceState)
  .addNode("m1", tracer("m1")).addNode("inner", inner)
  .addEdge(START, "m1").addEdge("m1", "inner").compile();
const app = new StateGraph(TraceState)
  .addNode("p1", tracer("p1")).addNode("mid", mid).addNode("p3", tracer("p3"))
  .addEdge(START, "p1").addEdge("p1", "mid").addEdge("mid", "p3").compile();
for (const limit of [3, 4, 5]) {
  note("limit " + limit);
  await invoke(app, { n: 1 }, { recursionLimit: limit });
  await stream(app, { n: 1 }, { recursionLimit: limit }, ["updates"], { subgraphs: true });
}
