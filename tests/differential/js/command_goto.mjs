// A node returning Command: update plus goto a node and a Send.
import { StateGraph, START, Command, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", () => new Command({ update: { trace: ["a"] }, goto: ["b", new Send("c", { n: 7 })] }), { ends: ["b", "c"] })
  .addNode("b", tracer("b"))
  .addNode("c", (s) => ({ trace: ["c" + s.n] }))
  .addEdge(START, "a").compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
