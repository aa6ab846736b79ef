// Two subgraphs of async nodes and a parent async node in one step, streamed with subgraphs.
// (C++: on the one-worker pool; mc_co_two_subs_shared imports this file for the shared pool.)
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream, invoke } from "./transcript.mjs";
import { coTrace, coQuiet, coLateTrace } from "./co_helpers.mjs";
const sub = (p, lead, ms) => new StateGraph(TraceState)
  .addNode(p + "1", coLateTrace(p + "1", lead, ms)).addNode(p + "2", coQuiet(p + "2", ms))
  .addEdge(START, p + "1").addEdge(p + "1", p + "2").compile();
const app = new StateGraph(TraceState)
  .addNode("A", sub("a", 0, 100)).addNode("B", sub("b", 30, 200)).addNode("pc", coLateTrace("pc", 60, 110)).addNode("z", tracer("z"))
  .addEdge(START, "A").addEdge(START, "B").addEdge(START, "pc").addEdge(["A", "B", "pc"], "z").compile();
await stream(app, { trace: ["in"] }, {}, ["updates", "custom"], { subgraphs: true });
await invoke(app, { trace: ["in"] });
