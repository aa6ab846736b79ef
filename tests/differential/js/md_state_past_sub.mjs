// A subgraph interrupts in two nodes one after the other; get_state with subgraphs at the first
// pause's checkpoint, while paused at the second and after the end.
import { StateGraph, START, MemorySaver, Command, interrupt } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, note, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("q1", () => ({ trace: ["q1:" + interrupt("one")] }))
  .addNode("q2", () => ({ trace: ["q2:" + interrupt("two")] }))
  .addEdge(START, "q1").addEdge("q1", "q2").compile();
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "sub").addEdge("sub", "z")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
const first = (await app.getState(THREAD)).config;
await stream(app, new Command({ resume: "A" }), THREAD, ["updates"]);
note("the first pause's checkpoint, with subgraphs");
await state(app, first, true);
await stream(app, new Command({ resume: "B" }), THREAD, ["updates"]);
note("the same after the end");
await state(app, first, true);
