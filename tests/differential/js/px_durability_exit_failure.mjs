// Durability "exit" and a node failing mid-run: what is stored (state, history), then null
// input runs the failed node again and the history after.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, THREAD } from "./transcript.mjs";
let calls = 0;
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("flaky", () => {
    if (calls++ === 0) throw new Error("boom");
    return { trace: ["flaky"] };
  })
  .addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "flaky").addEdge("flaky", "c")
  .compile({ checkpointer: new MemorySaver() });
const cfg = { ...THREAD, durability: "exit" };
await stream(app, { n: 1 }, cfg, ["updates"]);
await state(app, THREAD);
await history(app, THREAD);
await stream(app, null, cfg, ["updates", "values"]);
await history(app, THREAD);
