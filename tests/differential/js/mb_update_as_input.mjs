// update_state on a fresh thread and on a finished one with asNode "__input__" and "__start__",
// then a null run: which node runs.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, update, invoke, thread } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b"))
  .addEdge(START, "a").addEdge("a", "b")
  .compile({ checkpointer: new MemorySaver() });
await update(app, thread("t1"), { n: 3, trace: ["u"] }, "__start__");
await state(app, thread("t1"));
await stream(app, null, thread("t1"), ["updates", "values"]);
await invoke(app, { n: 1 }, thread("t2"));
await update(app, thread("t2"), { n: 4 }, "__start__");
await state(app, thread("t2"));
await stream(app, null, thread("t2"), ["updates"]);
await update(app, thread("t3"), { n: 5 }, "__input__");
await state(app, thread("t3"));
