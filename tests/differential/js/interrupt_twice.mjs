// A node calling interrupt() twice: each resume answers the next call; the node reruns from the top.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, stream, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("form", () => ({ trace: [interrupt("name?") + "/" + interrupt("age?")] }))
  .addEdge(START, "form").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
await stream(app, new Command({ resume: "ada" }), THREAD, ["updates"]);
await state(app, THREAD);
await stream(app, new Command({ resume: 36 }), THREAD, ["updates", "values"]);
