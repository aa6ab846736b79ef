// maxConcurrency 1 with three parallel pulled nodes, the second interrupting; then the resume.
import { StateGraph, START, MemorySaver, Command, interrupt } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("p", tracer("p"))
  .addNode("q", () => ({ trace: ["q:" + interrupt("q?")] }))
  .addNode("r", tracer("r")).addNode("z", tracer("z"))
  .addEdge(START, "p").addEdge(START, "q").addEdge(START, "r")
  .addEdge("p", "z").addEdge("q", "z").addEdge("r", "z")
  .compile({ checkpointer: new MemorySaver() });
const cfg = { ...THREAD, maxConcurrency: 1 };
await stream(app, { n: 0 }, cfg, ["updates"]);
await state(app, THREAD);
await stream(app, new Command({ resume: "ok" }), cfg, ["updates"]);
await state(app, THREAD);
