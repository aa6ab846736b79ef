// A subgraph node returns Command(graph=PARENT, goto=END, update): the parent's static edge
// sub -> z still runs (goto END adds nothing), the subgraph's later node does not.
import { StateGraph, START, END, MemorySaver, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("jump", () => new Command({ graph: Command.PARENT, update: { trace: ["jump"] }, goto: END }))
  .addNode("s2", tracer("s2"))
  .addEdge(START, "jump").addEdge("jump", "s2").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
