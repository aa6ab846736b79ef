// get_state / history of a thread whose last run failed inside a subgraph (an async node beside
// the failing one), then a resume that succeeds.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, THREAD } from "./transcript.mjs";
import { sleep, coQuiet } from "./co_helpers.mjs";
let fail = true;
const sub = new StateGraph(TraceState)
  .addNode("s1", tracer("s1")).addNode("sco", coQuiet("sco", 5))
  .addNode("boom", async () => { const f = fail; await sleep(30); if (f) throw new Error("sub boom"); return { trace: ["boom"] }; })
  .addEdge(START, "s1").addEdge("s1", "boom").addEdge("s1", "sco").compile();
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"], { subgraphs: true });
await state(app, THREAD);
await history(app, THREAD);
fail = false;
await stream(app, null, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
await history(app, THREAD, { limit: 2 });
