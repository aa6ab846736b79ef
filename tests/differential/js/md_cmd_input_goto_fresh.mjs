// A Command input with update and goto on a fresh thread (goto a node; then goto a Send); a
// declares ends b and w only so that they count as reachable.
import { StateGraph, START, MemorySaver, Command, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, thread } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"), { ends: ["b", "w"] }).addNode("c", tracer("c"))
  .addNode("b", (s) => ({ trace: ["b" + s.n] }))
  .addNode("w", (s) => ({ trace: ["w" + s.n] }))
  .addEdge(START, "a").addEdge("a", "c")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, new Command({ update: { n: 3, trace: ["in"] }, goto: "b" }), thread("t1"), ["updates", "values"]);
await state(app, thread("t1"));
await history(app, thread("t1"));
await stream(app, new Command({ update: { n: 4 }, goto: new Send("w", { n: 9 }) }), thread("t2"), ["updates", "values"]);
await state(app, thread("t2"));
