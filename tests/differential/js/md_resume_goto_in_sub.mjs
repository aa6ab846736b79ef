// Paused inside a subgraph; Command({resume, goto}) names a root node (z
// declares ends extra only so that it counts as reachable).
import { StateGraph, START, MemorySaver, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
import { askSub } from "./helpers_md.mjs";
const app = new StateGraph(TraceState)
  .addNode("sub", askSub("S")).addNode("z", tracer("z"), { ends: ["extra"] }).addNode("extra", tracer("extra"))
  .addEdge(START, "sub").addEdge("sub", "z")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
await stream(app, new Command({ resume: "r", goto: "extra" }), THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
