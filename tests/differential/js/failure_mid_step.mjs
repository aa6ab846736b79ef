// Without a checkpointer: a node fails beside a sibling that succeeds; the step is not applied.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("boom", () => { throw new Error("boom"); }).addNode("ok", tracer("ok")).addNode("after", tracer("after"))
  .addEdge(START, "boom").addEdge(START, "ok").addEdge("ok", "after").compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
