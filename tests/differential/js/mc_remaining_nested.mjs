// RemainingSteps seen by nodes at each level of a nested subgraph (an async node too).
// LangGraph.js has no RemainingSteps: a node computes it as LangGraph does (js/remaining_steps.mjs),
// stop - step with stop = recursionLimit on a fresh run; a subgraph counts its own steps.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, invoke } from "./transcript.mjs";
import { sleep } from "./co_helpers.mjs";
const LIMIT = 6;
const rem = (name) => (s, config) => ({ trace: [`${name}:${LIMIT - config.metadata.langgraph_step}`] });
const inner = new StateGraph(TraceState)
  .addNode("i1", rem("i1"))
  .addNode("i2", async (s, config) => { const r = LIMIT - config.metadata.langgraph_step; await sleep(2); return { trace: [`i2:${r}`] }; })
  .addEdge(START, "i1").addEdge("i1", "i2").compile();
const app = new StateGraph(TraceState)
  .addNode("p1", rem("p1")).addNode("p2", rem("p2")).addNode("inner", inner)
  .addEdge(START, "p1").addEdge("p1", "p2").addEdge("p2", "inner").compile();
await invoke(app, { n: 1 }, { recursionLimit: LIMIT });
