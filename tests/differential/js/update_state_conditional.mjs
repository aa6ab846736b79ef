// update_state as a node with a conditional edge: its router runs on the updated state and
// decides next.
import { StateGraph, START, END, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, update, invoke, thread } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("r", tracer("r")).addNode("x", tracer("x")).addNode("y", tracer("y"))
  .addEdge(START, "r")
  .addConditionalEdges("r", (s) => (s.n > 10 ? "x" : s.n < 0 ? END : "y"))
  .compile({ checkpointer: new MemorySaver() });
const T1 = thread("t1"), T2 = thread("t2"), T3 = thread("t3");
await invoke(app, { n: 1 }, T1);
await update(app, T1, { n: 42 }, "r");
await state(app, T1);
await stream(app, null, T1, ["updates", "values"]);
await invoke(app, { n: 1 }, T2);
await update(app, T2, { n: -1 }, "r");
await state(app, T2);
await update(app, T3, { n: 5 }, "r");
await state(app, T3);
await stream(app, null, T3, ["updates", "values"]);
