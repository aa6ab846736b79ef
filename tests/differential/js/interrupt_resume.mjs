// interrupt() inside a node: pause, read the state, resume by value, read state and history.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("ask", () => ({ trace: ["answer:" + interrupt({ question: "ship it?" })] }))
  .addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "ask").addEdge("ask", "c").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"]);
await state(app, THREAD);
await stream(app, new Command({ resume: "yes" }), THREAD, ["updates", "values"]);
await state(app, THREAD);
await history(app, THREAD);
