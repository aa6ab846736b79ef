// custom chunks from every level of a graph nesting a subgraph in a subgraph: with subgraphs
// (their namespaces) and without (are the subgraphs' chunks streamed?).
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, stream, note } from "./transcript.mjs";
const writer = (name, chunk) => (s, config) => { config.writer(chunk); return { trace: [name] }; };
const inner = new StateGraph(TraceState)
  .addNode("i", writer("i", { deep: true })).addEdge(START, "i").compile();
const mid = new StateGraph(TraceState)
  .addNode("m", writer("m", "mid")).addNode("inner", inner)
  .addEdge(START, "m").addEdge("m", "inner").compile();
const app = new StateGraph(TraceState)
  .addNode("top", writer("top", "top")).addNode("mid", mid)
  .addEdge(START, "top").addEdge("top", "mid").compile();
await stream(app, { n: 1 }, {}, ["custom"], { subgraphs: true });
note("without subgraphs");
await stream(app, { n: 1 }, {}, ["custom"]);
await stream(app, { n: 1 }, {}, ["custom", "updates", "values"]);
