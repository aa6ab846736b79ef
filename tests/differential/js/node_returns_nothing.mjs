// A node returning nothing: its updates part (the values parts around it: empty_input).
// Python and JS differ here: superstep follows LangGraph Python ({"quiet": null}), which
// docs/semantics.md records; expected/node_returns_nothing.diff.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("quiet", () => {}).addNode("b", tracer("b")).addEdge(START, "quiet").addEdge("quiet", "b").compile();
await stream(app, { n: 1 }, {}, ["updates"]);
