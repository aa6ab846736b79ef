// A resume map naming an id no interrupt has, then a map naming the real id and an unknown one.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("ask", () => ({ trace: ["ask:" + interrupt("q")] }))
  .addNode("c", tracer("c"))
  .addEdge(START, "ask").addEdge("ask", "c")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
await stream(app, new Command({ resume: { "0123456789abcdef0123456789abcdef": "nope" } }), THREAD, ["updates"]);
await state(app, THREAD);
const id = (await app.getState(THREAD)).tasks[0].interrupts[0].id;
await stream(app, new Command({ resume: { [id]: "yes", "0123456789abcdef0123456789abcdef": "extra" } }), THREAD, ["updates", "values"]);
await state(app, THREAD);
