// values, updates, custom and tasks with subgraphs: a subgraph with two parallel nodes (the
// first writing a custom chunk) and a node after both, between two parent nodes; namespaces of
// each part. Then updates and tasks without subgraphs (only the parent's parts).
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream, note } from "./transcript.mjs";
const writer = (name, chunk) => (s, config) => { config.writer(chunk); return { trace: [name] }; };
const sub = new StateGraph(TraceState)
  .addNode("p", writer("p", { from: "p" })).addNode("q", tracer("q")).addNode("r", tracer("r"))
  .addEdge(START, "p").addEdge(START, "q").addEdge("p", "r").addEdge("q", "r").compile();
const app = new StateGraph(TraceState)
  .addNode("a", writer("a", "a-chunk")).addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "sub").addEdge("sub", "z").compile();
await stream(app, { n: 1 }, {}, ["values", "updates", "custom", "tasks"], { subgraphs: true });
note("without subgraphs");
await stream(app, { n: 1 }, {}, ["updates", "tasks"]);
