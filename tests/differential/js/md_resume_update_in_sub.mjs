// Paused inside a subgraph; Command({resume, update}) writes root keys: what the subgraph and
// the next root node see.
import { StateGraph, START, MemorySaver, Command } from "@langchain/langgraph";
import { TraceState, stream, state, THREAD } from "./transcript.mjs";
import { askSub } from "./helpers_md.mjs";
const app = new StateGraph(TraceState)
  .addNode("sub", askSub("S"))
  .addNode("z", (s) => ({ trace: ["z" + s.n] }))
  .addEdge(START, "sub").addEdge("sub", "z")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
await stream(app, new Command({ resume: "r", update: { n: 5, trace: ["upd"] } }), THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
