// A run fails; a new input on that thread starts over (the failed task is dropped); then a null
// input on a thread whose last run failed retries the failed node.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, thread, emit } from "./transcript.mjs";
let calls = 0;
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("flaky", (s) => { ++calls; if (s.n === 1) throw new Error("n is 1"); return { trace: ["flaky" + s.n] }; })
  .addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "flaky").addEdge("flaky", "z")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, thread("t1"), ["updates"]);
await state(app, thread("t1"));
await stream(app, { n: 2 }, thread("t1"), ["updates", "values"]);
await state(app, thread("t1"));
emit({ calls });
