// tasks (with updates) and debug parts of a node failing once then succeeding under a retry
// policy, between two nodes: which task and task-result parts the retry shows.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, quickRetry, stream, emit, THREAD } from "./transcript.mjs";
let calls = 0;
const g = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("flaky", () => { if (++calls % 2 === 1) throw new Error("first try fails"); return { trace: ["flaky"] }; },
    { retryPolicy: quickRetry(2) })
  .addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "flaky").addEdge("flaky", "z");
await stream(g.compile(), { n: 1 }, {}, ["tasks", "updates"]);
await stream(g.compile({ checkpointer: new MemorySaver() }), { n: 1 }, THREAD, ["debug"]);
emit({ calls });
