// interruptAfter a node that routes with Command(update, goto): the pause shows the goto target
// in next; a resume runs it. Also per-call interruptAfter on a Command goto to a Send.
import { StateGraph, START, MemorySaver, Command, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, thread } from "./transcript.mjs";
const build = () => new StateGraph(TraceState)
  .addNode("r", () => new Command({ update: { trace: ["r"], n: 2 }, goto: ["b", new Send("w", { n: 9 })] }), { ends: ["b", "w"] })
  .addNode("b", tracer("b"))
  .addNode("w", (s) => ({ trace: ["w" + s.n] }))
  .addNode("c", tracer("c"))
  .addEdge(START, "r").addEdge("b", "c");
const app = build().compile({ checkpointer: new MemorySaver(), interruptAfter: ["r"] });
await stream(app, { n: 1 }, thread("t1"), ["updates", "values"]);
await state(app, thread("t1"));
await stream(app, null, thread("t1"), ["updates", "values"]);
await state(app, thread("t1"));
const app2 = build().compile({ checkpointer: new MemorySaver() });
await stream(app2, { n: 1 }, { ...thread("t2"), interruptAfter: ["w"] }, ["updates"]);
await state(app2, thread("t2"));
await stream(app2, null, thread("t2"), ["updates"]);
await state(app2, thread("t2"));
