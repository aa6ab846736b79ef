// Two parallel writes to a plain key in one step: InvalidUpdateError.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("left", () => ({ n: 5 })).addNode("right", () => ({ n: 6 }))
  .addEdge(START, "left").addEdge(START, "right").compile();
await stream(app, { n: 1 }, {}, ["values"]);
