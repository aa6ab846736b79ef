// Config passthrough: configurable values and the run's context, read by a node and by a node
// inside a subgraph.
import { StateGraph, START } from "@langchain/langgraph";
import { invoke, TraceState } from "./transcript.mjs";
const reader = (name) => (s, config) => ({ trace: [`${name}:user=${config.configurable?.user ?? "none"}:tenant=${config.context?.tenant ?? "none"}`] });
const sub = new StateGraph(TraceState).addNode("inner", reader("inner")).addEdge(START, "inner").compile();
const app = new StateGraph(TraceState).addNode("a", reader("a")).addNode("sub", sub)
  .addEdge(START, "a").addEdge("a", "sub").compile();
await invoke(app, { n: 1 }, { configurable: { user: "u1" }, context: { tenant: "acme" } });
await invoke(app, { n: 2 });
