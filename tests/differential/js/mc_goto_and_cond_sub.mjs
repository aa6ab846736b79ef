// mc_goto_and_cond's graph as a subgraph, streamed with subgraphs.
import { StateGraph, START, END, MemorySaver, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("r", (s) => new Command({ update: { trace: ["r"], n: s.n + 1 }, goto: "x" }), { ends: ["x", "y"] })
  .addNode("x", tracer("x")).addNode("y", tracer("y")).addNode("w", tracer("w"))
  .addEdge(START, "r")
  .addConditionalEdges("r", (s) => (s.n >= 2 ? "y" : END))
  .addEdge("x", "w").addEdge("y", "w").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["values", "updates"], { subgraphs: true });
await state(app, THREAD);
