// maxConcurrency 1 with three Sends, the second interrupting; then the resume.
import { StateGraph, START, MemorySaver, Command, Send, interrupt } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("w", (s) => (s.n === 2 ? { trace: ["w2:" + interrupt("w2?")] } : { trace: ["w" + s.n] }))
  .addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("w", "z")
  .addConditionalEdges("a", () => [1, 2, 3].map((n) => new Send("w", { n })))
  .compile({ checkpointer: new MemorySaver() });
const cfg = { ...THREAD, maxConcurrency: 1 };
await stream(app, { n: 0 }, cfg, ["updates"]);
await state(app, THREAD);
await stream(app, new Command({ resume: "ok" }), cfg, ["updates", "values"]);
await state(app, THREAD);
