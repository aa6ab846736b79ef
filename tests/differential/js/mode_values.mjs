// values mode alone, with an input that sets every key; a node writing a plain key.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", (s) => ({ n: s.n + 1, trace: ["a"] })).addNode("b", (s) => ({ n: s.n * 10 }))
  .addEdge(START, "a").addEdge("a", "b").compile();
await stream(app, { n: 1, trace: ["in"] }, {}, ["values"]);
