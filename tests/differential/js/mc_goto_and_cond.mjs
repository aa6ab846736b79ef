// A step with both a Command goto and a conditional edge out of one node (different targets and
// the same one), streamed in values+updates; checkpointed with state and history.
import { StateGraph, START, END, MemorySaver, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, thread } from "./transcript.mjs";
const gotoCond = (go, cond) => new StateGraph(TraceState)
  .addNode("r", (s) => new Command({ update: { trace: ["r"], n: s.n + 1 }, goto: go }), { ends: ["x", "y"] })
  .addNode("x", tracer("x")).addNode("y", tracer("y")).addNode("w", tracer("w"))
  .addEdge(START, "r")
  .addConditionalEdges("r", (s) => (s.n >= 2 ? cond : END))
  .addEdge("x", "w").addEdge("y", "w");
const app = gotoCond("x", "y").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, thread("t1"), ["values", "updates"]);
await state(app, thread("t1"));
await history(app, thread("t1"));
const same = gotoCond("x", "x").compile({ checkpointer: new MemorySaver() });
await stream(same, { n: 1 }, thread("t2"), ["values", "updates"]);
await stream(same, { n: 0 }, thread("t3"), ["values", "updates"]);
await state(same, thread("t3"));
