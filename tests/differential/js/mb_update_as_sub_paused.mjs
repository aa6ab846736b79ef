// update_state on the parent as the subgraph node while the subgraph is paused inside: the
// subgraph task counts as done; state with subgraphs; a null run goes on after it.
import { StateGraph, START, MemorySaver, interrupt } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, update, emit, THREAD } from "./transcript.mjs";
let s1 = 0;
const sub = new StateGraph(TraceState)
  .addNode("s1", () => { ++s1; return { trace: ["s1"] }; })
  .addNode("ask", () => ({ trace: ["ask:" + interrupt("q")] }))
  .addEdge(START, "s1").addEdge("s1", "ask").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
await update(app, THREAD, { trace: ["as sub"] }, "sub");
await state(app, THREAD, true);
await stream(app, null, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
emit({ s1 });
