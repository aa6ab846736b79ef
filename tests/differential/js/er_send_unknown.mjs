// A Send to a node that does not exist: from a router (beside a valid Send) and from a
// Command goto, each with a parallel sibling b.
import { StateGraph, START, Command, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("w", tracer("w"))
  .addEdge(START, "a").addEdge(START, "b")
  .addConditionalEdges("a", () => [new Send("w", { n: 2 }), new Send("nope", { n: 3 })])
  .compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
const k = new StateGraph(TraceState)
  .addNode("a", () => new Command({ update: { trace: ["a"] }, goto: new Send("nope", { n: 3 }) }))
  .addNode("b", tracer("b"))
  .addEdge(START, "a").addEdge(START, "b")
  .compile();
await stream(k, { n: 1 }, {}, ["updates", "values"]);
