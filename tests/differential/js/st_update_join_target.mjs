// update_state as each node of a finished thread in turn: as both sources of a join (its target
// becomes next), as the join target itself (is it still next?), as a plain node (its edge's
// target becomes next), as that target; then continuing runs what is next.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, invoke, state, update, stream, THREAD } from "./transcript.mjs";
const g = new StateGraph(TraceState);
for (const n of ["zeta", "alpha", "fin", "solo", "after"]) g.addNode(n, tracer(n));
g.addEdge(START, "zeta").addEdge(START, "alpha").addEdge(["zeta", "alpha"], "fin")
  .addEdge(START, "solo").addEdge("solo", "after");
const app = g.compile({ checkpointer: new MemorySaver() });
await invoke(app, { n: 1 }, THREAD);
for (const [n, v] of [["zeta", 2], ["alpha", 3], ["fin", 4], ["solo", 5], ["after", 6]]) {
  await update(app, THREAD, { n: v }, n);
  await state(app, THREAD);
}
await stream(app, null, THREAD, ["updates", "values"]);
