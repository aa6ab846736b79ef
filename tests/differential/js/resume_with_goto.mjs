// A Command input carrying resume and goto: the paused node resumes and the goto node runs in
// the same step (side is also reached by an edge: LangGraph.js refuses unreachable nodes).
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("ask", () => ({ trace: ["ask:" + interrupt("q")] }))
  .addNode("c", tracer("c")).addNode("side", tracer("side"))
  .addEdge(START, "a").addEdge("a", "ask").addEdge("ask", "c").addEdge("c", "side")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
await stream(app, new Command({ resume: "yes", goto: "side" }), THREAD, ["updates", "values"]);
await state(app, THREAD);
