// get_graph(): the nodes and edges (source, target, conditional) of a graph with a path map,
// a router without one, a join and a static chain; sorted.
import { StateGraph, START, END } from "@langchain/langgraph";
import { emit, TraceState, tracer } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c")).addNode("d", tracer("d"))
  .addEdge(START, "a")
  .addConditionalEdges("a", () => "x", { x: "b", y: END })
  .addConditionalEdges("b", () => "c")
  .addEdge(["b", "c"], "d").addEdge("d", END)
  .compile();
const g = await app.getGraph();
emit({ nodes: Object.keys(g.nodes).sort() });
emit({ edges: g.edges.map((e) => `${e.source}->${e.target}${e.conditional ? " (cond)" : ""}`).sort() });
