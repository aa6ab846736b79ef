// An innermost node (two levels down) asks twice; each resume answers one.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const inner = new StateGraph(TraceState)
  .addNode("form", () => { const a = interrupt("name?"); const b = interrupt("age?"); return { trace: [a + "/" + b] }; })
  .addEdge(START, "form").compile();
const mid = new StateGraph(TraceState).addNode("m1", tracer("m1")).addNode("inner", inner)
  .addEdge(START, "m1").addEdge("m1", "inner").compile();
const app = new StateGraph(TraceState).addNode("mid", mid).addNode("z", tracer("z"))
  .addEdge(START, "mid").addEdge("mid", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
await stream(app, new Command({ resume: "ada" }), THREAD, ["updates"], { subgraphs: true });
await state(app, THREAD, true);
await stream(app, new Command({ resume: 36 }), THREAD, ["updates", "values"]);
