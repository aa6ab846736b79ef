// bulk_update_state: two nodes' updates in one superstep fold into a non-commutative reducer in
// list order, a second superstep follows; on a new thread, then the run continues from it.
import { StateGraph, START, Annotation, MemorySaver } from "@langchain/langgraph";
import { append, stream, invoke, state, emit, errorLine, THREAD, thread } from "./transcript.mjs";
const State = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  n: Annotation(),
  log: Annotation({ reducer: (a, b) => a + "|" + b, default: () => "" }),
  total: Annotation({ reducer: (a, b) => a + b, default: () => 0 }),
});
const g = new StateGraph(State);
for (const n of ["zeta", "alpha"]) g.addNode(n, () => ({ log: n })).addEdge(START, n);
g.addNode("fin", (s) => ({ trace: ["fin:" + s.log + ":" + s.total] })).addEdge(["zeta", "alpha"], "fin");
const app = g.compile({ checkpointer: new MemorySaver() });
async function bulk(config, supersteps) {
  try {
    emit({ config: await app.bulkUpdateState(config, supersteps) });
  } catch (e) {
    emit(errorLine(e));
  }
}
await invoke(app, { log: "in" }, THREAD);
await bulk(THREAD, [
  { updates: [{ values: { log: "Z", total: 1 }, asNode: "zeta" }, { values: { log: "A", total: 2 }, asNode: "alpha" }] },
  { updates: [{ values: { log: "F" }, asNode: "fin" }] },
]);
await state(app, THREAD);
await bulk(thread("t2"), [
  { updates: [{ values: { log: "Z" }, asNode: "zeta" }, { values: { log: "A", total: 2 }, asNode: "alpha" }] },
]);
await state(app, thread("t2"));
await stream(app, null, thread("t2"), ["updates", "values"]);
