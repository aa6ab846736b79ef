// RemainingSteps (LangGraph Python's managed value; superstep's Runtime::remaining_steps):
// LangGraph.js has none, so a node computes it as LangGraph does, stop - step, where the loop
// sets stop = (the thread's last checkpoint step, -2 when none) + 1 + recursionLimit + 1. A node
// loops until 2 steps remain: on a fresh thread, on the same thread with a new input, and when
// resuming a pause.
import { StateGraph, START, END, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, stream, thread } from "./transcript.mjs";
let STOP = 0;
const app = new StateGraph(TraceState)
  .addNode("gate", (s) => ({ trace: ["gate:" + (s.n === 1 ? interrupt("go?") : "-")] }))
  .addNode("a", (s, config) => ({ trace: ["r" + (STOP - config.metadata.langgraph_step)], n: STOP - config.metadata.langgraph_step }))
  .addEdge(START, "gate").addEdge("gate", "a")
  .addConditionalEdges("a", (s) => (s.n <= 2 ? END : "a"))
  .compile({ checkpointer: new MemorySaver() });
async function run(input, cfg, limit) {
  const prev = (await app.getState(cfg)).metadata?.step ?? -2;
  STOP = prev + 1 + limit + 1;
  await stream(app, input, { ...cfg, recursionLimit: limit }, ["updates"]);
}
await run({ n: 0 }, thread("t1"), 6);
await run({ n: 0 }, thread("t1"), 7);
await run({ n: 1 }, thread("t2"), 8);
await run(new Command({ resume: "go" }), thread("t2"), 6);
