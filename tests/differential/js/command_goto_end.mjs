// A node returning Command goto END: with no static edge the run ends; with a static edge the
// edge still runs. A goto list mixing a node, a Send and END.
import { StateGraph, START, END, Command, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", () => new Command({ update: { trace: ["a"] }, goto: END }), { ends: ["b"] })
  .addNode("b", tracer("b"))
  .addEdge(START, "a").compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
const app2 = new StateGraph(TraceState)
  .addNode("a", () => new Command({ update: { trace: ["a"] }, goto: END }))
  .addNode("b", tracer("b"))
  .addEdge(START, "a").addEdge("a", "b").compile();
await stream(app2, { n: 1 }, {}, ["updates", "values"]);
const app3 = new StateGraph(TraceState)
  .addNode("a", () => new Command({ update: { trace: ["a"] }, goto: [new Send("w", { n: 2 }), "b", END, new Send("w", { n: 3 })] }), { ends: ["b", "w"] })
  .addNode("b", tracer("b"))
  .addNode("w", (s) => ({ trace: ["w" + s.n] }))
  .addEdge(START, "a").compile();
await stream(app3, { n: 1 }, {}, ["updates", "values"]);
