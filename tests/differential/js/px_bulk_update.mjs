// bulkUpdateState on a thread paused before b and c: b and c in one superstep, then d; the
// state, the newest history entries, and null input afterwards. Then one updateState as d on
// a thread paused before the join d (interruptBefore per call).
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, update, THREAD, thread, emit, errorLine } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c")).addNode("d", tracer("d"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("a", "c").addEdge(["b", "c"], "d")
  .compile({ checkpointer: new MemorySaver(), interruptBefore: ["b", "c"] });
await stream(app, { n: 1 }, THREAD, ["updates"]);
try {
  const cfg = await app.bulkUpdateState(THREAD, [
    { updates: [{ values: { trace: ["B"] }, asNode: "b" }, { values: { trace: ["C"] }, asNode: "c" }] },
    { updates: [{ values: { n: 9 }, asNode: "d" }] },
  ]);
  emit({ config: cfg });
} catch (e) {
  emit(errorLine(e));
}
await state(app, THREAD);
await history(app, THREAD, { limit: 3 });
await stream(app, null, THREAD, ["updates", "values"]);
const T2 = thread("t2");
await stream(app, { n: 1 }, { ...T2, interruptBefore: ["d"] }, ["updates"]);
await update(app, T2, { n: 9 }, "d");
await state(app, T2);
await stream(app, null, T2, ["updates", "values"]);
