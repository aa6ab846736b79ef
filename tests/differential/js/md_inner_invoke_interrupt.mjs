// A node invokes a compiled graph itself (no checkpointer of its own) whose node interrupts.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, stream, state, THREAD } from "./transcript.mjs";
const inner = new StateGraph(TraceState)
  .addNode("x", () => ({ trace: ["x:" + interrupt("inner q")] }))
  .addEdge(START, "x").compile();
const app = new StateGraph(TraceState)
  .addNode("outer", async (s) => ({ trace: (await inner.invoke({ n: s.n })).trace }))
  .addEdge(START, "outer")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
await state(app, THREAD);
await stream(app, new Command({ resume: "yes" }), THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
