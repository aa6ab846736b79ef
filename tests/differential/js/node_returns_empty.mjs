// A node returning {} (no key): its updates part, no values part for its step; a sibling that
// writes; and a graph whose only node returns {}.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream, invoke } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("empty", () => ({})).addNode("w", tracer("w")).addNode("after", tracer("after"))
  .addEdge(START, "empty").addEdge(START, "w").addEdge("empty", "after").compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
const solo = new StateGraph(TraceState).addNode("empty", () => ({})).addEdge(START, "empty").compile();
await stream(solo, { n: 1 }, {}, ["updates", "values", "tasks"]);
await invoke(solo, { n: 2 });
