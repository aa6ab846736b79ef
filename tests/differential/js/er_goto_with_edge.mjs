// Command goto [Send, node] from a node that also has a static edge: all are followed (c and b
// both lead to z, which runs once per step it is reached). Then a goto, a static edge and a
// router all naming b (b runs once) plus c.
import { StateGraph, START, Command, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", () => new Command({ update: { trace: ["a"] }, goto: [new Send("w", { n: 2 }), "c"] }), { ends: ["c", "w"] })
  .addNode("b", tracer("b")).addNode("c", tracer("c"))
  .addNode("w", (s) => ({ trace: ["w" + s.n] }))
  .addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "z").addEdge("c", "z")
  .compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
const k = new StateGraph(TraceState)
  .addNode("a", () => new Command({ update: { trace: ["a"] }, goto: ["b", "c"] }), { ends: ["b", "c"] })
  .addNode("b", tracer("b")).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "b")
  .addConditionalEdges("a", () => "b")
  .compile();
await stream(k, { n: 1 }, {}, ["updates", "values"]);
